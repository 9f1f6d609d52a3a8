/**
 * Kilo Code and OpenCode sessions (one format: Kilo is an OpenCode fork): rows of the SQLite
 * database `$XDG_DATA_HOME/kilo/kilo.db` or `$XDG_DATA_HOME/opencode/opencode.db` (default
 * `~/.local/share`), read through src/store/foreign/kilo.ts. A session has no file of its
 * own, so it is named `<db>#<session id>`; `readKilo` renders its rows as one JSON document
 * (`{session, messages: [{role, time, parts: [...]}]}`), which `parseKilo` and `kiloActivity`
 * read like any transcript text. Parts: `text` (what the user typed, what the agent said;
 * `synthetic` ones are Kilo's own), `tool` (`{tool, state: {status, input, output|error, time}}`),
 * `reasoning`, `step-start`/`step-finish`. Coffer's context sits in the system prompt (not kept) or
 * after a tool's output (not a turn). A session with a `parent_id` is a subagent's. Observed with
 * Kilo 7.7.7 and OpenCode 1.18.33 (docs/hosts-observed.md).
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { homeDir } from "../lib/paths";
import { type KiloSessionRow, kiloConversation, kiloSession, kiloSessions } from "../store";
import { cleanText } from "./clean";
import { jsonObject, type SessionFile, type SessionHead, splitDbSessionPath } from "./files";
import { type Act, actText, type ParsedTranscript, sessionTitle, widen } from "./types";

type Family = "kilo" | "opencode";

const dbOf = (host: Family) =>
  join(process.env.XDG_DATA_HOME?.trim() || join(homeDir(), ".local", "share"), host, `${host}.db`);

export function kiloDb(): string {
  return dbOf("kilo");
}

export function kiloRoot(): string {
  return dirname(kiloDb());
}

export function opencodeRoot(): string {
  return dirname(dbOf("opencode"));
}

const fileOf = (host: Family, db: string, s: KiloSessionRow): SessionFile => ({
  host,
  path: `${db}#${s.id}`,
  session_id: s.id,
  size: s.rows,
  mtimeMs: s.time_updated,
});

function listSessions(host: Family, sinceMs?: number): SessionFile[] {
  const db = dbOf(host);
  const r = kiloSessions(db, sinceMs);
  return r.ok ? r.value.map((s) => fileOf(host, db, s)) : [];
}

/** Why the host's database cannot be read now (undefined: it can, or there is none). */
export function kiloUnreadable(host: Family): string | undefined {
  const db = dbOf(host);
  if (!existsSync(db)) return undefined;
  const r = kiloSessions(db, Number.MAX_SAFE_INTEGER);
  return r.ok ? undefined : r.reason;
}

export const listKiloSessions = (sinceMs?: number) => listSessions("kilo", sinceMs);
export const listOpencodeSessions = (sinceMs?: number) => listSessions("opencode", sinceMs);

/** A session's size (rows) and time of its last change, or undefined when it is not there. */
export function kiloStat(path: string): { size: number; mtimeMs: number } | undefined {
  const at = splitDbSessionPath(path);
  const r = at ? kiloSession(at.db, at.id) : undefined;
  return r?.ok && r.value ? { size: r.value.rows, mtimeMs: r.value.time_updated } : undefined;
}

const iso = (ms: unknown) => (typeof ms === "number" && Number.isFinite(ms) ? new Date(ms).toISOString() : undefined);

export function kiloHead(path: string): SessionHead {
  const at = splitDbSessionPath(path);
  const r = at ? kiloSession(at.db, at.id) : undefined;
  const s = r?.ok ? r.value : undefined;
  if (!s) return at ? { session_id: at.id } : {};
  return {
    session_id: s.id,
    ...(isAbsolute(s.directory) ? { cwd: s.directory } : {}),
    ...(iso(s.time_created) ? { first_activity: iso(s.time_created) } : {}),
    ...(s.parent_id ? { subagent: true } : {}),
  };
}

/** The session's rows as one JSON document; throws (with the reason) when they cannot be read. */
export function readKilo(path: string): string {
  const at = splitDbSessionPath(path);
  if (!at) throw new Error(`not a Kilo or OpenCode session (<db>#<session id>): ${path}`);
  const r = kiloConversation(at.db, at.id);
  if (!r.ok) throw new Error(r.reason);
  if (!r.value) throw new Error(`${at.db} has no session ${at.id}`);
  const { session, messages, parts } = r.value;
  const byMessage = new Map<string, unknown[]>();
  for (const p of parts) {
    const data = jsonObject(p.data);
    if (data) byMessage.set(p.message_id, [...(byMessage.get(p.message_id) ?? []), { ...data, at: p.time_created }]);
  }
  return JSON.stringify({
    session: {
      id: session.id,
      directory: session.directory,
      title: session.title,
      parent_id: session.parent_id,
      version: session.version,
      time_created: session.time_created,
    },
    messages: messages.map((m) => ({ ...jsonObject(m.data), at: m.time_created, parts: byMessage.get(m.id) ?? [] })),
  });
}

type Doc = { session?: Record<string, any>; messages: Record<string, any>[] };

function docOf(text: string): Doc {
  const doc = jsonObject(text);
  const messages = Array.isArray(doc?.messages) ? doc.messages.filter((m: unknown) => m && typeof m === "object") : [];
  return { session: doc?.session && typeof doc.session === "object" ? doc.session : undefined, messages };
}

/** Text parts a person or the model wrote (not Kilo's synthetic or ignored ones). */
function ownTexts(m: Record<string, any>): string[] {
  return (Array.isArray(m.parts) ? m.parts : [])
    .filter((p: any) => p?.type === "text" && typeof p.text === "string" && !p.synthetic && !p.ignored)
    .map((p: any) => p.text as string);
}

/** Kilo's title before one is generated: "New session - <time>" (OpenCode's default). */
const DEFAULT_TITLE = /^(New session|Child session) - \d{4}-/;

function parse(host: Family, text: string): ParsedTranscript {
  const { session, messages } = docOf(text);
  const parsed: ParsedTranscript = { host, title: "", turns: [] };
  if (typeof session?.id === "string") parsed.session_id = session.id;
  if (typeof session?.directory === "string" && isAbsolute(session.directory)) parsed.cwd = session.directory;
  if (session?.parent_id) parsed.subagent = true;
  for (const m of messages) {
    const at = iso(m.time?.created ?? m.at);
    widen(parsed, at);
    const role = m.role === "user" ? "user" : m.role === "assistant" ? "assistant" : undefined;
    if (!role) continue;
    const texts = ownTexts(m).map(cleanText).filter(Boolean);
    if (texts.length) parsed.turns.push({ role, text: texts.join("\n\n"), at });
  }
  const title = typeof session?.title === "string" && !DEFAULT_TITLE.test(session.title) ? session.title : undefined;
  parsed.title = sessionTitle(title, parsed.turns);
  return parsed;
}

export const parseKilo = (text: string) => parse("kilo", text);
export const parseOpencode = (text: string) => parse("opencode", text);

/** What happened in a session (capture/use.ts): prompts, the agent's words, tool calls and their results. */
export function kiloActivity(text: string): Act[] {
  const acts: Act[] = [];
  for (const m of docOf(text).messages) {
    for (const p of Array.isArray(m.parts) ? m.parts : []) {
      if (!p || typeof p !== "object" || p.synthetic || p.ignored) continue;
      const at = typeof p.at === "number" ? p.at : undefined;
      if (p.type === "text" && typeof p.text === "string") {
        if (m.role === "assistant") acts.push({ kind: "say", text: p.text, at });
        else if (m.role === "user") {
          const typed = cleanText(p.text);
          if (typed) acts.push({ kind: "prompt", text: typed, at });
        }
      } else if (p.type === "tool" && typeof p.tool === "string") {
        const state = p.state && typeof p.state === "object" ? p.state : {};
        acts.push({ kind: "tool", text: actText(state.input), at: state.time?.start ?? at, tool: p.tool });
        const out = state.output ?? state.error;
        if (out !== undefined)
          acts.push({ kind: "result", text: actText(out), at: state.time?.end ?? at, tool: p.tool });
      }
    }
  }
  return acts;
}
