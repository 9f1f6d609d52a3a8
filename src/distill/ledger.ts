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

export type LedgerOutcome = "distilled" | "failed";

export type LedgerRecord = {
  at: string;
  host: string;
  session_id: string;
  sha256: string;
  size: number;
  mtime_ms: number;
  outcome: LedgerOutcome;
  entries: number;
  /** For failures: what went wrong (never content). */
  error?: string;
  /** How the session got here: distill run/sweep, or inbox approve. */
  via?: string;
  /** The model asked (`provider/model`); absent when no call was made. */
  model?: string;
  /** Tokens the call cost (input = prompt, output = completion), as reported or estimated. */
  input_tokens?: number;
  output_tokens?: number;
  /** True when the provider reported no usage and the tokens are estimated from characters. */
  tokens_estimated?: boolean;
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

export function fileSha256(path: string): string {
  return sha256(readFileSync(path));
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
    hash = fileSha256(f.path);
  } catch {
    return [];
  }
  return records.filter((r) => r.sha256 === hash);
}

/** True when this exact file content was distilled already. */
export function isDistilled(ledger: Ledger, f: FileState): boolean {
  return matching(ledger, f, "distilled").length > 0;
}

/** Failed attempts on this exact file content (the sweep gives up after a few). */
export function failedAttempts(ledger: Ledger, f: FileState): number {
  return matching(ledger, f, "failed").length;
}

/** Whether the session was ever distilled, in any version of its file. */
