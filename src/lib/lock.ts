import { closeSync, mkdirSync, openSync, statSync, unlinkSync, utimesSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "./atomic";
import { readOwnText } from "./small-file";

/** What a lock file holds: its owner, when it was taken, and whatever the owner noted (`noteInLock`). */
export type LockRecord = { pid?: unknown; at?: unknown; [field: string]: unknown };

export type LockOptions = {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this whose owner is gone is broken. */
  staleMs?: number;
  /** Called with the broken lock's record when a stale lock was broken (its owner may have left other debris). */
  onBreak?: (record: LockRecord) => void;
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

/** Remove the lock when its owner is dead or it is older than `staleMs`; returns the record it held. */
function breakIfStale(file: string, staleMs: number): LockRecord | undefined {
  let raw: string;
  let age: number;
  try {
    raw = readOwnText(file, 64 * 1024);
    age = Date.now() - statSync(file).mtimeMs;
  } catch {
    return undefined; // released meanwhile
  }
  let record: LockRecord = {};
  try {
    record = JSON.parse(raw) ?? {};
  } catch {}
  const pid = Number(record.pid) || 0;
  const ownerGone = pid > 0 ? !alive(pid) : age > 1000; // an empty lock is a writer killed mid-create
  if (!ownerGone && age < staleMs) return undefined;
  try {
    // Only remove the lock we judged: if it changed hands meanwhile, leave it.
    if (readOwnText(file, 64 * 1024) === raw) {
      unlinkSync(file);
      return record;
    }
  } catch {}
  return undefined;
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
  return rewriteLock(file, { pid: to, at: Date.now() });
}

/**
 * Note something in a lock this process holds (`{pid, at}` plus `fields`), for whoever breaks it
 * should this process die holding it. False when the lock is not this process's.
 */
export function noteInLock(file: string, fields: Record<string, unknown>): boolean {
  if (holder(file) !== process.pid) return false;
  return rewriteLock(file, { pid: process.pid, at: Date.now(), ...fields });
}

/** Replace a lock's record atomically (temp + rename): the lock stays held throughout. */
function rewriteLock(file: string, record: LockRecord): boolean {
  try {
    // No fsync: a lock's record lives as long as its owner.
    writeFileAtomic(file, JSON.stringify(record), 0o600, false);
    return true;
  } catch {
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
    const broken = breakIfStale(file, staleMs);
    if (broken) opts.onBreak?.(broken);
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
