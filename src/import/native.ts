/**
 * What the agents saved in their own memory files:
 * - Claude Code auto memory: `~/.claude/projects/<project dir as dashes>/memory/` — `MEMORY.md` (an
 *   index: pointer lines to topic files, plus loose notes) and one topic file per subject, with
 *   optional frontmatter (name, description, type). The project's directory is read from the
 *   transcripts beside it (their `cwd`).
 * - Gemini CLI: its private project memory folder `~/.gemini/tmp/<project>/memory/` (0.61+: the same
 *   MEMORY.md + notes layout; the project from its `.project_root` marker or projects.json), and the
 *   `## Gemini Added Memories` section older versions' `save_memory` appended to `~/.gemini/GEMINI.md`.
 * - Codex: `$CODEX_HOME/memories/MEMORY.md`, its consolidated durable memories (the other files
 *   there are summaries of it or per-session inputs).
 * - Qwen Code auto memory: Claude's layout, `~/.qwen/projects/<project dir as dashes>/memory/` (the
 *   project's directory from the transcripts in `chats/` beside it), and the user's `~/.qwen/memories/`.
 * Cursor, Windsurf and OpenCode keep no memory files Coffer can read. A file in a repository (its
 * `GEMINI.md`, `CLAUDE.md`, `AGENTS.md`) is never read: it came with other people's commits (issue 36),
 * and neither is an agent folder an environment variable moved into the current repository.
 * Each original is keyed by file and content hash, so a re-run imports only what is new.
 */
import { statSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { CofferError } from "../lib/errors";
import { agentDir, homeDir } from "../lib/paths";
import { pathExists, RefusedFileError, readFileNoFollow } from "../lib/small-file";
import { deriveTitle, GLOBAL, type Kind, normHash, resolveProject } from "../store";
import { claudeHead } from "../transcripts/claude";
import { entries } from "../transcripts/files";
import { geminiProjectPath } from "../transcripts/gemini";
import { qwenHead } from "../transcripts/qwen";
import {
  claudeProjectsDir,
  claudeSlug,
  codexMemoryFile,
  geminiDir,
  geminiProjectIds,
  NATIVE_HOSTS,
  type NativeHost,
  qwenProjectsDir,
  qwenUserMemory,
} from "./native-sources";
import { type Placement, parseProjectMap, placeDirectory, placeProject } from "./scopes";
import type { ImportItem, ImportPlan } from "./types";

const NO_FILES = ["cursor", "windsurf", "opencode", "copilot", "kilo", "pi"];
/** A memory file larger than this is not a memory: left alone. */
const SOURCE_MAX = 4 * 1024 * 1024;

type Source = { host: NativeHost; file: string; text: string; mtime: string };

/**
 * What one planning pass saw: files it refused to read, and every original it found (placed or
 * not); `checkouts`: the current repository's folders, where no memory file is read.
 */
type Seen = { refused: string[]; present: Set<string>; checkouts: string[] };

/** The folders of the repository at `cwd`: its root and this worktree. */
function checkoutsOf(cwd: string): string[] {
  const p = resolveProject(cwd);
  return p ? [...new Set([resolve(p.root), resolve(p.worktree)])] : [];
}

const under = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/**
 * A memory file inside the current repository: the host's folder was moved there (CODEX_HOME set
 * by a project's env file), so the file came with the repository. The agent's own folder kept in
 * git (a dotfiles repository at ~/.claude) is still its own, and so is a repository holding home.
 */
function inCheckout(host: NativeHost, file: string, checkouts: string[]): boolean {
  const f = resolve(file);
  const own = resolve(agentDir(host));
  const home = resolve(homeDir());
  return checkouts.some((c) => under(f, c) && !under(c, own) && !under(home, c)) && pathExists(f);
}

/**
 * One memory file, read the way transcripts are: never through a symbolic link (the file or any
 * folder below `root`), a regular file with no other hard link, at most SOURCE_MAX bytes, and an
 * open that never blocks (a FIFO). A refused file is noted in `seen`; a missing one is not.
 */
function readSource(host: NativeHost, file: string, root: string, seen: Seen): Source | undefined {
  if (inCheckout(host, file, seen.checkouts)) {
    seen.refused.push(
      `${host} ${file}: inside the repository, not your own memory (a repository's files are never read)`,
    );
    return undefined;
  }
  try {
    const r = readFileNoFollow(file, SOURCE_MAX, root, { singleLink: true });
    const mtime = new Date(r.mtimeMs).toISOString().replace(/\.\d{3}Z$/, "Z");
    return { host, file, text: r.buf.toString("utf8"), mtime };
  } catch (err) {
    if (err instanceof RefusedFileError) {
      const why =
        err.reason === "symlink"
          ? "a symbolic link, not followed"
          : err.reason === "hard-link"
            ? "a file with another hard link"
            : err.reason === "not-regular"
              ? "not a regular file"
              : "too large";
      seen.refused.push(`${host} ${file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file}: ${why}`);
    }
    return undefined;
  }
}

const key = (s: Source, rel: string, text: string) => `${s.host}:${rel}#${normHash(text).slice(0, 16)}`;

/** A kind for a one-line memory: the agents save preferences and facts. */
function kindOf(text: string): Kind {
  if (/\b(prefer|prefers|preferred|like[sd]?|favou?rite|dislike[sd]?)\b/i.test(text)) return "preference";
  if (/^(always|never|use|do not|don't|avoid)\b/i.test(text.trim())) return "convention";
  return "fact";
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

function frontmatter(text: string): { meta: Record<string, unknown>; body: string } {
  const m = FRONTMATTER.exec(text);
  if (!m) return { meta: {}, body: text };
  let meta: Record<string, unknown> = {};
  try {
    const v = Bun.YAML.parse(m[1]!);
    if (v && typeof v === "object" && !Array.isArray(v)) meta = v as Record<string, unknown>;
  } catch {}
  return { meta, body: text.slice(m[0].length) };
}

/** Bullets (with their continuation lines) of a Markdown text, or of one section of it. */
function bullets(text: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const b = /^\s{0,3}[-*+]\s+(.*)$/.exec(line);
    if (b) {
      if (cur?.trim()) out.push(cur.trim());
      cur = b[1]!;
    } else if (cur !== undefined && /^\s{2,}\S/.test(line)) cur += ` ${line.trim()}`;
    else {
      if (cur?.trim()) out.push(cur.trim());
      cur = undefined;
    }
  }
  if (cur?.trim()) out.push(cur.trim());
  return out;
}

/** The body of a `## <heading>` section (to the next heading of the same or a higher level). */
function section(text: string, heading: RegExp): string | undefined {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((l) => heading.test(l));
  if (at < 0) return undefined;
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (/^#{1,2}\s/.test(l)) break;
    out.push(l);
  }
  return out.join("\n");
}

/** Claude topic-file types -> kinds. */
const CLAUDE_KIND: Record<string, Kind> = {
  user: "preference",
  feedback: "convention",
  project: "fact",
  reference: "fact",
};

/** A line of MEMORY.md that only points at a topic file (imported on its own). */
const POINTER = /^\[[^\]]*\]\(([^)]+\.md)\)/;

/**
 * A memory folder as Claude Code and Gemini CLI keep one: `MEMORY.md` is an index (pointer lines
 * to sibling notes, which are imported themselves, plus brief facts written straight into it) and
 * each sibling `*.md` is one note, with optional frontmatter (name, description, type).
 */
function memoryFolder(host: NativeHost, memDir: string, relDir: string, root: string, seen: Seen): ImportItem[] {
  const md = (dir: string) => entries(dir).filter((n) => n.endsWith(".md") && !n.startsWith("."));
  // Claude Code keeps team memories beside the private ones, in team/ (MEMORY.md points at team/<file>.md).
  const files = [...md(memDir), ...md(join(memDir, "team")).map((n) => `team/${n}`)].sort();
  const found: ImportItem[] = [];
  for (const s of files.map((f) => readSource(host, join(memDir, f), root, seen)).filter((x): x is Source => !!x)) {
    const name = s.file.slice(memDir.length + 1);
    const rel = `${relDir}/${name}`;
    if (name === "MEMORY.md") {
      for (const b of bullets(s.text)) if (!POINTER.test(b)) found.push(native(s, rel, b, kindOf(b), deriveTitle(b)));
      continue;
    }
    const { meta, body } = frontmatter(s.text);
    const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");
    const description = str(meta.description);
    const text = body.trim() || description;
    if (!text) continue;
    // `name` is a kebab-case slug in current Claude Code: the one-line description makes the better title.
    const slugName = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/.test(str(meta.name));
    const title = (slugName ? description || str(meta.name) : str(meta.name) || description) || deriveTitle(text);
    const nested = meta.metadata && typeof meta.metadata === "object" ? (meta.metadata as Record<string, unknown>) : {};
    const type = str(meta.type) || str(nested.type);
    // One file, one entry: the file is its identity, so an edited file updates that entry.
    found.push({ ...native(s, rel, text, CLAUDE_KIND[type] ?? "fact", title), origin: `${host}:${rel}` });
  }
  for (const i of found) seen.present.add(i.origin ?? i.imported_from!);
  return found;
}

/**
 * The hosts that keep one memory folder per project under `<root>/<project dir as dashes>/memory/`,
 * with the project's transcripts beside it (their `cwd` says where the project lives): Claude Code
 * (`<slug>/*.jsonl`) and Qwen Code (`<slug>/chats/*.jsonl`, its auto memory copies Claude's).
 */
type SlugHost = {
  host: "claude" | "qwen";
  name: string;
  root: string;
  chats: string;
  head: (path: string) => { cwd?: string };
};

const SLUG_HOSTS = {
  claude: () => ({ host: "claude", name: "Claude Code", root: claudeProjectsDir(), chats: "", head: claudeHead }),
  qwen: () => ({ host: "qwen", name: "Qwen Code", root: qwenProjectsDir(), chats: "chats", head: qwenHead }),
} satisfies Record<SlugHost["host"], () => SlugHost>;

function slugFolderItems(
  h: SlugHost,
  map: ReturnType<typeof parseProjectMap>,
  cwd: string,
  skipped: ImportPlan["skipped"],
  seen: Seen,
  only?: NativeProject,
): ImportItem[] {
  const root = h.root;
  const items: ImportItem[] = [];
  const slugs = only ? [...new Set(only.dirs.map(claudeSlug))] : entries(root).sort();
  for (const slug of slugs) {
    const memDir = join(root, slug, "memory");
    if (!entries(memDir).some((n) => n.endsWith(".md"))) continue;
    // Where the project lives: the cwd its transcripts recorded.
    const dirs: string[] = [];
    const chats = join(root, slug, h.chats);
    for (const t of entries(chats).filter((n) => n.endsWith(".jsonl"))) {
      const c = h.head(join(chats, t)).cwd;
      if (c && !dirs.includes(c)) dirs.push(c);
      if (dirs.length >= 3) break;
    }
    const found = memoryFolder(h.host, memDir, `${slug}/memory`, root, seen);
    if (!found.length) continue;
    // Claude Code deletes old transcripts (cleanupPeriodDays): the directory name itself still spells the path.
    if (!dirs.length) {
      const d = dirFromSlug(slug);
      if (d) dirs.push(d);
    }
    const p: Placement = placeProject(slug, dirs, map, cwd, h.name, found.length);
    if ("skip" in p) {
      skipped.push({ reason: p.skip, count: found.length });
      continue;
    }
    for (const i of found) items.push({ ...i, scope: p.scope, project: p.project });
  }
  return items;
}

/**
 * The directory a Claude Code project folder name stands for: the name is the path with every
 * character other than a letter or digit turned into "-", so follow it down from "/" through the
 * directories that exist, matching each one's name spelled the same way.
 */
function dirFromSlug(slug: string): string | undefined {
  const spell = (name: string) => `-${name.replace(/[^A-Za-z0-9]/g, "-")}`;
  const walk = (dir: string, rest: string, depth: number): string | undefined => {
    if (!rest) return dir;
    if (depth > 40) return undefined;
    for (const name of entries(dir)) {
      const s = spell(name);
      if (!rest.startsWith(s) || (rest.length > s.length && rest[s.length] !== "-")) continue;
      let isDir = false;
      try {
        isDir = statSync(join(dir, name)).isDirectory();
      } catch {}
      const found = isDir ? walk(join(dir, name), rest.slice(s.length), depth + 1) : undefined;
      if (found) return found;
    }
    return undefined;
  };
  return slug.startsWith("-") ? walk("/", slug, 0) : undefined;
}

function native(s: Source, rel: string, text: string, kind: Kind, title: string): ImportItem {
  return {
    scope: GLOBAL,
    kind,
    title,
    body: text,
    tags: [`${s.host}-memory`],
    created: s.mtime,
    updated: s.mtime,
    imported_from: key(s, rel, text),
    actor: `import:${s.host}`,
    label: `${s.host} ${rel}`,
  };
}

const GEMINI_SECTION = /^##\s+Gemini Added Memories\s*$/;

function geminiItems(
  map: ReturnType<typeof parseProjectMap>,
  cwd: string,
  skipped: ImportPlan["skipped"],
  seen: Seen,
  only?: NativeProject,
): ImportItem[] {
  const items: ImportItem[] = [];
  // Gemini CLI (0.61+) keeps private project notes in ~/.gemini/tmp/<project>/memory/ (MEMORY.md + notes).
  const tmp = join(geminiDir(), "tmp");
  for (const dir of only ? geminiProjectIds(only.dirs) : entries(tmp).sort()) {
    const memDir = join(tmp, dir, "memory");
    if (!entries(memDir).some((n) => n.endsWith(".md"))) continue;
    const found = memoryFolder("gemini", memDir, `tmp/${dir}/memory`, tmp, seen);
    if (!found.length) continue;
    const root = geminiProjectPath(join(memDir, "MEMORY.md"));
    const p = placeProject(dir, root ? [root] : [], map, cwd, "Gemini CLI", found.length);
    if ("skip" in p) skipped.push({ reason: p.skip, count: found.length });
    else for (const i of found) items.push({ ...i, scope: p.scope, project: p.project });
  }
  // save_memory writes to the user's own ~/.gemini/GEMINI.md only; a repository's GEMINI.md is
  // committed content (anyone's), never harvested.
  const s = readSource("gemini", join(geminiDir(), "GEMINI.md"), geminiDir(), seen);
  const body = s && section(s.text, GEMINI_SECTION);
  if (s && body)
    for (const b of bullets(body)) {
      const item = native(s, "GEMINI.md", b, kindOf(b), deriveTitle(b));
      seen.present.add(item.imported_from!);
      items.push(item);
    }
  return items;
}

/** Codex's consolidated sections and the kind each bullet becomes; `## Task <n>` sections only route to rollouts. */
const CODEX_SECTIONS: [RegExp, Kind][] = [
  [/^user preferences$/i, "preference"],
  [/^reusable knowledge$/i, "fact"],
  [/^failures and how to do differently$/i, "gotcha"],
];

/**
 * `$CODEX_HOME/memories/MEMORY.md`: `# Task Group: ...` blocks, each with `scope:`, `applies_to:
 * cwd=<dir>; ...`, routing-only `## Task <n>` sections, and the consolidated `## User preferences`,
 * `## Reusable knowledge` and `## Failures and how to do differently` bullets (trailing `[Task n]`
 * references dropped). A block lands in the repository of its cwd, else global. A file without
 * task groups is read as sections (one entry each) or loose bullets.
 */
function codexItems(seen: Seen): ImportItem[] {
  const file = codexMemoryFile();
  const s = readSource("codex", file, dirname(dirname(file)), seen);
  if (!s) return [];
  const items = codexParse(s);
  for (const i of items) seen.present.add(i.imported_from!);
  return items;
}

function codexParse(s: Source): ImportItem[] {
  const rel = "memories/MEMORY.md";
  const { body } = frontmatter(s.text);
  const groups = body.split(/^(?=# Task Group:)/m).filter((g) => g.startsWith("# Task Group:"));
  if (groups.length) {
    const items: ImportItem[] = [];
    for (const g of groups) {
      const group = /^# Task Group:\s*(.*)$/m.exec(g)?.[1]?.trim() ?? "";
      const cwd = /^applies_to:.*?\bcwd=([^;\n]+)/m.exec(g)?.[1]?.trim();
      const project = cwd ? placeDirectory(cwd) : undefined;
      for (const sec of g.split(/^(?=## )/m)) {
        const heading = /^## (.*)$/m.exec(sec)?.[1]?.trim() ?? "";
        const kind = CODEX_SECTIONS.find(([re]) => re.test(heading))?.[1];
        if (!kind) continue;
        for (const b of bullets(sec)) {
          const text = b.replace(/(?:\s*\[Task \d+\])+\s*$/, "").trim();
          if (!text) continue;
          const item = native(s, rel, text, kind, deriveTitle(text));
          if (group)
            item.tags = [
              ...item.tags,
              `codex:${group
                .toLowerCase()
                .replace(/[^a-z0-9]+/g, "-")
                .replace(/^-|-$/g, "")
                .slice(0, 48)}`,
            ];
          items.push(project ? { ...item, scope: project.id, project } : item);
        }
      }
    }
    return items;
  }
  // Sections with a heading become one entry each; a file of loose bullets, one per bullet.
  const parts = body.split(/^(?=#{2,3}\s)/m).filter((p) => /^#{2,3}\s/.test(p));
  if (parts.length) {
    return parts
      .map((p) => {
        const [head, ...rest] = p.split("\n");
        const text = rest.join("\n").trim();
        const title = head!.replace(/^#+\s*/, "").trim();
        return text ? native(s, rel, text, kindOf(text), title || deriveTitle(text)) : undefined;
      })
      .filter((i): i is ImportItem => !!i);
  }
  return bullets(body).map((b) => native(s, rel, b, kindOf(b), deriveTitle(b)));
}

/** One project's directories (the session's and its repository root), to plan only its memories. */
export type NativeProject = { dirs: string[] };

export type NativeOptions = {
  hosts?: string;
  project?: string;
  cwd?: string;
  /** Only this project's memory folders (and the global files): the session-start hook's harvest. */
  only?: NativeProject;
};

export type NativePlan = ImportPlan & {
  /** Every original found at its source (placed or not): what is missing was deleted there. */
  present: string[];
};

export function planNative(opts: NativeOptions = {}): NativePlan {
  const cwd = opts.cwd ?? process.cwd();
  const asked = (opts.hosts ?? NATIVE_HOSTS.join(","))
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const skipped: ImportPlan["skipped"] = [];
  for (const h of asked) {
    if (NO_FILES.includes(h)) skipped.push({ reason: `${h} keeps no memory files Coffer can read`, count: 0 });
    else if (!(NATIVE_HOSTS as readonly string[]).includes(h))
      throw new CofferError(`unknown agent "${h}" (--agent takes: ${NATIVE_HOSTS.join(", ")})`, 2);
  }
  const map = parseProjectMap(opts.project);
  const items: ImportItem[] = [];
  const from: string[] = [];
  const seen: Seen = { refused: [], present: new Set(), checkouts: checkoutsOf(cwd) };
  if (asked.includes("claude")) {
    items.push(...slugFolderItems(SLUG_HOSTS.claude(), map, cwd, skipped, seen, opts.only));
    from.push(claudeProjectsDir());
  }
  if (asked.includes("gemini")) {
    items.push(...geminiItems(map, cwd, skipped, seen, opts.only));
    from.push(join(geminiDir(), "GEMINI.md"));
  }
  if (asked.includes("codex")) {
    items.push(...codexItems(seen));
    from.push(dirname(codexMemoryFile()));
  }
  if (asked.includes("qwen")) {
    // The user's own memories (~/.qwen/memories/) hold for every project.
    items.push(...memoryFolder("qwen", qwenUserMemory(), "memories", dirname(qwenUserMemory()), seen));
    items.push(...slugFolderItems(SLUG_HOSTS.qwen(), map, cwd, skipped, seen, opts.only));
    from.push(dirname(qwenUserMemory()));
  }
  for (const r of seen.refused) skipped.push({ reason: r, count: 1 });
  return { source: "native", from: from.join(", "), items, skipped, present: [...seen.present] };
}
