/**
 * Applying planned config changes safely: every file is read and planned before any is
 * written; each write keeps a backup of the previous bytes (see `backupPath`), goes through
 * temp + rename, keeps the file's mode, and follows a symlinked config to its real file (so a
 * dotfiles checkout stays a symlink). A file that changed between planning and writing is not
 * touched; a read-only one only with --force. Configs are read as bytes and must be UTF-8:
 * Coffer never rewrites bytes it cannot decode.
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import type { AuditEvent } from "../lib/audit";
import { CofferError } from "../lib/errors";
import { envHome } from "../lib/paths";
import { userMode } from "../lib/umask";
import { audit } from "../scrub/write";
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
  /** Where the previous bytes were saved (set when written). */
  backup?: string;
};

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A hash of the bytes each config had when it was read (to tell, before writing, whether it changed since). */
const readHashes = new Map<string, string>();

/** sha256 of a file's bytes, read in pieces (a big config is never held twice). */
function hashFile(path: string): string {
  const h = new Bun.CryptoHasher("sha256");
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return h.digest("hex");
}

/** The text of a config file, or null when it is missing. Bytes that are not UTF-8 are refused, never replaced. */
export function readTextOrNull(path: string): string | null {
  if (!existsSync(path)) return null;
  const st = statSync(path);
  if (!st.isFile())
    throw new CofferError(
      `${path} is not a regular file; left it untouched`,
      1,
      "Move it away, then run the command again.",
    );
  const bytes = readFileSync(path);
  readHashes.set(path, new Bun.CryptoHasher("sha256").update(bytes).digest("hex"));
  try {
    return utf8.decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    let line = 1;
    for (let i = 0; i < at; i++) if (bytes[i] === 10) line++;
    throw new CofferError(
      `${tilde(path)}:${line}: not valid UTF-8 (byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, "0")} at offset ${at}); left it untouched`,
      1,
      "Coffer edits only UTF-8 files and never rewrites bytes it cannot read: save the file as UTF-8, then run the command again.",
    );
  }
}

/** Offset of the first byte that does not start a valid UTF-8 sequence (bytes.length when all are valid). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (n === 0 || i + n > bytes.length) return i;
    try {
      utf8.decode(bytes.subarray(i, i + n));
    } catch {
      return i;
    }
    i += n;
  }
  return bytes.length;
}

/**
 * The backup file for `path`. The one place backup names are chosen: `<file>.bak` when it is
 * free or Coffer wrote it (recorded in `mine`), else the first free `<file>.bak.1`, `.bak.2`, ...:
 * a backup the user made is never overwritten.
 */
export function backupPath(path: string, mine: string | undefined): string {
  const base = `${path}.bak`;
  if (mine && (mine === base || mine.startsWith(`${base}.`)) && !isNotOurs(mine)) return mine;
  if (!existsSync(base)) return base;
  for (let i = 1; ; i++) {
    const p = `${base}.${i}`;
    if (!existsSync(p)) return p;
  }
}

/** A recorded backup that is no longer a regular file is not reused. */
function isNotOurs(p: string): boolean {
  try {
    return !lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/** True when the file still holds what planning read (bytes compared by hash: no second copy as text). */
function unchangedSince(c: FileChange): boolean {
  const hash = readHashes.get(c.path);
  if (hash === undefined || c.before === null) return readTextOrNull(c.path) === c.before;
  try {
    return hashFile(c.path) === hash;
  } catch {
    return false;
  }
}

/** The backup: a copy of the file's bytes (temp + rename, so a reader sees the old backup or the new one). */
function writeBackup(from: string, bak: string, mode: number): void {
  const tmp = `${bak}.${process.pid}.tmp`;
  copyFileSync(from, tmp);
  chmodSync(tmp, mode);
  renameSync(tmp, bak);
}

const BIG = 8 * 1024 * 1024;

/** Create a config's missing folders with the user's usual mode (not Coffer's private one); returns those it made. */
function makeDirs(dir: string): string[] {
  if (existsSync(dir)) return [];
  const made = makeDirs(dirname(dir));
  mkdirSync(dir);
  chmodSync(dir, userMode(true));
  return [...made, dir];
}

/** Remove folders Coffer created once they are empty again (a repository is left as it was). */
function removeEmptyDirs(dir: string, dirs: Record<string, true>): void {
  while (dirs[dir]) {
    try {
      if (readdirSync(dir).length) return;
      rmdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return;
    }
    delete dirs[dir];
    dir = dirname(dir);
  }
}

function isReadOnly(mode: number): boolean {
  return (mode & 0o222) === 0;
}

/** `~/...` for paths under $HOME, for messages. */
export function tilde(path: string): string {
  const home = envHome() || homedir();
  return path === home ? "~" : path.startsWith(`${home}${sep}`) ? `~${path.slice(home.length)}` : path;
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

/** Where `path` really is: its nearest existing folder resolved through every link, plus the rest. */
function realLocation(path: string): string {
  let dir = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch {
      const up = dirname(dir);
      if (up === dir) return path;
      rest.unshift(basename(dir));
      dir = up;
    }
  }
}

/** `path` (and whatever link it is or goes through) stays inside `root`; throws naming where it leads. */
function assertInside(path: string, root: string): void {
  const real = realLocation(path);
  const rel = relative(realLocation(root), real);
  if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))) return;
  throw new CofferError(
    `${tilde(path)} leads outside the repository (to ${tilde(real)}) through a symbolic link; nothing was written`,
    1,
    "Coffer does not write through links in a repository: replace the link with a real file (or folder), or link without --project.",
  );
}

function realTarget(path: string): string {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

/**
 * Write every changed file (the previous bytes saved as its backup), then append the audit
 * records. `backups` maps a config to the backup Coffer wrote for it (kept in the link state);
 * it is updated here. A read-only file is refused unless `force`.
 */
export function applyChanges(
  changes: FileChange[],
  opts: {
    force?: boolean;
    backups?: Record<string, string>;
    /** Files Coffer created (their backups would only hold Coffer's own text). */
    created?: Record<string, true>;
    /** Folders Coffer created for its files (removed again once empty). */
    dirs?: Record<string, true>;
    /** Keep no backups (unlink in a repository: git holds the history, and no untracked file stays). */
    noBackups?: boolean;
    /**
     * A repository (link --project): every file written must really be inside it. A config or
     * folder there that is a symbolic link to somewhere else (committed by anyone) is refused.
     */
    confine?: string;
  } = {},
): void {
  const todo = changes.filter(changed);
  const backups = opts.backups ?? {};
  const created = opts.created ?? {};
  const dirs = opts.dirs ?? {};
  // Planning a big config (a 40 MB ~/.claude.json) leaves its garbage behind: collect it before writing.
  if (todo.some((c) => (c.before?.length ?? 0) > BIG)) Bun.gc(true);
  // Nothing may have moved under us since planning (agents rewrite their own configs).
  for (const c of todo) {
    if (opts.confine) assertInside(c.path, opts.confine);
    if (!unchangedSince(c)) {
      throw new CofferError(
        `${tilde(c.path)} changed while Coffer was editing it; nothing was written`,
        1,
        "Run the command again.",
      );
    }
    if (c.before !== null && !opts.force) {
      const mode = statSync(realTarget(c.path)).mode & 0o777;
      if (isReadOnly(mode))
        throw new CofferError(
          `${tilde(c.path)} is read-only (mode ${mode.toString(8)}); nothing was written`,
          1,
          `Someone made it read-only on purpose: make it writable (chmod u+w ${tilde(c.path)}), or run the command again with --force to write it anyway (its mode stays ${mode.toString(8)}).`,
        );
    }
  }
  for (const c of todo) {
    const target = realTarget(c.path);
    const mode = c.before !== null ? statSync(target).mode & 0o777 : userMode(false);
    if (c.before === null) for (const d of makeDirs(dirname(target))) dirs[d] = true;
    // One backup per file Coffer changed; none for a file Coffer created (or deletes: only its own files).
    const own = c.after === null || created[c.path] === true || opts.noBackups === true;
    if (c.before !== null && !own) {
      const bak = backupPath(c.path, backups[c.path]);
      writeBackup(target, bak, mode);
      backups[c.path] = bak;
      c.backup = bak;
    } else if (own && backups[c.path]) {
      rmSync(backups[c.path]!, { force: true });
      delete backups[c.path];
    }
    if (c.after === null) {
      unlinkSync(target);
      removeEmptyDirs(dirname(c.path), dirs);
    } else {
      writeFileAtomic(target, c.after, mode);
      chmodSync(target, mode);
    }
    for (const rec of c.audit) audit({ actor: "user", file: tilde(c.path), ...rec });
  }
}
