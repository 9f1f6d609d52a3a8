/**
 * Cline CLI sessions: `~/.cline/data/sessions/<id>/<id>.messages.json`, one JSON document
 * rewritten as the session goes (`{version, updated_at, agent, sessionId, origin, messages,
 * system_prompt}`), beside `<id>.json` (`session_id`, `cwd`, `started_at`, `status`). Messages are
 * Anthropic-shaped: `{role, content: [{type: "text"|"tool_use"|"tool_result", ...}], ts}`; what the
 * user typed is wrapped in `<user_input mode="act|plan">`, hook context is a user message of
 * `<hook_context source=…>` elements (cleaned away). Observed with Cline CLI 3.0.65
 * (docs/hosts-observed.md).
 */
import { readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { homeDir } from "../lib/paths";
import { cleanText } from "./clean";
import { entries, fileStat, jsonObject, type SessionFile, type SessionHead } from "./files";
import { type Act, actText, type ParsedTranscript, sessionTitle, widen } from "./types";

/** As Cline resolves it: `CLINE_SESSION_DATA_DIR`, else `CLINE_DATA_DIR`/sessions, else `CLINE_DIR`/data/sessions. */
export function clineRoot(): string {
  const env = (name: string) => process.env[name]?.trim() || undefined;
  const data = env("CLINE_DATA_DIR") ?? join(env("CLINE_DIR") ?? join(homeDir(), ".cline"), "data");
  return env("CLINE_SESSION_DATA_DIR") ?? join(data, "sessions");
}

export function listClineSessions(): SessionFile[] {
  const root = clineRoot();
  const out: SessionFile[] = [];
  for (const id of entries(root)) {
    const path = join(root, id, `${id}.messages.json`);
    const st = fileStat(path);
    if (st) out.push({ host: "cline", path, session_id: id, ...st });
  }
  return out;
}

/** The session's `<id>.json` beside its messages file. */
function metadataOf(messagesPath: string): Record<string, any> | undefined {
  const id = basename(messagesPath).replace(/\.messages\.json$/, "");
  try {
    return jsonObject(readFileSync(join(dirname(messagesPath), `${id}.json`), "utf8"));
  } catch {
    return undefined;
  }
}

export function clineHead(path: string): SessionHead {
  const meta = metadataOf(path);
  const head: SessionHead = {};
  const id = meta?.session_id ?? basename(path).replace(/\.messages\.json$/, "");
  if (typeof id === "string") head.session_id = id;
  if (typeof meta?.cwd === "string" && isAbsolute(meta.cwd)) head.cwd = meta.cwd;
  if (typeof meta?.started_at === "string") head.first_activity = meta.started_at;
  return head;
}

/** The cwd of a session, from the metadata beside its messages file. */
export function clineSessionCwd(messagesPath: string): string | undefined {
  return clineHead(messagesPath).cwd;
}

const USER_INPUT = /<user_input(?:\s[^>]*)?>([\s\S]*?)<\/user_input\s*>/g;
const WORKING_DIR = /^\d+\. Working Directory: (\/.*|[A-Za-z]:\\.*)$/m;

const iso = (ts: unknown) => (typeof ts === "number" && Number.isFinite(ts) ? new Date(ts).toISOString() : undefined);

export function parseCline(text: string): ParsedTranscript {
  const parsed: ParsedTranscript = { host: "cline", title: "", turns: [] };
  const doc = jsonObject(text);
  if (!doc) return { ...parsed, title: "(empty session)" };
  if (typeof doc.sessionId === "string") parsed.session_id = doc.sessionId;
  if (typeof doc.system_prompt === "string") parsed.cwd = WORKING_DIR.exec(doc.system_prompt)?.[1]?.trim();
  if (doc.agent !== undefined && doc.agent !== "lead") parsed.subagent = true;
  for (const m of Array.isArray(doc.messages) ? doc.messages : []) {
    if (!m || typeof m !== "object") continue;
    const at = iso(m.ts);
    widen(parsed, at);
    const role = m.role === "user" ? "user" : m.role === "assistant" ? "assistant" : undefined;
    if (!role) continue;
    const blocks =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : [];
    const texts = blocks
      .filter((b: any) => b && b.type === "text" && typeof b.text === "string")
      .map((b: any) => {
        const t: string = b.text;
        return role === "user" && t.includes("<user_input") ? t.replace(USER_INPUT, "$1") : t;
      })
      .map(cleanText)
      .filter(Boolean);
    if (texts.length) parsed.turns.push({ role, text: texts.join("\n\n"), at });
  }
  parsed.title = sessionTitle(undefined, parsed.turns);
  return parsed;
}

/**
 * What happened in a session (capture/use.ts): what the user typed (inside `<user_input>`; hook
 * context messages are cleaned away), what the agent said, its tool calls and their results.
 */
export function clineActivity(text: string): Act[] {
  const doc = jsonObject(text);
  const acts: Act[] = [];
  const toolNames = new Map<string, string>();
  for (const m of Array.isArray(doc?.messages) ? doc.messages : []) {
    if (!m || typeof m !== "object" || (m.role !== "user" && m.role !== "assistant")) continue;
    const at = typeof m.ts === "number" && Number.isFinite(m.ts) ? m.ts : undefined;
    const blocks =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : [];
    for (const b of blocks) {
      if (!b || typeof b !== "object") continue;
      if (b.type === "text" && typeof b.text === "string") {
        if (m.role === "assistant") acts.push({ kind: "say", text: b.text, at });
        else {
          const typed = cleanText(b.text.includes("<user_input") ? b.text.replace(USER_INPUT, "$1") : b.text);
          if (typed) acts.push({ kind: "prompt", text: typed, at });
        }
      } else if (b.type === "tool_use" && m.role === "assistant") {
        const tool = typeof b.name === "string" ? b.name : "";
        if (typeof b.id === "string") toolNames.set(b.id, tool);
        acts.push({ kind: "tool", text: actText(b.input), at, tool });
      } else if (b.type === "tool_result") {
        const tool =
          typeof b.name === "string"
            ? b.name
            : typeof b.tool_use_id === "string"
              ? toolNames.get(b.tool_use_id)
              : undefined;
        acts.push({ kind: "result", text: actText(b.content), at, ...(tool ? { tool } : {}) });
      }
    }
  }
  return acts;
}
