import { closeSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, utimesSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { readOwnText } from "./small-file";

export type LockOptions = {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this whose owner is gone is broken. */
  staleMs?: number;
  /** Called when a stale lock was broken (its owner may have left other debris). */
  onBreak?: () => void;
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function tryAcquire(file: string): boolean {
  try {
    const fd = openSync(file, "wx", 0o600);
    writeSync(fd, JSON.stringify({ pid: process.pid, at: Date.now() }));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/** Remove the lock when its owner is dead or it is older than `staleMs`. */
function breakIfStale(file: string, staleMs: number): boolean {
  let raw: string;
  let age: number;
  try {
    raw = readOwnText(file, 64 * 1024);
    age = Date.now() - statSync(file).mtimeMs;
  } catch {
    return false; // released meanwhile
  }
  let pid = 0;
  try {
    pid = Number(JSON.parse(raw).pid) || 0;
  } catch {}
  const ownerGone = pid > 0 ? !alive(pid) : age > 1000; // an empty lock is a writer killed mid-create
  if (!ownerGone && age < staleMs) return false;
  try {
    // Only remove the lock we judged: if it changed hands meanwhile, leave it.
    if (readOwnText(file, 64 * 1024) === raw) {
      unlinkSync(file);
      return true;
    }
  } catch {}
  return false;
}

export class LockBusyError extends Error {
  constructor(
    readonly file: string,
    readonly holderPid: number | undefined,
    timeoutMs: number,
  ) {
    super(`could not lock ${file} within ${timeoutMs} ms${holderPid ? ` (held by pid ${holderPid})` : ""}`);
    this.name = "LockBusyError";
  }
}

function holder(file: string): number | undefined {
  try {
    return Number(JSON.parse(readOwnText(file, 64 * 1024)).pid) || undefined;
  } catch {
    return undefined;
  }
}

/** The process holding the lock, when there is one and it is alive. */
export function liveHolder(file: string): number | undefined {
  const pid = holder(file);
  return pid !== undefined && alive(pid) ? pid : undefined;
}

/**
 * Give a held lock to another process (one this one started to do the locked work): the lock
 * then names `to`, so it stays held after this process exits. Only while it still names `from`;
 * returns whether it does now name `to`.
 */
export function handOverLock(file: string, from: number, to: number): boolean {
  const pid = holder(file);
  if (pid === to) return true;
  if (pid !== from) return false;
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, "w", 0o600);
    try {
      writeSync(fd, JSON.stringify({ pid: to, at: Date.now() }));
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    return true;
  } catch {
    try {
      unlinkSync(tmp);
    } catch {}
    return false;
  }
}

/** Mark a long-held lock as still in use (its age is what `staleMs` measures). */
export function touchLock(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {}
}

/**
 * Take an exclusive lock file (created with O_EXCL), waiting up to `timeoutMs` (0 = try once).
 * Stale locks — owner process gone, or older than `staleMs` — are broken. Returns the release
 * function; throws LockBusyError when the lock cannot be had in time.
 */
export function acquireLock(file: string, opts: LockOptions = {}): () => void {
  const timeout = opts.timeoutMs ?? 2000;
  const staleMs = opts.staleMs ?? 10_000;
  mkdirSync(dirname(file), { recursive: true });
  const deadline = Date.now() + timeout;
  let wait = 2;
  while (!tryAcquire(file)) {
    if (breakIfStale(file, staleMs)) opts.onBreak?.();
    if (tryAcquire(file)) break;
    if (Date.now() >= deadline) throw new LockBusyError(file, holder(file), timeout);
    Bun.sleepSync(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 25);
  }
  return () => {
    try {
      unlinkSync(file);
    } catch {}
  };
}

/** Run `fn` holding the lock (see acquireLock). */
export function withFileLock<T>(file: string, fn: () => T, opts: LockOptions = {}): T {
  const release = acquireLock(file, opts);
  try {
    return fn();
  } finally {
    release();
  }
}
