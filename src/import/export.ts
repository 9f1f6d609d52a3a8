/**
 * `coffer export`: the store as it is on disk (memory/ is the truth, not the index), one JSON
 * object per line, in a fixed order (global first, then projects by id; entries by id), so the
 * same store always exports to the same bytes. Each record carries the file's exact text in
 * `file`; the other fields repeat what it says for readers (jq, scripts). Markdown is for people.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { CofferError } from "../lib/errors";
import { readFileNoFollow } from "../lib/small-file";
import {
  type Entry,
  entriesDir,
  GLOBAL,
  parseEntry,
  resolveProject,
  type ScopeKey,
  scopeDir,
  scopesOnDisk,
} from "../store";

export const EXPORT_VERSION = 1;

export type ExportRecord =
  | { type: "coffer-export"; version: number }
  | { type: "project"; scope: string; label: string; origin: string | null; file: string }
  | { type: "rules"; scope: string; file: string }
  | ({ type: "entry"; scope: string; file: string } & Entry)
  | { type: "handoff"; scope: string; name: string; file: string };

/** A regular file's text (never a symlink, a directory or a huge file). */
function regular(path: string, max = 4 * 1024 * 1024): string | undefined {
  try {
    return readFileNoFollow(path, max).buf.toString("utf8");
  } catch {
    return undefined;
  }
}

function names(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith(".md") && !n.startsWith("."))
      .sort();
  } catch {
    return [];
  }
}

function projectFields(text: string): { label: string; origin: string | null } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  try {
    const meta = (m ? Bun.YAML.parse(m[1]!) : {}) as { label?: unknown; origin?: unknown };
    return {
      label: typeof meta.label === "string" ? meta.label : "",
      origin: typeof meta.origin === "string" ? meta.origin : null,
    };
  } catch {
    return { label: "", origin: null };
  }
}

/** `all` (default), `global`, `project` (the cwd's repository) or a project id. */
export function exportScopes(scope: string | undefined, cwd: string): ScopeKey[] {
  const onDisk = scopesOnDisk();
  const projects = onDisk.filter((s) => s !== GLOBAL).sort();
  if (!scope || scope === "all") return [GLOBAL, ...projects];
  if (scope === "global") return [GLOBAL];
  if (scope === "project") {
    const p = resolveProject(cwd);
    if (!p)
      throw new CofferError(
        `no project scope here: ${cwd} is not inside a git repository`,
        1,
        "Run it inside a repository, or use --scope all|global|<project id>.",
      );
    return [p.id];
  }
  const id = scope.toUpperCase();
  if (projects.includes(id)) return [id];
  throw new CofferError(
    `unknown scope "${scope}" (allowed: all, global, project, or a project id)`,
    2,
    "Project ids are listed by `coffer status`.",
  );
}

/** Every record of the given scopes, in export order. */
export function* exportRecords(scopes: ScopeKey[]): Generator<ExportRecord> {
  yield { type: "coffer-export", version: EXPORT_VERSION };
  for (const scope of scopes) {
    const dir = scopeDir(scope);
    if (scope !== GLOBAL) {
      const file = regular(join(dir, "project.md"));
      if (file !== undefined) yield { type: "project", scope, ...projectFields(file), file };
    }
    const rules = regular(join(dir, "rules.md"));
    if (rules?.trim()) yield { type: "rules", scope, file: rules };
    for (const name of names(entriesDir(scope))) {
      const file = regular(join(entriesDir(scope), name));
      if (file === undefined) continue;
      let entry: Entry;
      try {
        entry = parseEntry(file, name.slice(0, -3));
      } catch {
        continue; // not an entry (the index skips it too)
      }
      entry.id = name.slice(0, -3);
      const clean = Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as Entry;
      yield { type: "entry", scope, ...clean, file };
    }
    if (scope !== GLOBAL) {
      for (const name of names(join(dir, "handoff"))) {
        const file = regular(join(dir, "handoff", name));
        if (file !== undefined) yield { type: "handoff", scope, name: `handoff/${name}`, file };
      }
    }
  }
}

export function toJsonl(records: Iterable<ExportRecord>): string {
  let out = "";
  for (const r of records) out += `${JSON.stringify(r)}\n`;
  return out;
}

/** A readable Markdown document of the same records. */
export function toMarkdown(records: Iterable<ExportRecord>): string {
  const out: string[] = ["# Coffer export", ""];
  let section = "";
  const body = (file: string) => file.replace(/^---\r?\n[\s\S]*?\r?\n---[ \t]*\r?\n?/, "").trim();
  const heading = (scope: string, label?: string) => {
    if (section === scope) return;
    section = scope;
    out.push(scope === GLOBAL ? "## Global" : `## Project ${label || scope} (${scope})`, "");
  };
  for (const r of records) {
    if (r.type === "coffer-export") continue;
    if (r.type === "project") {
      heading(r.scope, r.label);
      if (r.origin) out.push(`Origin: ${r.origin}`, "");
      continue;
    }
    heading(r.scope);
    if (r.type === "rules") out.push("### Rules", "", body(r.file), "");
    else if (r.type === "handoff")
      out.push(`### Handoff ${r.name.replace(/^handoff\/|\.md$/g, "")}`, "", body(r.file), "");
    else {
      const meta = [
        r.kind,
        r.tags.length ? `tags: ${r.tags.join(", ")}` : "",
        r.applies_to.length ? `applies to: ${r.applies_to.join(", ")}` : "",
      ]
        .filter(Boolean)
        .join(" · ");
      out.push(
        `### ${r.title}`,
        "",
        `*${meta}* — \`${r.id}\`, ${r.actor}, created ${r.created}, updated ${r.updated}`,
        "",
        r.body,
        "",
      );
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}
