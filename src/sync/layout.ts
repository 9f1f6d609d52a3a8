/**
 * What of memory/ is synced. The `.gitignore` is an allow-list: everything is ignored except the
 * Markdown files the store writes, so a stray (atomic-write temp, .DS_Store, an editor swap file, a
 * state/ or inbox/ copied in by hand) can never be committed.
 */

export const GITIGNORE = `# Written by coffer sync: only memory content is synced. Everything else
# (temp files, OS and editor litter, anything machine-local) stays on this machine.
*
!*/
!/.gitignore
!/global/rules.md
!/global/entries/*.md
!/projects/*/project.md
!/projects/*/rules.md
!/projects/*/entries/*.md
!/projects/*/handoff/*.md
# Dotfiles (atomic-write temps are .<name>.<pid>.<n>.tmp) and machine-local directories.
.*
!/.gitignore
/state/
/inbox/
/queue/
`;

const SYNCED = [
  /^\.gitignore$/,
  /^global\/rules\.md$/,
  /^global\/entries\/[^./][^/]*\.md$/,
  /^projects\/[^./][^/]*\/(?:project|rules)\.md$/,
  /^projects\/[^./][^/]*\/(?:entries|handoff)\/[^./][^/]*\.md$/,
];

/** True for a path (relative to memory/) that sync may commit. */
export function isSyncedPath(path: string): boolean {
  return SYNCED.some((re) => re.test(path));
}

export type PathKind = "entry" | "rules" | "handoff" | "project" | "gitignore" | "other";

/** The scope a memory/-relative path belongs to (`global` or the project id), if any. */
export function scopeOfPath(path: string): string | undefined {
  if (path.startsWith("global/")) return "global";
  const m = /^projects\/([^/]+)\//.exec(path);
  return m ? m[1] : undefined;
}

export function pathKind(path: string): PathKind {
  if (path === ".gitignore") return "gitignore";
  if (/^(?:global|projects\/[^/]+)\/entries\/[^/]+\.md$/.test(path)) return "entry";
  if (/^(?:global|projects\/[^/]+)\/rules\.md$/.test(path)) return "rules";
  if (/^projects\/[^/]+\/handoff\/[^/]+\.md$/.test(path)) return "handoff";
  if (/^projects\/[^/]+\/project\.md$/.test(path)) return "project";
  return "other";
}

/**
 * Files git itself interprets, wherever they are (the root `.gitignore` is Coffer's): a remote's
 * `.gitattributes` could re-encode or filter every entry, a nested `.gitignore` hide them from sync.
 * Sync deletes them on arrival, from disk too (issue 25).
 */
export const GIT_CONTROL_PATHSPECS = [".gitattributes", ".gitmodules", ".mailmap", ".gitignore"].map(
  (name) => `:(glob)**/${name}`,
);

/** True for a git-interpreted file sync removes (see GIT_CONTROL_PATHSPECS). */
export function isGitControlPath(path: string): boolean {
  if (path === ".gitignore") return false;
  return /(?:^|\/)\.(?:gitattributes|gitmodules|mailmap|gitignore)$/.test(path);
}
