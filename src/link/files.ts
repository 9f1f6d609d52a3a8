/**
 * Applying planned config changes safely: every file is read and planned before any is
 * written; each write keeps `<file>.bak` of the previous bytes, goes through temp + rename,
 * keeps the file's mode, and follows a symlinked config to its real file (so a dotfiles
 * checkout stays a symlink). A file that changed between planning and writing is not touched.
 */
import { chmodSync, existsSync, lstatSync, readFileSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { writeFileAtomic } from "../lib/atomic";
import { type AuditEvent, audit } from "../lib/audit";
import { CofferError } from "../lib/errors";
import { homeDir } from "../lib/paths";
import { unifiedDiff } from "./diff";

export type FileChange = {
  path: string;
  /** Bytes on disk when planned (null: the file does not exist). */
  before: string | null;
  /** Bytes to write (null: delete the file). */
  after: string | null;
  /** What changed, one short phrase each (for the summary). */
  notes: string[];
  audit: AuditEvent[];
};

export function readTextOrNull(path: string): string | null {
  if (!existsSync(path)) return null;
  const st = statSync(path);
  if (!st.isFile())
    throw new CofferError(
      `${path} is not a regular file; left it untouched`,
      1,
      "Move it away, then run the command again.",
    );
  return readFileSync(path, "utf8");
}

/** `~/...` for paths under $HOME, for messages. */
export function tilde(path: string): string {
  const home = homeDir() || homedir();
  return path === home ? "~" : path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

export function changed(c: FileChange): boolean {
  return c.before !== c.after;
}

/** The unified diff of every change (for --dry-run). */
export function diffChanges(changes: FileChange[]): string {
  return changes
    .filter(changed)
    .map((c) => unifiedDiff(c.before, c.after, tilde(c.path)))
    .join("");
}

function realTarget(path: string): string {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

/** Write every changed file (with `.bak`), then append the audit records. */
export function applyChanges(changes: FileChange[]): void {
  const todo = changes.filter(changed);
  // Nothing may have moved under us since planning (agents rewrite their own configs).
  for (const c of todo) {
    const now = readTextOrNull(c.path);
    if (now !== c.before) {
      throw new CofferError(
        `${tilde(c.path)} changed while Coffer was editing it; nothing was written`,
        1,
        "Run the command again.",
      );
    }
  }
  for (const c of todo) {
    const target = realTarget(c.path);
    const mode = c.before !== null ? statSync(target).mode & 0o777 : 0o644;
    if (c.before !== null) {
      writeFileAtomic(`${c.path}.bak`, c.before, mode);
      chmodSync(`${c.path}.bak`, mode);
    }
    if (c.after === null) unlinkSync(target);
    else {
      writeFileAtomic(target, c.after, mode);
      chmodSync(target, mode);
    }
    for (const rec of c.audit) audit({ actor: "user", file: tilde(c.path), ...rec });
  }
}
