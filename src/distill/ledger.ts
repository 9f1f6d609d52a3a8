/**
 * `state/distilled.jsonl`: one line per distillation attempt (host, session id, sha256 of the
 * transcript file, its size and mtime, the outcome). The truth for "already distilled": a session
 * whose current file hash was distilled is a no-op. Size + mtime let the common case (file not
 * touched since) answer without hashing; only a same-size file with a new mtime is hashed.
 * Each record of a model call also says what it cost: model, input/output tokens (reported by
 * the provider or estimated, marked so), duration. Never content.
 */
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { sha256 } from "../lib/hash";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";
import { isoNow, nowMs } from "../lib/time";
import { sessionContent } from "../transcripts/discovery";
import { isTranscriptHost } from "../transcripts/types";
import { isSetupFailure, SETUP_FAILURES } from "./model";

/** skipped: never to be distilled (a transcript of Coffer's own headless run: `reason`). */
export type LedgerOutcome = "distilled" | "failed" | "skipped";

export type LedgerRecord = {
  at: string;
  host: string;
  session_id: string;
  sha256: string;
  size: number;
  mtime_ms: number;
  outcome: LedgerOutcome;
  entries: number;
  /** For failures: what went wrong, a ModelError kind (never content). */
  error?: string;
  /** For skipped sessions: why ("coffer_run"). */
  reason?: string;
  /** How the session got here: distill run/sweep, or inbox approve. */
  via?: string;
  /** The model asked (`provider/model`); absent when no call was made. */
  model?: string;
  /** Tokens the call cost (input = prompt, output = completion), as reported or estimated. */
  input_tokens?: number;
  output_tokens?: number;
  /** True when the provider reported no usage and the tokens are estimated from characters. */
  tokens_estimated?: boolean;
  /** The price the provider stated for the call (Claude Code does), in US dollars. */
  cost_usd?: number;
  /** How long the model call took, retries included. */
  duration_ms?: number;
};

export type Ledger = Map<string, LedgerRecord[]>;

const key = (host: string, session: string) => `${host}\u0000${session}`;

/** Every record, by host + session. A damaged line is skipped. */
export function readLedger(): Ledger {
  const ledger: Ledger = new Map();
  let text = "";
  try {
    text = readOwnText(paths.ledger(), 512 * 1024 * 1024);
  } catch {
    return ledger;
  }
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as LedgerRecord;
      if (typeof r.host !== "string" || typeof r.session_id !== "string" || typeof r.sha256 !== "string") continue;
      const k = key(r.host, r.session_id);
      const list = ledger.get(k);
      if (list) list.push(r);
      else ledger.set(k, [r]);
    } catch {}
  }
  return ledger;
}

export function appendLedger(record: Omit<LedgerRecord, "at">): void {
  const file = paths.ledger();
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify({ at: isoNow(new Date(nowMs())), ...record })}\n`, { mode: 0o600 });
}

/** Every record in file order (the ledger as a log: token accounting, stats). */
export function ledgerRecords(ledger: Ledger = readLedger()): LedgerRecord[] {
  return [...ledger.values()].flat().sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** Tokens a record cost, input + output (0 for a record without a model call). */
export function recordTokens(r: LedgerRecord): number {
  return (r.input_tokens ?? 0) + (r.output_tokens ?? 0);
}

/** A transcript file as it is now (a SessionFile is one). */
export type FileState = { host: string; session_id: string; path: string; size: number; mtimeMs: number };

/** The sha256 of a session as it is now: its file's bytes, or a database session's rows as read. */
export function sessionSha256(f: { host: string; path: string }): string {
  return sha256(isTranscriptHost(f.host) ? sessionContent({ host: f.host, path: f.path }) : readFileSync(f.path));
}

/** Records of this session that describe the file as it is now (same content). */
function matching(ledger: Ledger, f: FileState, outcome: LedgerOutcome): LedgerRecord[] {
  const records = (ledger.get(key(f.host, f.session_id)) ?? []).filter(
    (r) => r.outcome === outcome && r.size === f.size,
  );
  if (!records.length) return [];
  const same = records.filter((r) => r.mtime_ms === f.mtimeMs);
  if (same.length) return same;
  let hash: string;
  try {
    hash = sessionSha256(f);
  } catch {
    return [];
  }
  return records.filter((r) => r.sha256 === hash);
}

/** True when this exact file content was distilled already (or is never to be: skipped). */
export function isDistilled(ledger: Ledger, f: FileState): boolean {
  return matching(ledger, f, "distilled").length > 0 || matching(ledger, f, "skipped").length > 0;
}

/**
 * Failures that say the model is unusable right now, whatever the session: its set-up (not
 * installed, never logged in, refusing to run inside a session: `SETUP_FAILURES`), a refused
 * login, rate limited, a plan's limit used up, the provider failing (5xx, overloaded),
 * unreachable, or too slow. The sweep stops at the first one and waits (`sweepBackoff`); except a
 * timeout (a long session may cause it) they do not count against the session. Only `refused`,
 * `http` and `malformed` are the session's to answer for.
 */
const MODEL_DOWN = new Set<string>([...SETUP_FAILURES, "auth", "rate_limit", "quota", "server", "network", "timeout"]);

export function stopsSweep(kind: string | undefined): boolean {
  return kind !== undefined && MODEL_DOWN.has(kind);
}

/**
 * Failed attempts on this exact file content that the session may be to blame for (the sweep
 * gives up after a few): never a set-up failure, nor another failure of the model itself.
 */
export function failedAttempts(ledger: Ledger, f: FileState): number {
  return matching(ledger, f, "failed").filter(countsAgainst).length;
}

function countsAgainst(r: LedgerRecord): boolean {
  return r.outcome === "failed" && !isSetupFailure(r.error) && (r.error === "timeout" || !stopsSweep(r.error));
}

/** Failed tries after which the sweep skips a session until its file changes (`distill run --force` retries). */
export const MAX_FAILED_ATTEMPTS = 3;

/** A session the sweep skips: its failed tries on the file as it is, and the last one's error kind. */
export type GivenUp = { host: string; session_id: string; tries: number; error: string; at: string };

/** The failed tries that count against this session (`failedAttempts`), when they reached the limit. */
export function givenUp(ledger: Ledger, f: FileState): GivenUp | undefined {
  if (isDistilled(ledger, f)) return undefined;
  const counted = matching(ledger, f, "failed").filter(countsAgainst);
  if (counted.length < MAX_FAILED_ATTEMPTS) return undefined;
  const last = counted[counted.length - 1]!;
  return { host: f.host, session_id: f.session_id, tries: counted.length, error: last.error ?? "failed", at: last.at };
}

/**
 * Every session the sweep skips, from the ledger alone (no transcript is read): its latest
 * content's counted failures reached the limit and nothing distilled or skipped it since.
 * `coffer status` and `coffer doctor` count them; `coffer distill list` shows each.
 */
export function givenUpSessions(ledger: Ledger = readLedger()): GivenUp[] {
  const out: GivenUp[] = [];
  for (const records of ledger.values()) {
    const latest = records[records.length - 1]!;
    const same = records.filter((r) => r.sha256 === latest.sha256);
    if (same.some((r) => r.outcome !== "failed")) continue;
    const counted = same.filter(countsAgainst);
    if (counted.length < MAX_FAILED_ATTEMPTS) continue;
    const last = counted[counted.length - 1]!;
    out.push({
      host: last.host,
      session_id: last.session_id,
      tries: counted.length,
      error: last.error ?? "failed",
      at: last.at,
    });
  }
  return out;
}

/** How a skipped session is explained, with the command that tries it again. */
export function givenUpText(g: GivenUp): string {
  return `skipped by the sweep after ${g.tries} failed tries (last: ${g.error}); coffer distill run ${g.session_id} --force tries again`;
}

/**
 * The last model call, when it failed for a set-up reason (no call since succeeded): what
 * `coffer doctor` says once, however many sessions wait.
 */
export function lastSetupFailure(ledger: Ledger = readLedger()): LedgerRecord | undefined {
  const records = ledgerRecords(ledger);
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (!r.model) continue; // no model call (skipped, nothing left to send)
    return r.outcome === "failed" && isSetupFailure(r.error) ? r : undefined;
  }
  return undefined;
}

/** The sweep's first wait after the model failed, doubled per failure in a row, at most BACKOFF_MAX_MS. */
export const BACKOFF_BASE_MS = 15 * 60_000;
export const BACKOFF_MAX_MS = 6 * 3_600_000;

export type Backoff = { failures: number; error: string; until: string };

/**
 * While the last attempts failed because the model was unusable (`stopsSweep`), the sweep waits:
 * 15 min after one such failure, 30 after two in a row, ... at most 6 h; any other outcome ends the
 * streak. Undefined when the sweep may run now.
 */
export function sweepBackoff(ledger: Ledger = readLedger(), now = nowMs()): Backoff | undefined {
  const records = ledgerRecords(ledger);
  let failures = 0;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r.outcome !== "failed" || !stopsSweep(r.error)) break;
    failures++;
  }
  if (!failures) return undefined;
  const last = records[records.length - 1]!;
  const wait = Math.min(BACKOFF_BASE_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
  const until = Date.parse(last.at) + wait;
  if (Number.isNaN(until) || now >= until) return undefined;
  return { failures, error: last.error ?? "failed", until: new Date(until).toISOString() };
}

/** One line for a sweep that waits. */
export function backoffMessage(b: Backoff): string {
  return `the model failed ${b.failures} ${b.failures === 1 ? "time" : "times"} in a row (last: ${b.error}): the sweep waits until ${b.until}`;
}
