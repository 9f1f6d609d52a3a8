import { scrubText } from "./scrub";

/** What every transcript parser produces: the conversation and the little metadata Coffer needs. */

export const TRANSCRIPT_HOSTS = [
  "claude",
  "codex",
  "gemini",
  "copilot",
  "cline",
  "kimi",
  "qwen",
  "pi",
  "kilo",
  "antigravity",
  "goose",
  "opencode",
] as const;
export type TranscriptHost = (typeof TRANSCRIPT_HOSTS)[number];

export type Role = "user" | "assistant";

export type Turn = { role: Role; text: string; at?: string };

export type ParsedTranscript = {
  host: TranscriptHost;
  /** The host's own session id (from the file when present). */
  session_id?: string;
  /** Working directory the session ran in, when the file records it. */
  cwd?: string;
  /** Normalized origin URL when the file records it (Codex `session_meta.git`). */
  origin?: string;
  /** A human title: the host's own title record, else the first user turn. */
  title: string;
  /** User + assistant natural-language turns, already cleaned of preambles and injected context. */
  turns: Turn[];
  first_activity?: string;
  last_activity?: string;
  /** True for a subagent's own transcript (tool internals, never distilled on its own). */
  subagent?: boolean;
};

export function isTranscriptHost(h: string): h is TranscriptHost {
  return (TRANSCRIPT_HOSTS as readonly string[]).includes(h);
}

export const TITLE_MAX = 80;

/** One line of at most 80 characters, cut at a word boundary. */
export function shortTitle(text: string): string {
  const line =
    text
      .split("\n")
      .map((l) => l.replace(/^[#>*\-\s]+/, "").trim())
      .find(Boolean) ?? "";
  if (line.length <= TITLE_MAX) return line;
  const cut = line.slice(0, TITLE_MAX - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A session's title: the host's own title when it has one, else the first user turn. */
export function sessionTitle(hostTitle: string | undefined, turns: Turn[]): string {
  const first = turns.find((t) => t.role === "user") ?? turns[0];
  // Scrubbed before it is cut, so a cut can never leave half a secret behind.
  return shortTitle(scrubText(hostTitle?.trim() || first?.text || "").text) || "(empty session)";
}

/** An ISO-8601 timestamp, or undefined for anything else. */
export function isoOrUndefined(at: unknown): string | undefined {
  return typeof at === "string" && /^\d{4}-\d\d-\d\dT/.test(at) ? at : undefined;
}

/** Track first/last ISO timestamps as records stream by. */
export function widen(span: { first_activity?: string; last_activity?: string }, raw: unknown): void {
  const at = isoOrUndefined(raw);
  if (!at) return;
  if (!span.first_activity || at < span.first_activity) span.first_activity = at;
  if (!span.last_activity || at > span.last_activity) span.last_activity = at;
}

/**
 * What happened in a session, in order, for judging whether the agent used what it was given
 * (capture/use.ts): what the user typed, what the agent said, the tools it called (with their
 * inputs) and what tools answered. `at` is milliseconds since the epoch when the record has a time.
 */
export type ActKind = "prompt" | "say" | "tool" | "result";
export type Act = { kind: ActKind; text: string; at?: number; tool?: string };

/** Milliseconds of an ISO timestamp, or undefined. */
export function atMs(raw: unknown): number | undefined {
  const iso = isoOrUndefined(raw);
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A tool's input or output as text (strings as they are, anything else as JSON). */
export function actText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value);
  } catch {
    return "";
  }
}
