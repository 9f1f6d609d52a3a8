/**
 * Everything Coffer creates is private to its user: the process starts with umask 077 (cli.ts),
 * which also covers SQLite and git. Apart from lib/permissions.ts, which checks and tightens
 * existing files: this runs at the start of every process, so it loads nothing (not even node:fs).
 */

/** The umask the process started with (what the user's own files get). */
let startUmask = 0o022;

/** New files and folders get no group or other permissions (a no-op on Windows). */
export function privateUmask(): void {
  try {
    startUmask = process.umask(0o077);
  } catch {}
}

/**
 * The mode a new file or folder outside COFFER_HOME should get (an agent's config Coffer creates,
 * a `--project` file in a repository): what the user's own umask gives, not Coffer's private one.
 */
export function userMode(dir: boolean): number {
  return (dir ? 0o777 : 0o666) & ~startUmask;
}
