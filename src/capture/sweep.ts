/**
 * Choosing sessions to distill without being asked: idle for `distill.settle_minutes` (15),
 * touched within `distill.recency_days` (7), not in the ledger, not waiting in the inbox, in a
 * git project; at most `distill.max_sessions_per_sweep` (20), oldest first. This is how sessions of hosts
 * without a session-end hook (Codex) are captured.
 */

import type { Config } from "../config/config";
import { failedAttempts, isDistilled, type Ledger, readLedger } from "../distill/ledger";
import { MAX_FAILED_ATTEMPTS } from "../distill/session";
import { listTraces } from "../inbox/traces";
import { projectForSession } from "../store";
import { listSessions, type SessionFile, sessionHead } from "../transcripts/discovery";
import { TRANSCRIPT_HOSTS, type TranscriptHost } from "../transcripts/types";

export type SweepPolicy = { settleMs: number; recencyMs: number; max: number };

export function sweepPolicy(config: Config): SweepPolicy {
  return {
    settleMs: config["distill.settle_minutes"] * 60_000,
    recencyMs: config["distill.recency_days"] * 86_400_000,
    // The older key still caps a pass when a config file sets it.
    max: Math.min(config["distill.max_sessions_per_sweep"], config["distill.max_per_pass"] ?? Infinity),
  };
}

/** The sessions a sweep pass would distill now, oldest first. */
export function selectSweep(
  policy: SweepPolicy,
  opts: { now?: number; hosts?: readonly TranscriptHost[]; ledger?: Ledger } = {},
): SessionFile[] {
  const now = opts.now ?? Date.now();
  const ledger = opts.ledger ?? readLedger();
  const inInbox = new Set(listTraces().map((t) => `${t.host}\u0000${t.session}`));
  const candidates = listSessions(opts.hosts ?? TRANSCRIPT_HOSTS, now - policy.recencyMs)
    .filter((f) => now - f.mtimeMs >= policy.settleMs)
    .sort((a, b) => a.mtimeMs - b.mtimeMs);
  const picked: SessionFile[] = [];
  for (const f of candidates) {
    if (picked.length >= policy.max) break;
    if (isDistilled(ledger, f) || failedAttempts(ledger, f) >= MAX_FAILED_ATTEMPTS) continue;
    if (inInbox.has(`${f.host}\u0000${f.session_id}`)) continue; // waiting for a human review instead
    const head = sessionHead(f);
    if (head.subagent || !projectForSession(head.cwd, head.origin)) continue;
    picked.push(f);
  }
  return picked;
}
