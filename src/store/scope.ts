import { lstatSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { crockford32 } from "../lib/hash";
import { envHome } from "../lib/paths";
import { readSmallText } from "../lib/small-file";

/** A repository scope, resolved from files under `.git` only (never by spawning git). */
export type ProjectScope = {
  id: string;
  /** Absolute path of the main worktree (linked worktrees resolve to it). */
  root: string;
  /** Absolute path of the worktree the cwd is in (differs from `root` in a linked worktree). */
  worktree: string;
  /** Normalized origin URL, when `origin` exists. */
  origin?: string;
  /** Current branch from HEAD; undefined when detached. */
  branch?: string;
  label: string;
  gitDir: string;
};

export type ScopeName = "global" | "project" | "team";
/** How a scope is stored: `global` or the project id. */
export type ScopeKey = string;
export const GLOBAL = "global";

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Git metadata (HEAD, config, commondir, a `.git` file): small regular files only, never a blocking read. */
function readText(p: string): string | undefined {
  return readSmallText(p, 1024 * 1024);
}

/**
 * Normalize a remote URL so clones over https, ssh and scp syntax agree:
 * strip scheme and `user@`, scp `host:path` -> `host/path`, drop `.git`, lowercase.
 */
export function normalizeOrigin(url: string): string {
  let u = url.trim();
  u = u.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  u = u.replace(/^[^@/]*@/, "");
  // scp-like syntax: host:path (no scheme); keep ports like host:22/path as host/path too.
  u = u.replace(/^([^/:]+):(\d+)\//, "$1/");
  u = u.replace(/^([^/:]+):(?!\/)/, "$1/");
  u = u
    .replace(/\/+$/, "")
    .replace(/\.git$/i, "")
    .replace(/\/+$/, "");
  return u.toLowerCase();
}

/** Project id: first 16 bytes of sha256(key) as 26 Crockford base32 chars. */
export function projectIdFor(key: string): string {
  return crockford32(new Bun.CryptoHasher("sha256").update(key).digest().subarray(0, 16));
}

/** Parse `[remote "origin"] url = ...` out of a git config file. */
export function originFromGitConfig(text: string): string | undefined {
  let inOrigin = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      inOrigin = /^\[\s*remote\s+"origin"\s*\]/.test(line);
      continue;
    }
    if (!inOrigin) continue;
    const m = /^url\s*=\s*(.*)$/.exec(line);
    if (m) return m[1]!.replace(/^"(.*)"$/, "$1").trim() || undefined;
  }
  return undefined;
}

/** Walk up from `cwd` to the nearest `.git`; returns undefined outside a repository or at `$HOME`. */
export function findRepoRoot(cwd: string): { worktree: string; dotGit: string } | undefined {
  const env = envHome();
  const home = env ? resolve(env) : undefined;
  let dir = resolve(cwd);
  for (;;) {
    if (dir === home) return undefined; // $HOME is never a project, nor is anything above it
    const dotGit = join(dir, ".git");
    try {
      statSync(dotGit);
      return { worktree: dir, dotGit };
    } catch {}
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Resolve the project scope for `cwd`, or undefined when only `global` applies. */
export function resolveProject(cwd: string): ProjectScope | undefined {
  const found = findRepoRoot(cwd);
  if (!found) return undefined;
  let gitDir = found.dotGit;
  if (!isDir(gitDir)) {
    // A `.git` file: "gitdir: <path>" (linked worktree or submodule).
    const m = /^gitdir:\s*(.+)$/m.exec(readText(gitDir) ?? "");
    if (!m) return undefined;
    gitDir = resolve(found.worktree, m[1]!.trim());
    if (!isDir(gitDir)) return undefined;
  }
  // A linked worktree's gitdir has `commondir` pointing at the main repository's .git.
  let commonDir = gitDir;
  const common = readText(join(gitDir, "commondir"))?.trim();
  if (common) commonDir = resolve(gitDir, common);
  const root = basename(commonDir) === ".git" ? dirname(commonDir) : found.worktree;
  const home = envHome();
  if (home && root === resolve(home)) return undefined;

  const originRaw = originFromGitConfig(readText(join(commonDir, "config")) ?? "");
  const origin = originRaw ? normalizeOrigin(originRaw) : undefined;
  const key = origin ? `remote:${origin}` : `path:${root}`;
  const head = readText(join(gitDir, "HEAD"))?.trim() ?? "";
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
  return {
    id: projectIdFor(key),
    root,
    worktree: found.worktree,
    origin,
    branch: ref ? ref[1] : undefined,
    label: origin ? origin.split("/").pop() || basename(root) : basename(root),
    gitDir,
  };
}

// ---------------------------------------------------------------------------------------------
// The team lane: `<worktree>/.coffer/` (entries/, rules.md), committed with the code.

/** The folder at a worktree's root that holds the team lane. */
export const TEAM_FOLDER = ".coffer";

/**
 * A worktree's team lane, read as scope `team`. Each worktree (and so each checked-out branch)
 * has its own: the key is derived from the worktree's path, so two worktrees of one repository
 * never share rows in the index.
 */
export type TeamScope = {
  /** `team` + 26 Crockford characters (one FTS token, never a project id's length). */
  key: ScopeKey;
  /** The worktree whose `.coffer/` this is: the trust root no read or write goes above. */
  worktree: string;
  /** `<worktree>/.coffer` */
  dir: string;
  /** The repository's name, for people. */
  label: string;
  /** The worktree's git dir (its index file tells what is not committed yet). */
  gitDir: string;
  /** `.coffer/` is a real directory here now (not missing, not a link). */
  present: boolean;
};

const TEAM_KEY = /^team[0-9A-Z]{26}$/;

/** Whether a scope key names a team lane. */
export function isTeamKey(key: string): boolean {
  return TEAM_KEY.test(key);
}

/** The team key of a worktree (absolute path). */
export function teamKeyFor(worktree: string): ScopeKey {
  return `team${projectIdFor(`team:${worktree}`)}`;
}

/** Team keys this process knows, with their worktree (a scope key alone cannot say where its files are). */
const teamWorktrees = new Map<ScopeKey, string>();

/** Make a team key resolvable to its folder (openStore does it for the cwd's worktree and the index's known ones). */
export function registerTeam(key: ScopeKey, worktree: string): void {
  if (isTeamKey(key)) teamWorktrees.set(key, worktree);
}

/** The worktree of a known team key, or undefined. */
export function teamWorktree(key: ScopeKey): string | undefined {
  return teamWorktrees.get(key);
}

/** Every team key this process knows, with its worktree. */
export function knownTeams(): [ScopeKey, string][] {
  return [...teamWorktrees];
}

/** The team lane of a project's worktree (registered, so its key resolves to `.coffer/`). */
export function teamScopeOf(project: ProjectScope): TeamScope {
  const key = teamKeyFor(project.worktree);
  registerTeam(key, project.worktree);
  const dir = join(project.worktree, TEAM_FOLDER);
  let present = false;
  try {
    present = lstatSync(dir).isDirectory();
  } catch {}
  return { key, worktree: project.worktree, dir, label: project.label, gitDir: project.gitDir, present };
}

/** True when `p` is an absolute path to an existing directory (hook and MCP cwd checks). */
export function isAbsoluteDir(p: string | undefined): p is string {
  return typeof p === "string" && isAbsolute(p) && isDir(p);
}
