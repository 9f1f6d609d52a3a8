/**
 * What a project's working tree says about itself, read from files only (never by spawning git or
 * a package manager): which paths exist and which are ignored (the root `.gitignore`), the scripts
 * of its package.json files, its Makefile targets, and the dependencies its manifests list
 * (package.json, pyproject.toml, go.mod, Cargo.toml). The staleness check (store/stale.ts) asks.
 * `undefined` always means "cannot tell": the caller never calls something missing then.
 *
 * Nothing here leaves the checkout: a symbolic link committed in the repository is never followed
 * (lstat only; a manifest is read only when no link is on its way), so what a link points at
 * (outside the checkout or not) is never looked at. A link is there as itself; a path that goes
 * through one is "behind a link", which the staleness check never judges.
 */
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { readSmallText } from "../../lib/small-file";

type Rule = { glob: Bun.Glob; negate: boolean; dirOnly: boolean; anchored: boolean };

/** The root `.gitignore` as rules (comments, blanks and escapes aside), in file order. */
function gitignoreRules(text: string): Rule[] {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/\s+$/, "");
    if (!line || line.startsWith("#")) continue;
    const negate = line.startsWith("!");
    if (negate) line = line.slice(1);
    line = line.replace(/^\\/, "");
    const dirOnly = line.endsWith("/");
    if (dirOnly) line = line.slice(0, -1);
    const anchored = line.includes("/");
    line = line.replace(/^\//, "");
    if (!line) continue;
    try {
      rules.push({ glob: new Bun.Glob(line), negate, dirOnly, anchored });
    } catch {}
  }
  return rules;
}

/** Generated or installed folders at any depth: never checked, whatever .gitignore says. */
const ALWAYS_IGNORED = new Set(["node_modules", ".git", "dist", "__pycache__", ".venv", "venv", "bower_components"]);

/**
 * What is at a project-relative path, seen with lstat from the root down: a folder, a file (or
 * anything else that is not a link), a link (never followed), nothing, "behind-link" when a folder
 * on its way is a link (nothing past it is looked at), or "outside" for a path that is not one
 * inside the checkout (absolute, `..`).
 */
export type PathState = "dir" | "file" | "link" | "missing" | "behind-link" | "outside";

export type ProjectFacts = {
  root: string;
  /** Is this project-relative path (or a folder above it) ignored or generated? */
  ignored(rel: string): boolean;
  /** What is at the path, without following any link. */
  at(rel: string): PathState;
  /** Is the path there (a file, a folder or a link as itself)? False behind a link. */
  exists(rel: string): boolean;
  /** A real folder (not a link to one)? */
  isDir(rel: string): boolean;
  /** Every file of the tree (not ignored), walked once on first use; undefined past `max` files. */
  files(): string[] | undefined;
  /** Script names of the root package.json and of packages one or two folders down; undefined without one. */
  scripts(): Set<string> | undefined;
  /** Make targets; undefined without a Makefile or when it defines targets we cannot read (includes, patterns, variables). */
  targets(): Set<string> | undefined;
  /** Dependencies listed by the manifests (lowercase); undefined without any manifest. */
  deps(): Set<string> | undefined;
};

const FILES_MAX = 100_000;

export function projectFacts(root: string): ProjectFacts {
  const states = new Map<string, PathState>();
  const at = (rel: string): PathState => {
    const clean = rel.replace(/\/+$/, "");
    if (!clean) return "dir";
    if (clean.startsWith("/") || clean.split("/").some((seg) => seg === "" || seg === "." || seg === ".."))
      return "outside";
    let state = states.get(clean);
    if (state !== undefined) return state;
    const slash = clean.lastIndexOf("/");
    const parent = slash < 0 ? "dir" : at(clean.slice(0, slash));
    if (parent !== "dir") state = parent === "missing" || parent === "file" ? "missing" : "behind-link";
    else
      try {
        const st = lstatSync(join(root, clean));
        state = st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : "file";
      } catch {
        state = "missing";
      }
    states.set(clean, state);
    return state;
  };
  /** A manifest's text, only when it is a regular file with no link on its way (never read through one). */
  const readInside = (rel: string, max: number): string | undefined =>
    at(rel) === "file" ? readSmallText(join(root, rel), max) : undefined;
  const rules = gitignoreRules(readInside(".gitignore", 1024 * 1024) ?? "");
  const ignoredCache = new Map<string, boolean>();
  const dirIgnored = (rel: string, isDir: boolean): boolean => {
    const segs = rel.split("/");
    if (segs.some((s) => ALWAYS_IGNORED.has(s))) return true;
    let out = false;
    for (const r of rules) {
      if (r.negate !== out) continue; // only a rule that could change the answer
      for (let i = 1; i <= segs.length; i++) {
        const prefix = segs.slice(0, i).join("/");
        const prefixIsDir = i < segs.length || isDir;
        if (r.dirOnly && !prefixIsDir) continue;
        const hit = r.anchored ? r.glob.match(prefix) : r.glob.match(segs[i - 1]!);
        // a negation re-includes only the path itself, not what an ignored folder holds
        if (hit && (!r.negate || i === segs.length)) {
          out = !r.negate;
          break;
        }
      }
    }
    return out;
  };
  const ignored = (rel: string) => {
    let v = ignoredCache.get(rel);
    if (v === undefined) {
      v = dirIgnored(rel, at(rel) === "dir");
      ignoredCache.set(rel, v);
    }
    return v;
  };
  let fileList: string[] | undefined | null = null;
  /** One walk of the tree: folder entries carry their type, so no file is statted; links are listed, never entered. */
  const files = () => {
    if (fileList !== null) return fileList;
    const out: string[] = [];
    const walk = (rel: string): boolean => {
      let names: Dirent[];
      try {
        names = readdirSync(rel ? join(root, rel) : root, { withFileTypes: true });
      } catch {
        return true;
      }
      for (const d of names) {
        const r = rel ? `${rel}/${d.name}` : d.name;
        const dir = d.isDirectory();
        if (dirIgnored(r, dir)) continue;
        if (dir) {
          if (!walk(r)) return false;
        } else {
          out.push(r);
          if (out.length > FILES_MAX) return false;
        }
      }
      return true;
    };
    fileList = walk("") ? out : undefined;
    return fileList;
  };
  const json = (rel: string): Record<string, unknown> | undefined => {
    try {
      const v = JSON.parse(readInside(rel, 4 * 1024 * 1024) ?? "");
      return v && typeof v === "object" ? v : undefined;
    } catch {
      return undefined;
    }
  };
  const toml = (rel: string): Record<string, unknown> | undefined => {
    const text = readInside(rel, 4 * 1024 * 1024);
    if (text === undefined) return undefined;
    try {
      return parseToml(text) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  /** package.json files: the root's, and those of packages one or two folders down (workspaces). */
  const packageJsons = (): Record<string, unknown>[] => {
    const rootPkg = json("package.json");
    if (!rootPkg) return [];
    const out = [rootPkg];
    const sub = (rel: string, depth: number) => {
      let names: string[];
      try {
        names = readdirSync(join(root, rel));
      } catch {
        return;
      }
      for (const n of names) {
        const r = rel ? `${rel}/${n}` : n;
        if (n.startsWith(".") || dirIgnored(r, true) || at(r) !== "dir") continue;
        const pkg = json(`${r}/package.json`);
        if (pkg) out.push(pkg);
        if (depth < 2) sub(r, depth + 1);
      }
    };
    sub("", 1);
    return out;
  };
  let pkgs: Record<string, unknown>[] | undefined;
  const objKeys = (v: unknown): string[] => (v && typeof v === "object" && !Array.isArray(v) ? Object.keys(v) : []);
  return {
    root,
    ignored,
    at,
    exists: (rel) => ["dir", "file", "link"].includes(at(rel)),
    isDir: (rel) => at(rel) === "dir",
    files,
    scripts() {
      pkgs ??= packageJsons();
      if (!pkgs.length) return undefined;
      return new Set(pkgs.flatMap((p) => objKeys(p.scripts)));
    },
    targets() {
      const name = ["GNUmakefile", "makefile", "Makefile"].find((n) => at(n) === "file");
      if (!name) return undefined;
      const text = readInside(name, 4 * 1024 * 1024);
      if (text === undefined) return undefined;
      const out = new Set<string>();
      for (const line of text.replace(/\\\r?\n/g, " ").split(/\r?\n/)) {
        if (/^\s*-?include\s/.test(line)) return undefined; // targets may come from another file
        const m = /^([^\s#:=][^:=#]*?)\s*::?(?!=)/.exec(line);
        if (!m || line.startsWith("\t")) continue;
        for (const t of m[1]!.trim().split(/\s+/)) {
          if (t.includes("%") || t.includes("$")) return undefined; // pattern or computed targets
          out.add(t);
        }
      }
      return out;
    },
    deps() {
      let any = false;
      const out = new Set<string>();
      const add = (names: string[]) => {
        for (const n of names) out.add(n.toLowerCase());
      };
      pkgs ??= packageJsons();
      for (const p of pkgs) {
        any = true;
        for (const f of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"])
          add(objKeys(p[f]));
      }
      const py = toml("pyproject.toml");
      if (py) {
        any = true;
        const pep508 = (v: unknown) =>
          Array.isArray(v)
            ? v.filter((s) => typeof s === "string").map((s) => /^[A-Za-z0-9][\w.-]*/.exec(s)?.[0] ?? "")
            : [];
        const project = (py.project ?? {}) as Record<string, unknown>;
        add(pep508(project.dependencies));
        for (const group of Object.values((project["optional-dependencies"] ?? {}) as Record<string, unknown>))
          add(pep508(group));
        for (const group of Object.values((py["dependency-groups"] ?? {}) as Record<string, unknown>))
          add(pep508(group));
        const poetry = ((py.tool ?? {}) as Record<string, unknown>).poetry as Record<string, unknown> | undefined;
        if (poetry) {
          add(objKeys(poetry.dependencies));
          add(objKeys(poetry["dev-dependencies"]));
          for (const g of Object.values((poetry.group ?? {}) as Record<string, { dependencies?: unknown }>))
            add(objKeys(g?.dependencies));
        }
      }
      const gomod = readInside("go.mod", 4 * 1024 * 1024);
      if (gomod !== undefined) {
        any = true;
        for (const m of gomod.matchAll(/^\s*(?:require\s+)?([\w.-]+\.[\w.-]+\/\S+)\s+v\d/gm)) {
          out.add(m[1]!.toLowerCase());
          out.add(basename(m[1]!).toLowerCase());
        }
      }
      const cargo = toml("Cargo.toml");
      if (cargo) {
        any = true;
        for (const f of ["dependencies", "dev-dependencies", "build-dependencies"]) add(objKeys(cargo[f]));
        add(objKeys(((cargo.workspace ?? {}) as Record<string, unknown>).dependencies));
      }
      return any ? out : undefined;
    },
  };
}
