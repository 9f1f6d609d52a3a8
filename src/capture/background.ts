/**
 * The sweep with no daemon (issue 23): a session-start hook, after its answer is out, starts
 * `coffer distill sweep --background` when one is due, detached, its output to `state/sweep.log`.
 * Due means: the sweep is not turned off (`distill.sweep = false`, `model.provider = "none"`), a
 * model can be named from what is on disk (an API in config.toml, or an agent CLI at the path
 * `coffer link` recorded: no PATH search here), the last sweep started more than
 * `distill.sweep_interval_minutes` ago (`state/sweep.json`; doubled per sweep in a row that ended
 * with errors, at most 8 times), and no sweep holds `state/sweep.lock`.
 *
 * Every sweep (this background one, `coffer serve`'s worker, `coffer distill sweep`) holds the lock
 * while it runs and records itself in `state/sweep.json`, so only one runs at a time and a hook
 * within the interval of any of them starts nothing. The hook takes the lock before it records
 * the start and spawns, and hands it to the child (`handOverLock`): of two hooks at once, one
 * starts a sweep. This module is on the hook path: files only, and `Bun.spawn` only when due.
 *
 * The sweep runs in Coffer's own folder with an environment built for it (issue 36), not in the
 * session's repository with the agent's: no host's in-session variables (`shellEnv`: the CLIs it
 * runs would see them), and a PATH of absolute folders outside that repository, so nothing it
 * resolves comes from a cloned checkout.
 */
import { closeSync, existsSync, openSync, unlinkSync } from "node:fs";
import { delimiter, resolve } from "node:path";
import type { Config } from "../config/config";
import { isExecutable, readLinkedRecords, searchPath, withPath } from "../hosts/agent-clis";
import { shellEnv } from "../hosts/session-env";
import { writeFileAtomic } from "../lib/atomic";
import { CLI_PROVIDER_HOST } from "../lib/hosts";
import { acquireLock, handOverLock, LockBusyError, liveHolder, touchLock } from "../lib/lock";
import { cofferHome, paths } from "../lib/paths";
import { selfCommand } from "../lib/platform";
import { readOwnText } from "../lib/small-file";
import { agoText } from "../lib/time";
import { findRepoRoot } from "../store";

/** Who started a sweep. */
export type SweepVia = "session-start" | "serve" | "manual";

/** What a finished sweep did (counts; errors are one line each, never content). */
export type SweepResult = {
  harvested: number;
  observed: number;
  distilled: number;
  skipped: number;
  errors: string[];
  /** Stopped at the daily token budget. */
  over_budget?: boolean;
  /** Waiting after the model failed, until then. */
  backoff_until?: string;
  /** Why nothing was distilled when no model was available or the sweep is off. */
  not_distilling?: string;
};

/** `state/sweep.json`: the last sweep. */
export type SweepRecord = {
  version: 1;
  started: string;
  via: SweepVia;
  pid: number;
  finished?: string;
  result?: SweepResult;
  /** Sweeps in a row that ended with errors, this one included once it finished: the interval doubles per one. */
  failures?: number;
};

/** The environment variable that tells a background sweep which hook holds the lock for it. */
export const HANDOFF_ENV = "COFFER_SWEEP_HANDOFF";

/**
 * A lock older than this is broken even when its pid looks alive (a reused pid). Sweeps touch it
 * before each session, and one session's model call is bounded by model.timeout_ms (at most 10 min).
 */
const SWEEP_LOCK_STALE_MS = 2 * 3_600_000;

function readSweepRecord(): SweepRecord | undefined {
  try {
    const r = JSON.parse(readOwnText(paths.sweepRecord(), 64 * 1024)) as SweepRecord;
    if (!r || typeof r !== "object" || typeof r.started !== "string" || typeof r.via !== "string") return undefined;
    return r;
  } catch {
    return undefined;
  }
}

function writeSweepRecord(r: SweepRecord): void {
  writeFileAtomic(paths.sweepRecord(), `${JSON.stringify(r, null, 2)}\n`, 0o600);
}

/** Why the sweep does not run in the background although a model may be there: the user turned it off. */
export function sweepOffReason(config: Config): string | undefined {
  if (config["model.provider"] === "none") return "model.provider = none";
  if (config["distill.sweep"] === false) return "distill.sweep = false";
  return undefined;
}

/**
 * Whether a model can be named from config.toml and the record `coffer link` wrote, without
 * searching PATH: an API with a model, or a recorded agent CLI that is still an executable file.
 */
function modelOnDisk(config: Config): boolean {
  const provider = config["model.provider"];
  if (provider === "none") return false;
  if (provider === "openai" || provider === "anthropic") return Boolean(config["model.model"]);
  const host = provider ? CLI_PROVIDER_HOST[provider] : undefined;
  const records = readLinkedRecords() ?? [];
  // A CLI provider the user named but never linked: the sweep looks for it (PATH) and says so.
  if (host && !records.some((r) => r.host === host)) return true;
  return records.some((r) => (host === undefined || r.host === host) && r.path !== null && isExecutable(r.path));
}

/** How long after this sweep started the next may: the interval, doubled per failed sweep in a row (at most 8 times). */
function waitMinutes(record: SweepRecord, config: Config): number {
  return config["distill.sweep_interval_minutes"] * 2 ** Math.min(record.failures ?? 0, 3);
}

/** Undefined when the last sweep started longer ago than the interval, else why it is too soon. */
function tooSoon(record: SweepRecord | undefined, config: Config, now: number): string | undefined {
  if (!record) return undefined;
  const started = Date.parse(record.started);
  const minutes = waitMinutes(record, config);
  const interval = minutes * 60_000;
  // A start in the future (a clock set back) does not hold the sweep off for longer than one interval.
  if (Number.isNaN(started) || started > now + interval || now - started >= interval) return undefined;
  return `the last sweep started ${Math.max(0, Math.round((now - started) / 60_000))} min ago (${record.failures ? `after ${record.failures} failed in a row, waits ${minutes} min` : `distill.sweep_interval_minutes = ${minutes}`})`;
}

/** Undefined when a background sweep is due now, else why not (cheapest checks first). */
function sweepNotDue(config: Config, now: number): string | undefined {
  const off = sweepOffReason(config);
  if (off) return `off (${off})`;
  const soon = tooSoon(readSweepRecord(), config, now);
  if (soon) return soon;
  if (!modelOnDisk(config)) return "no model (no [model] in config.toml, no linked agent CLI recorded)";
  const pid = liveHolder(paths.sweepLock());
  if (pid) return `a sweep is running (pid ${pid})`;
  return undefined;
}

/**
 * What the sweep starts with: Coffer's folder as cwd (COFFER_HOME made absolute, should it be
 * relative to the session's folder), and the hook's environment as a person's shell would have it,
 * with a PATH without relative folders nor folders inside the session's repository (`cwd`, the
 * hook's own).
 */
function sweepSpawnContext(cwd: string): { cwd: string; env: Record<string, string> } {
  const home = resolve(cofferHome());
  const env = shellEnv(process.env);
  const repos = [findRepoRoot(cwd)?.worktree, findRepoRoot(process.cwd())?.worktree];
  withPath(env, searchPath(process.env.PATH, repos).join(delimiter));
  return { cwd: home, env: { ...env, COFFER_HOME: home, [HANDOFF_ENV]: String(process.pid) } };
}

/**
 * Start a background sweep when one is due; never waits for it. Returns the child's pid, or why
 * nothing was started. Throws only when the spawn itself failed (recorded as a failed sweep, so the
 * next hooks wait before they try again).
 */
export function startBackgroundSweep(config: Config, opts: { cwd: string; now?: number }): number | string {
  const now = opts.now ?? Date.now();
  const why = sweepNotDue(config, now);
  if (why) return why;
  const lock = paths.sweepLock();
  let release: () => void;
  try {
    release = acquireLock(lock, { timeoutMs: 0, staleMs: SWEEP_LOCK_STALE_MS });
  } catch {
    return "a sweep is running";
  }
  // Another hook may have started a sweep (which already finished) between the check and the lock.
  const prev = readSweepRecord();
  const again = tooSoon(prev, config, now);
  if (again) {
    release();
    return again;
  }
  const record: SweepRecord = {
    version: 1,
    started: new Date(now).toISOString(),
    via: "session-start",
    pid: process.pid,
    ...(prev?.failures ? { failures: prev.failures } : {}),
  };
  let log: number | undefined;
  try {
    writeSweepRecord(record);
    // The child's own output (a crash's stack) goes to the sweep log; the host's pipes are never
    // inherited, so the host never waits for the sweep.
    log = openSync(paths.sweepLog(), "a", 0o600);
    const child = Bun.spawn([...selfCommand(), "distill", "sweep", "--background"], {
      ...sweepSpawnContext(opts.cwd),
      stdio: ["ignore", log, log],
      detached: true,
    });
    child.unref();
    // From now on the lock names the sweep: it stays held after this hook exits (the sweep takes
    // it over itself too, should this write fail).
    handOverLock(lock, process.pid, child.pid);
    return child.pid;
  } catch (err) {
    release();
    const message = `could not start: ${(err as Error)?.message ?? String(err)}`;
    try {
      writeSweepRecord({
        ...record,
        finished: new Date().toISOString(),
        result: { harvested: 0, observed: 0, distilled: 0, skipped: 0, errors: [message] },
        failures: (record.failures ?? 0) + 1,
      });
    } catch {}
    throw new Error(message);
  } finally {
    if (log !== undefined) closeSync(log);
  }
}

/** A sweep running in this process: it holds the lock until `release`. */
export type SweepHold = {
  record: SweepRecord;
  /** Before each session: the lock is still in use; false when COFFER_HOME is gone (stop, write nothing). */
  keepGoing: () => boolean;
  /** Record what the sweep did (unless COFFER_HOME is gone) and let the lock go. */
  release: (result?: SweepResult) => void;
};

/**
 * Take the sweep lock for a sweep about to run in this process and record its start, or say which
 * process holds it (`busy`). A background sweep a hook started takes over the lock the hook took
 * for it (`handoff`: the hook's pid), keeping the start the hook recorded.
 */
export function holdSweep(via: SweepVia, handoff?: number): SweepHold | { busy: number | undefined } | { gone: true } {
  // A store removed meanwhile (a test's sandbox): never create it again.
  if (!existsSync(cofferHome())) return { gone: true };
  const lock = paths.sweepLock();
  if (handoff) {
    if (!handOverLock(lock, handoff, process.pid)) return { busy: liveHolder(lock) };
  } else {
    try {
      acquireLock(lock, { timeoutMs: 0, staleMs: SWEEP_LOCK_STALE_MS });
    } catch (err) {
      if (err instanceof LockBusyError) return { busy: err.holderPid };
      throw err;
    }
  }
  const prev = readSweepRecord();
  const record: SweepRecord =
    handoff && prev && (prev.pid === handoff || prev.pid === process.pid) && !prev.finished
      ? { ...prev, pid: process.pid }
      : {
          version: 1,
          started: new Date().toISOString(),
          via,
          pid: process.pid,
          ...(prev?.failures ? { failures: prev.failures } : {}),
        };
  writeSweepRecord(record);
  const home = () => existsSync(cofferHome());
  return {
    record,
    keepGoing: () => {
      if (!home()) return false;
      touchLock(lock);
      return true;
    },
    release: (result) => {
      if (!home()) return;
      if (result) {
        try {
          const failures = result.errors.length ? (record.failures ?? 0) + 1 : 0;
          writeSweepRecord({ ...record, finished: new Date().toISOString(), result, failures });
        } catch {}
      }
      // Only our own lock (a lock broken as stale and taken by another sweep stays theirs).
      if (liveHolder(lock) === process.pid)
        try {
          unlinkSync(lock);
        } catch {}
    },
  };
}

/** The sweep as doctor and status show it: the last one, whether one runs now, and one line. */
export type SweepState = {
  last: SweepRecord | null;
  /** The pid of the sweep running now. */
  running: number | null;
  /** Why no background sweep starts although a model may be there (the user turned it off). */
  off: string | null;
  /** The last sweep ended with errors or never finished (details in state/sweep.log). */
  failed: boolean;
  summary: string;
};

export function sweepState(config: Config, now = Date.now()): SweepState {
  const last = readSweepRecord() ?? null;
  const running = liveHolder(paths.sweepLock()) ?? null;
  const off = sweepOffReason(config) ?? null;
  const interval = config["distill.sweep_interval_minutes"];
  const when = (iso: string) => agoText(now - Date.parse(iso));
  const by = (r: SweepRecord) =>
    r.via === "session-start"
      ? "started by a session start"
      : r.via === "serve"
        ? "coffer serve"
        : "coffer distill sweep";
  let summary: string;
  let failed = false;
  if (!last)
    summary = off
      ? `none yet; off (${off})`
      : `none yet (a session start starts one in the background when a model is available, at most every ${interval} min)`;
  else if (running && !last.finished) summary = `running since ${when(last.started)} (${by(last)}, pid ${running})`;
  else if (!last.finished) {
    failed = true;
    summary = `the last one (${by(last)}, ${when(last.started)}) did not finish: see ${paths.sweepLog()}`;
  } else {
    failed = Boolean(last.result?.errors.length);
    summary = `last ${when(last.finished)} (${by(last)}): ${last.result ? describeSweep(last.result) : "nothing recorded"}`;
    if (failed) summary += `; see ${paths.sweepLog()}`;
  }
  if (last && off) summary += `; off now (${off})`;
  else if (last?.failures && !running)
    summary += `; after ${last.failures} failed in a row the next waits ${waitMinutes(last, config)} min`;
  return { last, running, off, failed, summary };
}

/** One line for what a sweep did: the sweep log, doctor. */
export function describeSweep(r: SweepResult): string {
  const parts: string[] = [];
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  if (r.distilled) parts.push(`${n(r.distilled, "session", "sessions")} distilled`);
  if (r.harvested) parts.push(`${n(r.harvested, "native memory", "native memories")} harvested`);
  if (r.observed) parts.push(`${n(r.observed, "finished session", "finished sessions")} put in the inbox`);
  if (r.over_budget) parts.push("stopped at the daily token budget");
  if (r.backoff_until) parts.push(`the model failed: waits until ${r.backoff_until}`);
  if (r.errors.length) parts.push(`${n(r.errors.length, "error", "errors")} (${r.errors[0]})`);
  if (r.not_distilling && !r.distilled) parts.push(`nothing distilled: ${r.not_distilling}`);
  return parts.length ? parts.join("; ") : "nothing to do";
}
