/**
 * One sync at a time per COFFER_HOME (a CLI sync and serve's auto sync must not interleave).
 * The lock also names the git child the sync is waiting on: a `kill -9` of coffer leaves that
 * git running (orphans outlive their parent), so the next sync stops it before it touches
 * memory/.git — two gits in one repository step on each other's index.lock and rebase state.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CofferError } from "../lib/errors";
import { acquireLock, LockBusyError, type LockRecord, noteInLock } from "../lib/lock";
import { paths } from "../lib/paths";
import { findGit } from "./git";

export type SyncLock = {
  release: () => void;
  /** The lock was left by a sync that died: its debris (git's index.lock, a half rebase) may remain. */
  brokeStale: boolean;
  /** The pid of that sync's git, still running, which was waited for or stopped. */
  orphan?: number;
  /** Note the git child now running (undefined once it exited). */
  child: (pid: number | undefined) => void;
};

/** An orphan older than this is not the dead sync's git any more (its pid may be someone else's). */
const ORPHAN_MAX_AGE_MS = 15 * 60_000;

/**
 * Take the sync lock or fail at once naming the holder; a lock whose process is gone is broken
 * (after its git, if that still runs, has ended: `coffer serve` goes on serving meanwhile).
 */
export async function acquireSyncLock(): Promise<SyncLock> {
  const file = join(paths.state(), "sync.lock");
  let broken: LockRecord | undefined;
  let release: () => void;
  try {
    // A sync can run for minutes: only a dead owner makes its lock stale.
    release = acquireLock(file, {
      timeoutMs: 0,
      staleMs: Number.MAX_SAFE_INTEGER,
      onBreak: (record) => (broken = record),
    });
  } catch (err) {
    if (!(err instanceof LockBusyError)) throw err;
    throw new CofferError(
      `another coffer sync is running${err.holderPid ? ` (pid ${err.holderPid})` : ""}`,
      1,
      "Wait for it to finish and run the command again.",
    );
  }
  const orphan = broken ? await stopOrphan(broken) : undefined;
  return {
    release,
    brokeStale: broken !== undefined,
    orphan,
    child: (pid) => noteInLock(file, pid === undefined ? {} : { git: pid, exe: findGit() }),
  };
}

/**
 * The dead sync's git, when it still runs: a moment to finish on its own, then SIGTERM (git removes
 * its lock files), then SIGKILL. Returns its pid when there was one.
 */
async function stopOrphan(record: LockRecord): Promise<number | undefined> {
  const pid = Number(record.git) || 0;
  if (pid <= 0 || !(Date.now() - Number(record.at) < ORPHAN_MAX_AGE_MS) || !runs(pid, String(record.exe)))
    return undefined;
  if (await exits(pid, 1000)) return pid;
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return pid; // gone
    }
    if (await exits(pid, 3000)) return pid;
  }
  return pid;
}

/** Whether `pid` runs `exe` (Linux names its arguments in /proc; elsewhere the age check above is the guard). */
function runs(pid: number, exe: string): boolean {
  if (!running(pid)) return false;
  try {
    // argv[0], or argv[1] when `exe` is a script its interpreter runs
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").slice(0, 2).includes(exe);
  } catch {
    return process.platform !== "linux";
  }
}

/** Alive and not a zombie (an exited orphan whose reaper has not come by yet). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

/** Wait up to `ms` for `pid` to exit; true when it did. */
async function exits(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (running(pid)) {
    if (Date.now() >= deadline) return false;
    await Bun.sleep(20);
  }
  return true;
}
