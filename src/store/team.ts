/**
 * The team lane's rules of the road (SPEC 10, issue 28): what goes into a repository's `.coffer/`
 * and what is accepted from it.
 *
 * - Written (remember --scope team, promote, edit): nothing personal. No session id, no import
 *   origin, no machine path (the worktree becomes relative, the home folder `~`); the author is
 *   `user` or `agent:<host>`, or the git user name when `team.author = git`.
 * - Read: the files come from other people's commits. They are data: regular files only, never
 *   through a link (indexer.ts: the worktree is the trust root), at most TEAM_FILE_MAX bytes, a
 *   name that is an id, frontmatter within the limits every write path keeps. A file that fails
 *   is named and skipped.
 */
import { chmodSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { envHome, paths } from "../lib/paths";
import { assertRealDirs, pathExists } from "../lib/small-file";
import { userMode } from "../lib/umask";
import { type Entry, KEYWORDS_MAX, keywordsProblem, TITLE_MAX } from "./entry";
import { gitUserName } from "./git-files";
import { isTeamKey, knownTeams, TEAM_FOLDER, type TeamScope } from "./scope";

/** The largest team file read (an entry's body is at most 32,768 characters). */
export const TEAM_FILE_MAX = 256 * 1024;
/** What a team entry's file may be called (its name is its id). */
const TEAM_FILE_ID = /^[0-9A-Za-z_.-]{1,64}$/;
const TEAM_BODY_MAX = 32768;
const TEAM_TAGS_MAX = 32;
const TEAM_GLOBS_MAX = 64;

/** The folders of the user's own entries: global, and every project's (read again after a second). */
let personalDirs: { at: number; dirs: string[] } | undefined;
function personalEntryDirs(): string[] {
  const now = Date.now();
  if (personalDirs && now - personalDirs.at < 1000) return personalDirs.dirs;
  const dirs = [join(paths.globalScope(), "entries")];
  try {
    for (const name of readdirSync(paths.projectsRoot()))
      if (!name.startsWith(".") && !isTeamKey(name)) dirs.push(join(paths.projectScope(name), "entries"));
  } catch {}
  personalDirs = { at: now, dirs };
  return dirs;
}

/**
 * The user's own entry file with this id (global or any project's), if there is one: a team file
 * of that name would make two entries with one id, and the personal one wins (issue 36).
 */
export function personalEntryWithId(id: string): string | undefined {
  for (const dir of personalEntryDirs())
    for (const name of new Set([id, id.toUpperCase()])) {
      const file = join(dir, `${name}.md`);
      if (pathExists(file)) return file;
    }
  return undefined;
}

/**
 * Team files (this worktree's lane and every lane this machine knows) named with one of the
 * user's own ids: skipped on read, the personal entry wins. `coffer doctor` lists them.
 */
export function teamIdCollisions(current?: TeamScope): { file: string; id: string; personal: string }[] {
  const out: { file: string; id: string; personal: string }[] = [];
  const worktrees = new Set([...(current ? [current.worktree] : []), ...knownTeams().map(([, w]) => w)]);
  for (const worktree of worktrees) {
    const dir = join(worktree, TEAM_FOLDER, "entries");
    let names: string[];
    try {
      assertRealDirs(worktree, dir);
      names = readdirSync(dir);
    } catch {
      continue; // no lane there, or one Coffer does not read (a link)
    }
    for (const name of names) {
      if (!name.endsWith(".md") || name.startsWith(".")) continue;
      const id = name.slice(0, -3);
      const personal = personalEntryWithId(id);
      if (personal) out.push({ file: join(dir, name), id, personal });
    }
  }
  return out;
}

/** What is wrong with a team entry read from a repository, or undefined when it is fine. */
export function teamEntryProblem(entry: Entry, name: string): string | undefined {
  if (!TEAM_FILE_ID.test(name)) return "the file name is not an entry id (letters, digits, '_', '.', '-'; 1..64)";
  if (!entry.body.trim()) return "the body is empty";
  if (entry.body.length > TEAM_BODY_MAX)
    return `the body is ${entry.body.length} characters (at most ${TEAM_BODY_MAX})`;
  if (entry.title.length > TITLE_MAX) return `the title is ${entry.title.length} characters (at most ${TITLE_MAX})`;
  if (/[\r\n]/.test(entry.title)) return "the title holds a line break";
  if (entry.tags.length > TEAM_TAGS_MAX) return `${entry.tags.length} tags (at most ${TEAM_TAGS_MAX})`;
  for (const t of entry.tags)
    if (t.length > 64 || /[\n,]/.test(t)) return `invalid tag ${JSON.stringify(t.slice(0, 64))}`;
  if (entry.applies_to.length > TEAM_GLOBS_MAX)
    return `${entry.applies_to.length} applies_to globs (at most ${TEAM_GLOBS_MAX})`;
  for (const g of entry.applies_to)
    if (!g.trim() || g.startsWith("/") || g.includes("..") || g.length > 300)
      return `invalid applies_to glob ${JSON.stringify(g.slice(0, 80))} (relative to the repository root, no "..")`;
  if (entry.keywords && entry.keywords.length > KEYWORDS_MAX) return keywordsProblem(entry.keywords);
  if (personalEntryWithId(name))
    return `it has the id of your own entry ${name} (yours is used; a team file needs an id of its own)`;
  return undefined;
}

/** `path` where it stands alone in a text (not the start of a longer name: `/home/al` in `/home/alice`). */
function pathPattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`${escaped}(?=$|[\\s\\\\"'\`),;:\\]}>|]|\\.(?:\\s|$))`, "g");
}

/** A path as given and as its real path (a home reached through a link is written both ways). */
function pathVariants(p: string): string[] {
  try {
    const real = realpathSync(p);
    return real === p ? [p] : [p, real];
  } catch {
    return [p];
  }
}

/** What removes machine paths from a text: the worktree's become relative to it (`.` alone), the home folder's `~`. */
function machinePathCleaner(team: Pick<TeamScope, "worktree">): (text: string) => string {
  const home = envHome();
  const swaps: [string, string][] = [
    ...pathVariants(team.worktree).map((w): [string, string] => [w, "."]),
    ...(home && home.length > 1 ? pathVariants(home).map((h): [string, string] => [h, "~"]) : []),
  ];
  const patterns = swaps.map(([from, to]) => ({ prefix: from + sep, pattern: pathPattern(from), to }));
  return (text) => {
    let out = text;
    for (const p of patterns)
      out = out
        .split(p.prefix)
        .join(p.to === "." ? "" : `~${sep}`)
        .replace(p.pattern, p.to);
    return out;
  };
}

/** Machine paths in a text: the worktree becomes relative to it, the home folder `~`. */
export function withoutMachinePaths(text: string, team: Pick<TeamScope, "worktree">): string {
  return machinePathCleaner(team)(text);
}

/** Every string of a user's own frontmatter field (keys too, nested lists and maps), without machine paths. */
function fieldWithoutMachinePaths(v: unknown, clean: (s: string) => string, depth = 0): unknown {
  if (typeof v === "string") return clean(v);
  if (depth > 16 || v === null || typeof v !== "object" || v instanceof Date) return v;
  if (Array.isArray(v)) return v.map((x) => fieldWithoutMachinePaths(x, clean, depth + 1));
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).map(([k, x]) => [
      clean(k),
      fieldWithoutMachinePaths(x, clean, depth + 1),
    ]),
  );
}

/**
 * An entry as it may be written into a repository: no session id, no import origin, no machine
 * path in any field (the user's own ones too), and an author that names a person only when `team.author = git`.
 */
export function teamSafeEntry(entry: Entry, team: TeamScope, author: "off" | "git"): Entry {
  const clean = machinePathCleaner(team);
  const named = author === "git" ? gitUserName(team.gitDir, envHome()) : undefined;
  const actor = named ?? (entry.actor === "user" || /^agent:[a-z-]+$/.test(entry.actor) ? entry.actor : "user");
  const { origin_session: _s, imported_from: _i, ...rest } = entry;
  return {
    ...rest,
    title: clean(entry.title),
    body: clean(entry.body),
    tags: entry.tags.map(clean),
    ...(entry.keywords ? { keywords: entry.keywords.map(clean) } : {}),
    applies_to: entry.applies_to.map(clean),
    // the user's own fields (`notes: /home/me/...`) are text like any other (issue 36)
    ...(entry.extra ? { extra: fieldWithoutMachinePaths(entry.extra, clean) as Record<string, unknown> } : {}),
    actor,
  };
}

/** Make `dir` and the folders above it up to the worktree, as the user's own umask would (not Coffer's private one). */
export function makeTeamDirs(dir: string, worktree: string): void {
  if (dir === worktree || !dir.startsWith(worktree + sep)) return;
  try {
    mkdirSync(dir, { mode: userMode(true) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return;
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    makeTeamDirs(dirname(dir), worktree);
    mkdirSync(dir);
  }
  chmodSync(dir, userMode(true));
}

/**
 * Write a file of a team lane (the caller checked no folder on the way is a link): atomically,
 * with the mode a file the user made in the repository would have. Marks the lane present.
 */
export function writeTeamFile(
  team: Pick<TeamScope, "worktree"> & { present?: boolean },
  file: string,
  text: string,
): void {
  makeTeamDirs(dirname(file), team.worktree);
  writeFileAtomic(file, text, userMode(false));
  chmodSync(file, userMode(false));
  team.present = true;
}
