import { closeSync, fsync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { renameRetry } from "./platform";

let counter = 0;

/** `rename(from, to)` over an existing file, retried where the OS refuses it briefly (Windows: see `renameRetry`). */
export function renameOver(
  from: string,
  to: string,
  policy = renameRetry(),
  rename: (from: string, to: string) => void = renameSync,
): void {
  for (let attempt = 0; ; attempt++) {
    try {
      rename(from, to);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "";
      if (attempt >= policy.delaysMs.length || !policy.codes.includes(code)) throw err;
      Bun.sleepSync(policy.delaysMs[attempt]!);
    }
  }
}

/**
 * Write a file so that readers see either the old or the new content, never a mix:
 * write a temp file in the same directory, fsync it, rename it over the target. A cache that
 * checks what it reads passes `sync: false` (no fsync).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600, sync = true): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Date.now().toString(36)}${(counter++).toString(36)}.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    const buf = typeof data === "string" ? Buffer.from(data) : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    if (sync) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {}
    throw err;
  }
  closeSync(fd);
  try {
    renameOver(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {}
    throw err;
  }
}

/** True for the temp files `writeFileAtomic` leaves behind only if killed mid-write. */
export function isAtomicTemp(name: string): boolean {
  return name.startsWith(".") && name.endsWith(".tmp");
}

/**
 * Many files at once, each exactly as `writeFileAtomic` would (temp file, fsync, rename), with the
 * fsyncs in flight together: the file system commits them as a group, about ten times faster
 * than one after another for an import of thousands of entries.
 */
export async function writeFilesAtomic(files: { path: string; data: string }[], mode = 0o600): Promise<void> {
  // A window of files at a time keeps open descriptors well under any platform's limit.
  for (let i = 0; i < files.length; i += 128) await writeWindow(files.slice(i, i + 128), mode);
}

async function writeWindow(files: { path: string; data: string }[], mode: number): Promise<void> {
  const open: { fd: number; tmp: string; path: string }[] = [];
  const dirs = new Set<string>();
  try {
    for (const f of files) {
      const dir = dirname(f.path);
      if (!dirs.has(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
      dirs.add(dir);
      const tmp = join(
        dir,
        `.${basename(f.path)}.${process.pid}.${Date.now().toString(36)}${(counter++).toString(36)}.tmp`,
      );
      const fd = openSync(tmp, "wx", mode);
      open.push({ fd, tmp, path: f.path });
      const buf = Buffer.from(f.data);
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    }
    await Promise.all(open.map((o) => new Promise<void>((res, rej) => fsync(o.fd, (err) => (err ? rej(err) : res())))));
    while (open.length) {
      const o = open[0]!;
      closeSync(o.fd);
      o.fd = -1;
      renameOver(o.tmp, o.path);
      open.shift();
    }
  } finally {
    for (const o of open) {
      try {
        if (o.fd >= 0) closeSync(o.fd);
      } catch {}
      try {
        unlinkSync(o.tmp);
      } catch {}
    }
  }
}
