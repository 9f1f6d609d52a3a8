/** One line about a session on disk: what `coffer distill list` and `GET .../transcripts` show. */
import { isoNow } from "../lib/time";
import { projectForSession } from "../store";
import { parseSessionFile, type SessionFile, sessionHead } from "../transcripts/discovery";
import type { TranscriptHost } from "../transcripts/types";
import { givenUp, givenUpText, isDistilled, type Ledger } from "./ledger";

export type SessionInfo = {
  host: TranscriptHost;
  session_id: string;
  /** The project's label when the session ran inside a git repository, else null. */
  project: string | null;
  project_id: string | null;
  /** Conversation turns left after cleaning. */
  messages: number;
  first_activity: string | null;
  last_activity: string | null;
  /** skipped: the sweep gave up on it after failed tries (`skipped` says why and how to retry). */
  status: "done" | "never" | "skipped";
  skipped?: { tries: number; error: string; why: string };
  title: string;
  /** Working directory the session ran in, when recorded. */
  cwd: string | null;
  /** The transcript file. */
  path: string;
};

/**
 * Sessions worth listing, newest first, at most `limit`: a subagent's own transcript (tool
 * internals, distilled with its parent) is left out.
 */
export function listSessionInfos(files: SessionFile[], ledger: Ledger, limit: number): SessionInfo[] {
  const out: SessionInfo[] = [];
  for (const f of files) {
    if (out.length >= limit) break;
    if (sessionHead(f).subagent) continue;
    out.push(describeSession(f, ledger));
  }
  return out;
}

export function describeSession(file: SessionFile, ledger: Ledger): SessionInfo {
  const head = sessionHead(file);
  const project = projectForSession(head.cwd, head.origin);
  let messages = 0;
  let title = "";
  let first = head.first_activity ?? null;
  try {
    const parsed = parseSessionFile(file);
    messages = parsed.turns.length;
    title = parsed.title;
    first = parsed.first_activity ?? first;
  } catch {} // vanished meanwhile: listed with what the directory said
  const gaveUp = givenUp(ledger, file);
  return {
    host: file.host,
    session_id: file.session_id,
    project: project?.label ?? null,
    project_id: project?.id ?? null,
    messages,
    first_activity: first,
    last_activity: isoNow(new Date(file.mtimeMs)),
    status: isDistilled(ledger, file) ? "done" : gaveUp ? "skipped" : "never",
    ...(gaveUp ? { skipped: { tries: gaveUp.tries, error: gaveUp.error, why: givenUpText(gaveUp) } } : {}),
    title,
    cwd: head.cwd ?? null,
    path: file.path,
  };
}
