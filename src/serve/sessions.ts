/**
 * What the `coffer serve` HTTP routes need from distillation: session end, transcripts, inbox.
 * Thin adapters over src/distill, src/transcripts, src/capture and src/inbox; the background
 * worker's pass lives in src/capture/pass.ts.
 */

import { enqueueSession } from "../capture/queue";
import { type Host, loadConfig } from "../config/config";
import { distillBatch } from "../distill/batch";
import { listSessionInfos, type SessionInfo } from "../distill/catalog";
import { isDistilled, readLedger } from "../distill/ledger";
import { modelSettings } from "../distill/model";
import { approveTrace, rejectTrace } from "../distill/review";
import { type DistillOutcome, distillFile, prepareSession } from "../distill/session";
import { collectStats, STATS_DEFAULT_DAYS, type Stats } from "../distill/stats";
import { approveConflict, type Conflict, findConflict, listConflicts, rejectConflict } from "../inbox/conflicts";
import {
  approveTeamProposal,
  findTeamProposal,
  listTeamProposals,
  rejectTeamProposal,
  type TeamApproval,
  type TeamProposal,
} from "../inbox/team-proposals";
import { findTrace, listTraces, type Trace } from "../inbox/traces";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { isoNow } from "../lib/time";
import { withOpenStore } from "../store";
import { listSessions, resolveSession, type SessionFile, sessionFileAt } from "../transcripts/discovery";
import { isTranscriptHost } from "../transcripts/types";

export type SessionEndOutcome = DistillOutcome;

/** A session on disk (see SessionInfo: project label, messages, activity, ledger status, path). */
export type TranscriptInfo = SessionInfo;

/**
 * A session ended (HTTP session-end route): distill it now when a model is configured and say
 * what happened — "distilled", "already_distilled" (the ledger has this exact transcript),
 * "not_found", "skipped" (no transcripts for this host, not a git project, nothing worth keeping)
 * or "failed" (the model call failed; the sweep retries). Without a model the session is queued
 * for `coffer observe --queue` (inbox review) and the outcome is "no_model".
 */
export async function endSession(host: Host, sessionId: string, transcriptPath?: string): Promise<SessionEndOutcome> {
  if (!isTranscriptHost(host)) return "skipped";
  let file: SessionFile;
  try {
    file = transcriptPath ? sessionFileAt(transcriptPath, host) : resolveSession(sessionId, [host]);
  } catch {
    return "not_found";
  }
  const ledger = readLedger();
  if (isDistilled(ledger, { ...file, session_id: sessionId })) return "already_distilled";
  const config = loadConfig();
  if (!modelSettings(config)) {
    enqueueSession({ transcript_path: file.path, host, session: sessionId, at: isoNow() });
    return "no_model";
  }
  return (await distillFile(file, { config, ledger, via: "http" })).outcome;
}

/**
 * `coffer stats` for the web UI: tokens spent distilling (by model), tokens injected by hooks (by
 * host and event), sessions distilled/pending/failed, entries added by source, most delivered and
 * not delivered in 90 days, with one value per day for each series (`days`, `per_day`).
 */
export async function usageStats(opts: { days?: number; cwd?: string } = {}): Promise<Stats> {
  const days = Math.max(1, Math.min(365, Math.floor(opts.days ?? STATS_DEFAULT_DAYS)));
  return withOpenStore({ cwd: opts.cwd, freshness: "none" }, (store) =>
    collectStats({ config: loadConfig(), store, windowMs: days * 86_400_000 }),
  );
}

/** Sessions of one host found on disk, newest first. */
export async function listTranscripts(host: Host, limit = 50): Promise<TranscriptInfo[]> {
  if (!isTranscriptHost(host)) return [];
  const ledger = readLedger();
  return listSessionInfos(listSessions([host]), ledger, limit);
}

export type DistillReport = { session: string; outcome: SessionEndOutcome; message: string; entries: string[] };

/**
 * Distill the given sessions (ids or paths) of one host, one after the other, with the CLI's
 * stopping rule (distill/batch.ts): at the daily token budget, or once the model itself failed,
 * the sessions left are reported as not tried (outcome "skipped") and nothing is sent for them.
 */
export async function distillTranscripts(host: Host, sessions: string[]): Promise<DistillReport[]> {
  if (!isTranscriptHost(host))
    return sessions.map((session) => ({
      session,
      outcome: "skipped" as const,
      message: `${host} keeps no transcripts Coffer can read`,
      entries: [],
    }));
  const found: { session: string; file: SessionFile }[] = [];
  const out = new Map<string, DistillReport>();
  for (const session of sessions) {
    try {
      found.push({ session, file: resolveSession(session, [host]) });
    } catch (err) {
      out.set(session, { session, outcome: "not_found", message: (err as Error).message, entries: [] });
    }
  }
  const { results, stopped } = await distillBatch(
    found.map((f) => f.file),
    { config: loadConfig(), ledger: readLedger(), via: "http" },
  );
  const why =
    stopped === "over_budget"
      ? "not tried: the daily token budget stopped the batch (coffer status shows the budget)"
      : "not tried: the model failed on an earlier session, the rest would fail the same way";
  for (const [i, { session }] of found.entries()) {
    const r = results[i];
    out.set(
      session,
      r
        ? { session, outcome: r.outcome, message: r.message, entries: r.entries.map((e) => e.id) }
        : { session, outcome: "skipped", message: why, entries: [] },
    );
  }
  return sessions.map((session) => out.get(session)!);
}

/** The exact text a model would receive for one session (the web UI's preview). */
export async function transcriptPreview(
  host: Host,
  session: string,
): Promise<{ session: string; title: string; project: string | null; text: string; redactions: number } | undefined> {
  if (!isTranscriptHost(host)) return undefined;
  try {
    const p = prepareSession(resolveSession(session, [host]), loadConfig());
    return {
      session: p.file.session_id,
      title: p.parsed.title,
      project: p.project?.label ?? null,
      text: p.text,
      redactions: p.conversation.redactions,
    };
  } catch (err) {
    if (err instanceof CofferError) return undefined;
    throw err;
  }
}

export type InboxItem = {
  id: string;
  host: string;
  session: string;
  created: string;
  messages: number;
  redactions: number;
  removed_lines: number;
  title: string;
  project: string | null;
};

const item = (t: Trace): InboxItem => ({
  id: t.id,
  host: t.host,
  session: t.session,
  created: t.created,
  messages: t.messages,
  redactions: t.redactions,
  removed_lines: t.removed_lines,
  title: t.title,
  project: t.project?.label ?? null,
});

/** Traces waiting in inbox/, oldest first. */
export async function listInbox(): Promise<InboxItem[]> {
  return listTraces().map(item);
}

/** One trace with its turns (what approve would send), or undefined. */
export async function showInbox(id: string): Promise<Trace | undefined> {
  return findTrace(id);
}

export type ApproveInboxResult = {
  id: string;
  status: "approved" | "not_found" | "failed";
  entries: string[];
  message?: string;
  /** "scrubbed 2 secrets (password, token)" when secrets were redacted on the way. */
  scrubbed?: string;
};

/** Distill an inbox trace into entries and remove it (no interactive preview over HTTP). */
export async function approveInbox(id: string): Promise<ApproveInboxResult> {
  const trace = findTrace(id);
  if (!trace) return { id, status: "not_found", entries: [] };
  try {
    const r = await approveTrace(trace, loadConfig());
    return {
      id: trace.id,
      status: "approved",
      entries: r.entries.map((e) => e.id),
      ...(r.scrubbed ? { scrubbed: r.scrubbed } : {}),
    };
  } catch (err) {
    if (err instanceof CofferError)
      return {
        id: trace.id,
        status: "failed",
        entries: [],
        message: [err.message, err.hint].filter(Boolean).join("\n"),
      };
    throw err;
  }
}

/** Contradictions distillation left for a person (the existing entry and the new insight), oldest first. */
export async function listInboxConflicts(): Promise<Conflict[]> {
  return listConflicts();
}

/**
 * Settle a contradiction: "approve" writes the insight and supersedes the old entry (kept, never
 * routed again); "reject" keeps the old entry and drops the insight.
 */
export async function settleConflict(
  id: string,
  decision: "approve" | "reject",
): Promise<{ id: string; status: "approved" | "rejected" | "not_found"; entry?: string; superseded?: string }> {
  const c = findConflict(id);
  if (!c) return { id, status: "not_found" };
  if (decision === "reject") {
    rejectConflict(c);
    return { id: c.id, status: "rejected" };
  }
  return { id: c.id, status: "approved", ...approveConflict(c) };
}

/** Delete an inbox trace. */
export async function rejectInbox(id: string): Promise<{ id: string; status: "rejected" | "not_found" }> {
  const trace = findTrace(id);
  if (!trace) return { id, status: "not_found" };
  rejectTrace(trace);
  return { id: trace.id, status: "rejected" };
}

/** Entries distillation proposed for a repository's team lane, oldest first. */
export async function listInboxTeamProposals(): Promise<TeamProposal[]> {
  return listTeamProposals();
}

/**
 * Settle a team-lane proposal: "approve" promotes the entry into `.coffer/entries/` of the
 * repository's checkout (`checkout` finds one for a project id; none known: "failed", with what to
 * run instead); "reject" keeps the entry personal.
 */
export async function settleTeamProposal(
  id: string,
  decision: "approve" | "reject",
  checkout: (project: string) => string | undefined,
): Promise<
  | { id: string; status: "rejected" | "not_found" }
  | { id: string; status: "failed"; message: string }
  | (TeamApproval & { id: string })
> {
  const p = findTeamProposal(id);
  if (!p) return { id, status: "not_found" };
  if (decision === "reject") {
    rejectTeamProposal(p);
    return { id: p.id, status: "rejected" };
  }
  const cwd = checkout(p.project.id);
  if (!cwd)
    return {
      id: p.id,
      status: "failed",
      message: `no checkout of ${p.project.label} is known here: run \`coffer inbox approve ${handle(p.id)}\` inside the repository`,
    };
  try {
    return await withOpenStore({ cwd, freshness: "none" }, (store) => approveTeamProposal(store, p));
  } catch (err) {
    if (err instanceof CofferError)
      return { id: p.id, status: "failed", message: [err.message, err.hint].filter(Boolean).join("\n") };
    throw err;
  }
}
