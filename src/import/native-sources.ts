/**
 * Where the agents keep the memories they write themselves, and a signature of those files that
 * costs a few lstat calls: the session-start hook compares it with the one it saw last and
 * harvests only when it moved (`harvest.ts`). Only node:fs and lib here: this runs on the hook path.
 * - Claude Code: `~/.claude/projects/<project dir as dashes>/memory/` (MEMORY.md, topic files, team/).
 * - Gemini CLI: `~/.gemini/GEMINI.md` (where `save_memory` writes) and its private project folder
 *   `~/.gemini/tmp/<project>/memory/` (<project> from `~/.gemini/projects.json`, or the path's sha256).
 * - Codex: `$CODEX_HOME/memories/MEMORY.md`.
 * - Qwen Code: its auto memory, Claude's layout: `~/.qwen/projects/<project dir as dashes>/memory/`
 *   per project and `~/.qwen/memories/` for the user (`$QWEN_HOME` moves `~/.qwen`); never a
 *   repository's `.qwen/team-memory/` (other people's commits).
 * Only the agents' own folders on this machine: a file that arrives with a repository (its
 * `GEMINI.md`, `CLAUDE.md`, `AGENTS.md`) is other people's commits, never the user's memory (issue 36).
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../lib/hash";
import { agentDir } from "../lib/paths";
import { readSmallText } from "../lib/small-file";

export const NATIVE_HOSTS = ["claude", "gemini", "codex", "qwen"] as const;
export type NativeHost = (typeof NATIVE_HOSTS)[number];

export const isNativeHost = (h: string): h is NativeHost => (NATIVE_HOSTS as readonly string[]).includes(h);

/** Claude Code's folder name for a project directory: every character but a letter or digit becomes "-". */
export const claudeSlug = (dir: string): string => dir.replace(/[^A-Za-z0-9]/g, "-");

export const claudeProjectsDir = (): string => join(agentDir("claude"), "projects");
export const geminiDir = (): string => agentDir("gemini");
export const codexMemoryFile = (): string => join(agentDir("codex"), "memories", "MEMORY.md");
export const qwenProjectsDir = (): string => join(agentDir("qwen"), "projects");
export const qwenUserMemory = (): string => join(agentDir("qwen"), "memories");

/** The `tmp/<id>` folder names Gemini CLI may use for these project directories. */
export function geminiProjectIds(dirs: string[]): string[] {
  const ids = new Set<string>();
  let registry: Record<string, unknown> = {};
  try {
    const doc = JSON.parse(readSmallText(join(geminiDir(), "projects.json"), 1024 * 1024) ?? "{}");
    if (doc && typeof doc.projects === "object" && doc.projects) registry = doc.projects;
  } catch {}
  for (const d of dirs) {
    const id = registry[d];
    if (typeof id === "string" && /^[\w.-]+$/.test(id)) ids.add(id);
    ids.add(sha256(d));
  }
  return [...ids];
}

/**
 * The files and folders that hold one project's native memories for a host: `dirs` are the
 * session's directory and its repository root (Claude and Gemini key projects by directory).
 */
export function projectSources(host: NativeHost, dirs: string[]): string[] {
  const uniq = [...new Set(dirs)];
  switch (host) {
    case "claude":
      return uniq.map((d) => join(claudeProjectsDir(), claudeSlug(d), "memory"));
    case "gemini":
      return [
        join(geminiDir(), "GEMINI.md"),
        ...geminiProjectIds(uniq).map((id) => join(geminiDir(), "tmp", id, "memory")),
      ];
    case "codex":
      return [codexMemoryFile()];
    case "qwen":
      return [qwenUserMemory(), ...uniq.map((d) => join(qwenProjectsDir(), claudeSlug(d), "memory"))];
  }
}

/** Folder names in `dir` (none when it is missing). */
function names(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * Every native memory source on this machine that a full harvest reads (each Claude project's
 * memory folder, Gemini's global file and project folders, Codex's file).
 */
export function allSources(hosts: readonly NativeHost[]): string[] {
  const out: string[] = [];
  if (hosts.includes("claude"))
    out.push(...names(claudeProjectsDir()).map((d) => join(claudeProjectsDir(), d, "memory")));
  if (hosts.includes("gemini")) {
    out.push(join(geminiDir(), "GEMINI.md"));
    out.push(...names(join(geminiDir(), "tmp")).map((d) => join(geminiDir(), "tmp", d, "memory")));
  }
  if (hosts.includes("codex")) out.push(codexMemoryFile());
  if (hosts.includes("qwen")) {
    out.push(qwenUserMemory());
    out.push(...names(qwenProjectsDir()).map((d) => join(qwenProjectsDir(), d, "memory")));
  }
  return out;
}

/**
 * What the sources look like now, from lstat alone: each path's type, size and mtime, and for a
 * folder the same for its `*.md` files and those of `team/` (a missing path is "-"; links are
 * described, never followed), hashed; with the regular files' count and bytes.
 */
export function sourcesSignature(paths: string[]): { sig: string; files: number; bytes: number } {
  const parts: string[] = [];
  let files = 0;
  let bytes = 0;
  const one = (p: string): string => {
    try {
      const st = lstatSync(p);
      if (st.isFile()) {
        files++;
        bytes += st.size;
      }
      return `${st.isSymbolicLink() ? "l" : st.isDirectory() ? "d" : st.isFile() ? "f" : "o"}${st.size}:${st.mtimeMs}`;
    } catch {
      return "-";
    }
  };
  const folder = (dir: string, depth: number) => {
    for (const n of names(dir)) {
      if (n.endsWith(".md")) parts.push(`${n}=${one(join(dir, n))}`);
      else if (n === "team" && depth === 0) folder(join(dir, n), 1);
    }
  };
  for (const p of paths) {
    const kind = one(p);
    parts.push(`${p}=${kind}`);
    if (kind.startsWith("d")) folder(p, 0);
  }
  return { sig: Bun.hash(parts.join("\n")).toString(36), files, bytes };
}
