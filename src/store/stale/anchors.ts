/**
 * Anchors: what an entry depends on in its project's code — files and globs, package scripts, make
 * targets, dependencies — read from its `applies_to` globs and its body at write time and at reindex
 * (the index keeps them; `store/stale.ts` checks them against the working tree). Conservative on
 * purpose: a token is an anchor only when it can only mean that (a repository-relative path with a
 * known extension, a command in a code span or a package-manager command in prose), never a URL, an
 * absolute path, a path out of the repository or a word that merely looks like a name; what could
 * be either (`make sure`, a backticked `jest`) is a weak anchor, checked only once seen present.
 */

export type AnchorKind = "glob" | "path" | "script" | "target" | "dep";

/**
 * One anchor. `weak`: a path without a known extension (checked only when its parent folder
 * exists), a dependency named in backticks without a version, or `make x` / `yarn x` / `pnpm x` in
 * prose (each checked only once a check saw it listed: a backticked word is as often an identifier
 * as a package, and "make sure" is no target).
 */
export type Anchor = { k: AnchorKind; v: string; weak?: true };

/** File extensions that make a slash-separated token a path (not "and/or", "client/server"). */
const EXTENSIONS = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs json jsonc md mdx py pyi go rs rb java kt kts scala swift m mm c h cc cpp cxx hpp hh cs fs " +
    "php pl sh bash zsh fish ps1 toml yaml yml ini cfg conf env sql css scss sass less html htm vue svelte astro lock txt " +
    "proto graphql gql gradle xml plist mk cmake dockerfile tf hcl lua ex exs erl hrl clj dart r jl zig nim ml mli elm hs " +
    "csv tsv svg png jpg gif ico wasm sol prisma ipynb rst adoc"
  ).split(" "),
);

/** Top-level folders that are generated or installed: never anchors (nothing in them is a fact about the code). */
export const GENERATED_DIRS = new Set([
  "node_modules",
  "dist",
  "build",
  "out",
  "target",
  "coverage",
  ".git",
  ".next",
  ".nuxt",
  ".cache",
  ".turbo",
  ".venv",
  "venv",
  "__pycache__",
  "vendor",
  "bower_components",
]);

/** `pnpm <x>` / `yarn <x>` built-ins: not scripts. */
const PM_BUILTINS = new Set(
  (
    "add install i remove rm uninstall update up upgrade outdated audit exec dlx create init link unlink list ls why " +
    "publish pack run test t start store config set get import rebuild prune patch patch-commit env setup help version " +
    "dedupe fetch licenses root bin workspace workspaces info cache global node self-update login logout whoami " +
    "tag dist-tag deploy approve-builds doctor plugin constraints npm berry explain stage up upgrade-interactive"
  ).split(" "),
);

/** Runtimes and tools named with versions that are not entries of a manifest. */
const NOT_DEPS = new Set(
  "node nodejs bun deno npm pnpm yarn python python3 pip go golang rust rustc cargo java ruby php docker git make cmake ubuntu debian macos windows linux es es2020 es2022 esnext ecmascript html css http tls ssl v version".split(
    " ",
  ),
);

/** A repository-relative path (the caller strips punctuation); undefined when the token is not one. */
function asPath(token: string): Anchor | undefined {
  let t = token.replace(/^\.\//, "");
  if (t.length < 3 || t.length > 300) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(t)) return undefined; // URLs, scp-like hosts, C:\ drives
  if (t.startsWith("/") || t.startsWith("~") || t.startsWith("..") || t.includes("\\")) return undefined;
  if (/[*?{}[\]$%<>|=@!,;'"`()#&^+]/.test(t)) return undefined; // globs, templates, versions, code
  if (!t.includes("/")) return undefined; // a bare name could be anywhere in the tree
  if (t.includes("//") || t.includes("/./") || t.includes("/../")) return undefined;
  const segs = t.replace(/\/$/, "").split("/");
  // a host name first (github.com/x/y, example.org/a.js): another repository or a page
  if (
    /^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/i.test(segs[0]!) &&
    !EXTENSIONS.has(segs[0]!.split(".").pop()!.toLowerCase())
  )
    return undefined;
  if (segs.some((s) => GENERATED_DIRS.has(s) || s === "" || s === "." || s === "..")) return undefined;
  if (t.endsWith("/")) {
    t = t.slice(0, -1);
    return /^[\w.-]+(\/[\w.-]+)*$/.test(t) ? { k: "path", v: t, weak: true } : undefined;
  }
  if (!/^[\w.-]+(\/[\w.-]+)+$/.test(t)) return undefined;
  const last = segs[segs.length - 1]!;
  const ext = last.includes(".") ? last.split(".").pop()!.toLowerCase() : "";
  if (ext && EXTENSIONS.has(ext)) return { k: "path", v: t };
  if (ext) return undefined; // an unknown extension: a version, a domain, a property chain
  return { k: "path", v: t, weak: true };
}

/** Text inside backticks (inline spans and fenced blocks), and lines that read as a shell prompt. */
function codeSpans(body: string): string[] {
  const out: string[] = [];
  const fenced = /```[^\n]*\n([\s\S]*?)```/g;
  for (const m of body.matchAll(fenced)) out.push(m[1]!);
  const rest = body.replace(fenced, " ");
  for (const m of rest.matchAll(/`([^`\n]{1,300})`/g)) out.push(m[1]!);
  for (const m of rest.matchAll(/^\s*\$\s+(.+)$/gm)) out.push(m[1]!);
  return out;
}

const SCRIPT_NAME = /^[A-Za-z0-9](?:[\w:.-]*[A-Za-z0-9])?$/;
const TARGET_NAME = /^[A-Za-z0-9_](?:[\w.-]*[A-Za-z0-9_])?$/;
/** npm package names (scoped too), Python/Rust/Go-ish names. */
const DEP_NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;
const VERSION = /^[v^~]?\d+(?:\.\d+|\.x)*(?:[-+][\w.]+)?$/;

/**
 * Commands in code, each the first word of a shell command (after `$`, `sudo` and `VAR=value`
 * prefixes): `make <target>`, `npm run <s>`, `pnpm [run] <s>`, `yarn [run] <s>`, `bun run <s>`.
 * A "make" inside a sentence or a code comment is not a command.
 */
function commands(code: string, add: (a: Anchor) => void): void {
  for (const part of code.split(/\n|&&|\|\||;|\|/)) {
    const words = part
      .trim()
      .replace(/^\$\s+/, "")
      .split(/\s+/);
    while (words.length && (words[0] === "sudo" || /^[A-Z_][A-Z0-9_]*=/.test(words[0]!))) words.shift();
    const [w, next] = words;
    if (!w || !next) continue;
    // a workspace, filter or prefix flag points at another package's scripts: not checked
    if (words.some((x) => /^(?:-w|--workspace(?:=.*)?|--filter(?:=.*)?|-F|-C|--prefix|--cwd|--dir)$/.test(x))) continue;
    if (w === "make" || w === "gmake") {
      // `make -C dir`, `make -f file`: another Makefile
      if (words.some((x) => /^-[Cf]/.test(x) || x.startsWith("--directory") || x.startsWith("--file"))) continue;
      for (const t of words.slice(1)) {
        if (t.startsWith("-") || t.includes("=")) continue;
        if (TARGET_NAME.test(t)) add({ k: "target", v: t });
        else break;
      }
    } else if (w === "npm" || w === "bun") {
      const s = words[2];
      // `bun run file.ts`: a file, not a script
      if ((next === "run" || next === "run-script") && s && SCRIPT_NAME.test(s) && !/\.[a-z]{1,4}$/i.test(s))
        add({ k: "script", v: s });
    } else if (w === "pnpm" || w === "yarn") {
      const s = next === "run" ? words[2] : next;
      if (s && SCRIPT_NAME.test(s) && (next === "run" || !PM_BUILTINS.has(s)) && !/\.[a-z]{1,4}$/i.test(s))
        add({ k: "script", v: s });
    }
  }
}

/** Dependencies: `name@1.2`, `name` 1.2 (a backticked name next to a version), or a backticked name alone (weak). */
function dependencies(body: string, spans: string[], add: (a: Anchor) => void): void {
  const dep = (name: string, weak: boolean) => {
    const n = name.toLowerCase();
    if (!DEP_NAME.test(name) || NOT_DEPS.has(n) || n.length < 2 || /^\d/.test(n)) return;
    add(weak ? { k: "dep", v: n, weak: true } : { k: "dep", v: n });
  };
  // name@version anywhere but in a URL or an e-mail address
  for (const m of body.matchAll(
    /(?<![\w/.:@-])((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)@([v^~]?\d+(?:\.\d+|\.x)*)(?![\w@])/gi,
  ))
    dep(m[1]!, false);
  // `name` 1.2 / `name` v1.2 / `name@1.2`
  for (const m of body.matchAll(/`([^`\s]{2,80})`\s+(?:version\s+)?([v^~]?\d+(?:\.\d+)+|v\d+)(?![\w.])/gi))
    if (VERSION.test(m[2]!)) dep(m[1]!, false);
  for (const s of spans) {
    const t = s.trim();
    // a lone backticked name that reads like a package (lowercase, or scoped): weak, checked only
    // once a check saw it listed in a manifest
    if (/^(?:@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*|[a-z][a-z0-9]*(?:[-.][a-z0-9]+)*)$/.test(t)) dep(t, true);
  }
}

/** The body without code: fenced blocks, inline spans and shell-prompt lines blanked out. */
function prose(body: string): string {
  return body
    .replace(/```[^\n]*\n[\s\S]*?```/g, " ")
    .replace(/`[^`\n]{1,300}`/g, " ")
    .replace(/^\s*\$\s+.+$/gm, " ");
}

/**
 * Commands in prose: `npm run x`, `pnpm run x`, `yarn run x`, `bun run x` can only be a script
 * (firm); `yarn x`, `pnpm x` and `make x` could be a sentence ("make sure"), so they are weak.
 */
function proseCommands(text: string, add: (a: Anchor) => void): void {
  const re = /(?<![\w./-])(npm|pnpm|yarn|bun|make|Make|gmake)\s+(?:(run|run-script)\s+)?([^\s]+)(?:\s+([^\s]+))?/g;
  for (const m of text.matchAll(re)) {
    const [, tool, run, raw, after] = m;
    const name = raw!.replace(LEAD, "").replace(TRAIL, "");
    // a workspace, filter or prefix flag right after: another package's scripts
    if (after && /^(?:-w|--workspace(?:=.*)?|--filter(?:=.*)?|-F|-C|--prefix|--cwd|--dir)$/.test(after)) continue;
    if (/^make$|^Make$|^gmake$/.test(tool!)) {
      if (!run && TARGET_NAME.test(name) && name === raw!.replace(TRAIL, "") && /^[a-z]/.test(name))
        add({ k: "target", v: name, weak: true });
      continue;
    }
    if (!SCRIPT_NAME.test(name) || /\.[a-z]{1,4}$/i.test(name)) continue;
    if (run) add({ k: "script", v: name });
    else if ((tool === "yarn" || tool === "pnpm") && !PM_BUILTINS.has(name) && /^[a-z]/.test(name))
      add({ k: "script", v: name, weak: true });
  }
}

const TRAIL = /[.,;:!?)\]}>'"`*_]+$/;
const LEAD = /^[(<['"`*_]+/;

/** The anchors of an entry (sorted, unique): what `coffer stale` checks. */
export function extractAnchors(body: string, appliesTo: string[]): Anchor[] {
  const out = new Map<string, Anchor>();
  const add = (a: Anchor) => {
    const key = `${a.k}:${a.v}`;
    const had = out.get(key);
    if (!had || (had.weak && !a.weak)) out.set(key, a);
  };
  for (const g of appliesTo) {
    const t = g.trim().replace(/^\.\//, "");
    if (!t || t.startsWith("/") || t.startsWith("..") || t.startsWith("~") || /^[a-z][a-z0-9+.-]*:/i.test(t)) continue;
    if (t.split("/").some((s) => GENERATED_DIRS.has(s))) continue;
    if (/[*?{[]/.test(t)) add({ k: "glob", v: t });
    else add({ k: "path", v: t.replace(/\/$/, "") });
  }
  const text = body.slice(0, 32768);
  // markdown links: the target only when it is a relative path (never a URL)
  for (const raw of text.split(/[\s,;|]+/)) {
    if (raw.length < 3) continue;
    const token = raw
      .replace(/^\[[^\]]*\]\(/, "")
      .replace(LEAD, "")
      .replace(TRAIL, "")
      .replace(/:\d+(?::\d+)?$/, "")
      .replace(/#L?\d+(?:-L?\d+)?$/, "")
      .replace(TRAIL, "");
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw.replace(LEAD, ""))) continue;
    const p = asPath(token);
    if (p) add(p);
  }
  // URLs name other places (a package page's `?p=name@1.0`): nothing in one is an anchor
  const noUrls = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s)\]>"'`]+/gi, " ");
  const spans = codeSpans(noUrls);
  for (const s of spans) commands(s, add);
  proseCommands(prose(noUrls), add);
  dependencies(noUrls, spans, add);
  return [...out.values()].sort((a, b) => (a.k + a.v < b.k + b.v ? -1 : a.k + a.v > b.k + b.v ? 1 : 0));
}

/** Why one anchor no longer holds (store/stale.ts); `moved`: where the file may have gone. */
export type StaleReason = { anchor: string; why: string; moved?: string };

/** The text the hook adds to a stale body: `src/billing/tax.ts is gone (maybe moved to src/tax/index.ts)`. */
export function reasonText(r: StaleReason): string {
  return r.moved ? `${r.why} (maybe moved to ${r.moved})` : r.why;
}

/** The stored reasons of an `entries.stale` value ('' = fresh or unchecked). */
export function parseStale(text: string | null | undefined): StaleReason[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.filter((r) => r && typeof r.why === "string") : [];
  } catch {
    return [];
  }
}

/** What the hook appends to a stale body: `(may be stale: src/billing/tax.ts is gone)`; '' when fresh. */
export function staleMark(stale: string | null | undefined): string {
  const reasons = parseStale(stale);
  return reasons.length ? `(may be stale: ${reasons.map(reasonText).join("; ")})` : "";
}
