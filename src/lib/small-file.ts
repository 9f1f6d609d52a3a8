/**
 * Reading a file that should be small and regular (git metadata: HEAD, config, refs, index)
 * without trusting it to be: the open never blocks (a FIFO), anything but a regular file after
 * following symlinks (`/dev/zero`, a FIFO, a directory) gives undefined, and no more than `max`
 * bytes are read. Never throws.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** The bytes of a regular file, at most `max` of them (a longer file gives undefined), or undefined. */
export function readRegularFile(path: string, max: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return undefined;
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n <= 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined)
      try {
        closeSync(fd);
      } catch {}
  }
}

/** `readRegularFile` as UTF-8 text. */
export function readSmallText(path: string, max = 1024 * 1024): string | undefined {
  return readRegularFile(path, max)?.toString("utf8");
}
