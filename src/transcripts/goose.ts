/**
 * Goose sessions: rows of its SQLite database `<data>/sessions/sessions.db` (Goose 1.10 and later;
 * JSONL files before), read through src/store/foreign/goose.ts. The data folder is
 * `$GOOSE_PATH_ROOT/data` when that is set, else `$XDG_DATA_HOME/goose` (`~/.local/share/goose`, on
 * macOS too), `%APPDATA%\Block\goose\data` on Windows (block/goose `crates/goose/src/config/paths.rs`).
 * A session is named `<sessions.db>#<id>`; `readGoose` renders its rows as one JSON document
 * (`{session, messages: [{role, created, content, metadata}]}`) for `parseGoose` and `gooseActivity`.
 * Content items (`crates/goose/src/conversation/message.rs`): `{type: "text", text}`,
 * `{type: "toolRequest", id, toolCall: {status, value: {name, arguments}}}`, `{type:
 * "toolResponse", id, toolResult: {status, value: {content: [...]} | [...], error}}`, `thinking`,
 * and others that are not conversation. Tool responses come in user-role messages; a message with
 * `metadata.userVisible: false` is Goose's own (not a turn). Goose was not run here.
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { homeDir } from "../lib/paths";
import { type GooseSessionRow, gooseConversation, gooseSession, gooseSessions } from "../store";
import { cleanText } from "./clean";
import { jsonObject, type SessionFile, type SessionHead, splitDbSessionPath } from "./files";
import { type Act, actText, type ParsedTranscript, sessionTitle, widen } from "./types";

function gooseData(): string {
  const root = process.env.GOOSE_PATH_ROOT?.trim();
  if (root && isAbsolute(root)) return join(root, "data");
  if (process.platform === "win32")
    return join(process.env.APPDATA || join(homeDir(), "AppData", "Roaming"), "Block", "goose", "data");
  return join(process.env.XDG_DATA_HOME?.trim() || join(homeDir(), ".local", "share"), "goose");
}

export function gooseDb(): string {
  return join(gooseData(), "sessions", "sessions.db");
}

export function gooseRoot(): string {
  return dirname(gooseDb());
}

const fileOf = (db: string, s: GooseSessionRow): SessionFile => ({
  host: "goose",
  path: `${db}#${s.id}`,
  session_id: s.id,
  size: s.rows,
  mtimeMs: s.updated_ms ?? 0,
});

export function listGooseSessions(sinceMs?: number): SessionFile[] {
  const db = gooseDb();
  const r = gooseSessions(db, sinceMs);
  return r.ok ? r.value.map((s) => fileOf(db, s)) : [];
}

/** Why Goose's database cannot be read now (undefined: it can, or there is none). */
export function gooseUnreadable(): string | undefined {
  const db = gooseDb();
  if (!existsSync(db)) return undefined;
  const r = gooseSessions(db, Number.MAX_SAFE_INTEGER);
  return r.ok ? undefined : r.reason;
}

/** A session's size (messages) and time of its last change, or undefined when it is not there. */
export function gooseStat(path: string): { size: number; mtimeMs: number } | undefined {
  const at = splitDbSessionPath(path);
  const r = at ? gooseSession(at.db, at.id) : undefined;
  return r?.ok && r.value ? { size: r.value.rows, mtimeMs: r.value.updated_ms ?? 0 } : undefined;
}

const iso = (ms: unknown) => (typeof ms === "number" && Number.isFinite(ms) ? new Date(ms).toISOString() : undefined);

/** Sessions a person had (not a subagent's "specialist" run or Goose's hidden ones). */
const PERSON_TYPES = new Set(["user", "terminal", "scheduled"]);

export function gooseHead(path: string): SessionHead {
  const at = splitDbSessionPath(path);
  const r = at ? gooseSession(at.db, at.id) : undefined;
  const s = r?.ok ? r.value : undefined;
  if (!s) return at ? { session_id: at.id } : {};
  return {
    session_id: s.id,
    ...(isAbsolute(s.working_dir) ? { cwd: s.working_dir } : {}),
    ...(iso(s.created_ms) ? { first_activity: iso(s.created_ms) } : {}),
    ...(PERSON_TYPES.has(s.session_type) ? {} : { subagent: true }),
  };
}

/** The session's rows as one JSON document; throws (with the reason) when they cannot be read. */
export function readGoose(path: string): string {
  const at = splitDbSessionPath(path);
  if (!at) throw new Error(`not a Goose session (<sessions.db>#<session id>): ${path}`);
  const r = gooseConversation(at.db, at.id);
  if (!r.ok) throw new Error(r.reason);
  if (!r.value) throw new Error(`Goose's database has no session ${at.id}`);
  const { session, messages } = r.value;
  return JSON.stringify({
    session: {
      id: session.id,
      name: session.name,
      session_type: session.session_type,
      working_dir: session.working_dir,
      created_ms: session.created_ms,
    },
    messages: messages.map((m) => {
      let content: unknown = [];
      try {
        content = JSON.parse(m.content_json);
      } catch {}
      return {
        role: m.role,
        created: m.created_timestamp,
        content: Array.isArray(content) ? content : [],
        metadata: (m.metadata_json && jsonObject(m.metadata_json)) || {},
      };
    }),
  });
}

type Doc = { session?: Record<string, any>; messages: Record<string, any>[] };

function docOf(text: string): Doc {
  const doc = jsonObject(text);
  const messages = Array.isArray(doc?.messages) ? doc.messages.filter((m: unknown) => m && typeof m === "object") : [];
  return { session: doc?.session && typeof doc.session === "object" ? doc.session : undefined, messages };
}

/** Seconds (Goose's `created`) as milliseconds. */
const msOf = (created: unknown) =>
  typeof created === "number" && Number.isFinite(created) ? Math.round(created * 1000) : undefined;

const items = (m: Record<string, any>): Record<string, any>[] =>
  (Array.isArray(m.content) ? m.content : []).filter((c: unknown) => c && typeof c === "object");

export function parseGoose(text: string): ParsedTranscript {
  const { session, messages } = docOf(text);
  const parsed: ParsedTranscript = { host: "goose", title: "", turns: [] };
  if (typeof session?.id === "string") parsed.session_id = session.id;
  if (typeof session?.working_dir === "string" && isAbsolute(session.working_dir)) parsed.cwd = session.working_dir;
  if (typeof session?.session_type === "string" && !PERSON_TYPES.has(session.session_type)) parsed.subagent = true;
  for (const m of messages) {
    const at = iso(msOf(m.created));
    widen(parsed, at);
    const role = m.role === "user" ? "user" : m.role === "assistant" ? "assistant" : undefined;
    if (!role || m.metadata?.userVisible === false) continue;
    const texts = items(m)
      .filter((c) => c.type === "text" && typeof c.text === "string")
      .map((c) => cleanText(c.text as string))
      .filter(Boolean);
    if (texts.length) parsed.turns.push({ role, text: texts.join("\n\n"), at });
  }
  parsed.title = sessionTitle(typeof session?.name === "string" ? session.name : undefined, parsed.turns);
  return parsed;
}

/** A tool result's text: the content items' texts (the newer `{content: [...]}` or the older array). */
function resultText(toolResult: Record<string, any> | undefined): string {
  if (!toolResult) return "";
  if (toolResult.status === "error") return actText(toolResult.error);
  const value = toolResult.value;
  const content = Array.isArray(value) ? value : Array.isArray(value?.content) ? value.content : [];
  const texts = content.filter((c: any) => typeof c?.text === "string").map((c: any) => c.text as string);
  return texts.length ? texts.join("\n") : actText(value);
}

/** What happened in a session (capture/use.ts): prompts, the agent's words, tool calls and their results. */
export function gooseActivity(text: string): Act[] {
  const acts: Act[] = [];
  const toolNames = new Map<string, string>();
  for (const m of docOf(text).messages) {
    const at = msOf(m.created);
    for (const c of items(m)) {
      if (c.type === "text" && typeof c.text === "string") {
        if (m.metadata?.userVisible === false) continue;
        if (m.role === "assistant") acts.push({ kind: "say", text: c.text, at });
        else if (m.role === "user") {
          const typed = cleanText(c.text);
          if (typed) acts.push({ kind: "prompt", text: typed, at });
        }
      } else if (c.type === "toolRequest") {
        const call = c.toolCall?.status === "success" ? c.toolCall.value : undefined;
        const tool = typeof call?.name === "string" ? call.name : "";
        if (typeof c.id === "string") toolNames.set(c.id, tool);
        acts.push({ kind: "tool", text: actText(call?.arguments), at, tool });
      } else if (c.type === "toolResponse") {
        const tool = typeof c.id === "string" ? toolNames.get(c.id) : undefined;
        acts.push({ kind: "result", text: resultText(c.toolResult), at, ...(tool ? { tool } : {}) });
      }
    }
  }
  return acts;
}
