/**
 * Placing another tool's "project" (a name, maybe a directory it saw) in a Coffer scope: the
 * directory's repository when it still is one, else what the user said with `--project`; and
 * the id of the source an import reads, which every import key carries.
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import { homeDir } from "../lib/paths";
import { GLOBAL, type ProjectScope, resolveProject, type ScopeKey } from "../store";

export type Placement = { scope: ScopeKey; project?: ProjectScope } | { skip: string };

/** `--project` as given: `name=<dir|global>` pairs (comma-separated), or one `<dir|global>` for everything unplaced. */
export type ProjectMap = { byName: Map<string, string>; fallback?: string };

export function parseProjectMap(raw: string | undefined): ProjectMap {
  const map: ProjectMap = { byName: new Map() };
  if (!raw?.trim()) return map;
  for (const part of raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq > 0) map.byName.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    else if (map.fallback === undefined) map.fallback = part;
    else
      throw new CofferError(
        `--project has two targets without a name ("${map.fallback}", "${part}")`,
        2,
        "Give one directory for everything, or name=dir pairs: --project app=~/src/app,tools=global",
      );
  }
  return map;
}

function expand(p: string, cwd: string): string {
  const home = homeDir();
  const q = p === "~" ? home : p.startsWith("~/") ? `${home}/${p.slice(2)}` : p;
  return isAbsolute(q) ? q : resolve(cwd, q);
}

/** A `--project` target: `global`, or a directory inside a repository. */
function placeTarget(target: string, cwd: string): Placement {
  if (target === "global") return { scope: GLOBAL };
  const dir = expand(target, cwd);
  const project = existsSync(dir) ? resolveProject(dir) : undefined;
  if (!project)
    throw new CofferError(
      `--project ${target}: ${dir} is not inside a git repository`,
      1,
      "Name a directory inside the repository these memories belong to, or `global`.",
    );
  return { scope: project.id, project };
}

/** The repository a directory belongs to, if it still exists and is one. */
export function placeDirectory(dir: string | undefined): ProjectScope | undefined {
  if (!dir || !isAbsolute(dir)) return undefined;
  // A file or folder deleted since still belongs to the repository around it, if that remains.
  let d = resolve(dir);
  while (!existsSync(d)) {
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
  return resolveProject(d);
}

/**
 * Place one named project: an explicit `--project name=...` wins, then the directories the
 * tool recorded (first one that is a repository), then a plain `--project <dir>`.
 */
export function placeProject(
  name: string,
  dirs: string[],
  map: ProjectMap,
  cwd: string,
  tool: string,
  count: number,
): Placement {
  const explicit = map.byName.get(name);
  if (explicit) return placeTarget(explicit, cwd);
  for (const d of dirs) {
    const p = placeDirectory(d);
    if (p) return { scope: p.id, project: p };
  }
  if (map.fallback) return placeTarget(map.fallback, cwd);
  const why = dirs.length
    ? `its directory ${dirs[0]} no longer exists or is not a git repository`
    : `${tool} recorded no directory for it`;
  return {
    skip: `project "${name}" (${count} ${count === 1 ? "memory" : "memories"}) skipped: ${why}. Map it with --project "${name}=<repo dir>" (or "${name}=global")`,
  };
}

/**
 * A short id for the source an import reads (one claude-mem database, one engram store), from what
 * identifies it (its first rows): part of every import key, so two sources' row ids never collide.
 */
export function sourceId(identity: string): string {
  return sha256(identity).slice(0, 12);
}

/** JSON with sorted keys: the same row gives the same text whatever order its columns came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    typeof v === "bigint"
      ? v.toString()
      : v && typeof v === "object" && !Array.isArray(v) && !ArrayBuffer.isView(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
  );
}

/**
 * The import key of one original: where it sits in its source (`claude-mem:<source id>:observation:42`)
 * and a hash of what it holds. A database copied to another machine keeps its first rows (so its
 * source id) and numbers its later rows on its own, so row 42 there is another memory than row 42
 * here: the content tells them apart. The same row read again gives the same key.
 */
export function originalKey(place: string, content: unknown): string {
  return `${place}:${sha256(canonical(content)).slice(0, 12)}`;
}
