/**
 * Reading a file that should be small and regular (git metadata: HEAD, config, refs, index)
 * without trusting it to be: the open never blocks (a FIFO), anything but a regular file after
 * following symlinks (`/dev/zero`, a FIFO, a directory) gives undefined, and no more than `max`
 * bytes are read. Never throws.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";

/** The bytes of a regular file, at most `max` of them (a longer file gives undefined), or undefined. */
export function readRegularFile(path: string, max: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return undefined;
    return readUpTo(fd, st.size);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined)
      try {
        closeSync(fd);
      } catch {}
  }
}

/** Up to `size` bytes from the start of `fd` (fewer if the file shrank meanwhile). */
function readUpTo(fd: number, size: number): Buffer {
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, off);
    if (n <= 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

/** `readRegularFile` as UTF-8 text. */
export function readSmallText(path: string, max = 1024 * 1024): string | undefined {
  return readRegularFile(path, max)?.toString("utf8");
}

/** Why `readFileNoFollow` refused a file. */
export type RefusedFile = "symlink" | "not-regular" | "too-large" | "hard-link";

/** Thrown by `readFileNoFollow` for a file that exists but must not be read. */
export class RefusedFileError extends Error {
  readonly code = "EREFUSED";
  constructor(
    readonly path: string,
    readonly reason: RefusedFile,
    readonly max?: number,
  ) {
    super(
      reason === "symlink"
        ? `${path} is a symbolic link; Coffer never follows links inside its store`
        : reason === "not-regular"
          ? `${path} is not a regular file`
          : reason === "hard-link"
            ? `${path} has another hard link (it may be a file from elsewhere)`
            : `${path} is over ${max} bytes`,
    );
    this.name = "RefusedFileError";
  }
}

/**
 * The bytes of a file inside Coffer's store, never through a symbolic link: the last component is
 * opened with O_NOFOLLOW (lstat where the platform has none), every directory between `root` and
 * the file must be a real directory, the open never blocks, and only a regular file of at most
 * `max` bytes is read (with `singleLink`, only one with no other hard link, as transcripts). A
 * missing file throws the usual ENOENT; anything refused throws `RefusedFileError`. Returns the
 * bytes and the file's size and mtime.
 */
export function readFileNoFollow(
  path: string,
  max: number,
  root?: string,
  opts: { singleLink?: boolean } = {},
): { buf: Buffer; size: number; mtimeMs: number } {
  if (root) assertRealDirs(root, dirname(path));
  const nofollow = constants.O_NOFOLLOW;
  if (!nofollow && lstatSync(path).isSymbolicLink()) throw new RefusedFileError(path, "symlink");
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (nofollow ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK") throw new RefusedFileError(path, "symlink");
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RefusedFileError(path, "not-regular");
    if (opts.singleLink && st.nlink > 1) throw new RefusedFileError(path, "hard-link");
    if (st.size > max) throw new RefusedFileError(path, "too-large", max);
    return { buf: readUpTo(fd, st.size), size: st.size, mtimeMs: st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/**
 * A file Coffer owns (memory/, state/, inbox/, queue/) as UTF-8 text, read like `readFileNoFollow`:
 * never through a link, never a FIFO or device (the open never blocks), at most `max` bytes.
 * Throws like readFileSync (ENOENT) or `RefusedFileError`.
 */
export function readOwnText(path: string, max = 16 * 1024 * 1024): string {
  return readFileNoFollow(path, max).buf.toString("utf8");
}

/** Every directory from below `root` down to `dir` is a real directory, not a link (throws otherwise). */
export function assertRealDirs(root: string, dir: string): void {
  const rel = relative(root, dir);
  if (!rel || rel.startsWith("..") || isAbsolute(rel)) return;
  let cur = root;
  for (const part of rel.split(sep)) {
    cur = join(cur, part);
    const st = lstatSync(cur); // ENOENT propagates: nothing there to read
    if (st.isSymbolicLink()) throw new RefusedFileError(cur, "symlink");
    if (!st.isDirectory()) throw new RefusedFileError(cur, "not-regular");
  }
}

/** True when anything is at `path` (lstat: a link counts, even a dangling one; it is never followed). */
export function pathExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** True when `path` is a real directory (not a link to one). */
export function isRealDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
