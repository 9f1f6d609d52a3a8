/**
 * What `coffer serve` (HTTP routes + background worker) needs from distillation. The serve
 * side imports only this file; the transcripts/distill issue implements it.
 */
import type { Host } from "../store/config";

export type SessionEndOutcome = "distilled" | "already_distilled" | "no_model" | "not_found" | "skipped";

export type TranscriptInfo = {
  host: Host;
  session_id: string;
  project: string | null;
  messages: number;
  first_activity: string | null;
  last_activity: string | null;
  status: "done" | "never";
};

export type WorkerReport = { observed: number; distilled: number; skipped: number; errors: string[] };

/** Queue a finished session and report what happened to it (placeholder: always "skipped"). */
export async function endSession(_host: Host, _sessionId: string, _transcriptPath?: string): Promise<SessionEndOutcome> {
  return "skipped";
}

/** Sessions of one host found on disk (placeholder: none). */
export async function listTranscripts(_host: Host, _limit = 50): Promise<TranscriptInfo[]> {
  return [];
}

/** Distill the given sessions (ids or paths) of one host (placeholder: all skipped). */
export async function distillTranscripts(_host: Host, sessions: string[]): Promise<{ session: string; outcome: SessionEndOutcome }[]> {
  return sessions.map((session) => ({ session, outcome: "skipped" as const }));
}

/** One background pass: drain the session-end queue, then sweep idle sessions (placeholder: no-op). */
export async function workerPass(): Promise<WorkerReport> {
  return { observed: 0, distilled: 0, skipped: 0, errors: [] };
}

export type InboxItem = { id: string; host: string; session: string; created: string; messages: number; redactions: number; removed_lines: number };

/** Traces waiting in inbox/ (placeholder: none). */
export async function listInbox(): Promise<InboxItem[]> {
  return [];
}

/** Distill an inbox trace into entries and remove it (placeholder: not found). */
export async function approveInbox(_id: string): Promise<{ id: string; status: "approved" | "not_found"; entries: string[] }> {
  return { id: _id, status: "not_found", entries: [] };
}

/** Delete an inbox trace (placeholder: not found). */
export async function rejectInbox(_id: string): Promise<{ id: string; status: "rejected" | "not_found" }> {
  return { id: _id, status: "not_found" };
}
