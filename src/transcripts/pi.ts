/**
 * Pi sessions: `~/.pi/agent/sessions/--<cwd with "/" as "-">--/<timestamp>_<uuid>.jsonl`
 * (`$PI_CODING_AGENT_DIR` moves `~/.pi/agent`), one entry per line: a header
 * `{type: "session", version: 3, id, timestamp, cwd}`, then entries with `id`/`parentId` forming a
 * tree (branching in place): `message` entries carry `{role: user|assistant|toolResult|custom|…,
 * content: [text|thinking|toolCall|image blocks]}`. The conversation is the branch that ends at the
 * last entry. Coffer's context goes into the system prompt, which is not kept; a path trigger's sits in a
 * `toolResult` message, which is not a turn. Observed with 0.73.1.
 *
 * oh-my-pi (`omp`, 18.2.3) keeps the same files under `~/.omp/agent/sessions/` (`$PI_CODING_AGENT_DIR`
 * moves both), with one more record first: `{type: "title", v, title}`. They are read as Pi's.
 */
import { isAbsolute, join } from "node:path";
import { envDir } from "../hosts/link";
import { homeDir } from "../lib/paths";
import { cleanText } from "./clean";
import { entries, filesIn, jsonObject, readHeadLines, type SessionFile, type SessionHead } from "./files";
import { type Act, actText, atMs, isoOrUndefined, type ParsedTranscript, sessionTitle, widen } from "./types";

/** `$PI_CODING_AGENT_DIR` as Pi and omp resolve it (a leading `~/` is home). */
const movedAgentDir = () => envDir("PI_CODING_AGENT_DIR", homeDir(), true);

export function piRoot(): string {
  return join(movedAgentDir() ?? join(homeDir(), ".pi", "agent"), "sessions");
}

/** oh-my-pi's sessions folder (the same as Pi's when `$PI_CODING_AGENT_DIR` is set). */
function ompRoot(): string | undefined {
  return movedAgentDir() ? undefined : join(homeDir(), ".omp", "agent", "sessions");
}

export function listPiSessions(): SessionFile[] {
  const out: SessionFile[] = [];
  for (const root of [piRoot(), ompRoot()]) {
    if (!root) continue;
    for (const dir of entries(root)) {
      for (const f of filesIn(join(root, dir), (n) => n.endsWith(".jsonl"))) {
        const session_id = /_([0-9a-f-]{36})\.jsonl$/.exec(f.name)?.[1] ?? f.name.slice(0, -".jsonl".length);
        out.push({ host: "pi", path: f.path, session_id, size: f.size, mtimeMs: f.mtimeMs });
      }
    }
  }
  return out;
}

export function piHead(path: string): SessionHead {
  // omp's title record comes before the header.
  const lines = readHeadLines(path, (ls) => ls.length > 1 || (ls.length === 1 && !ls[0]!.includes('"title"')));
  const h = lines
    .slice(0, 2)
    .map((l) => jsonObject(l))
    .find((r) => r?.type !== "title");
  if (h?.type !== "session") return {};
  return {
    ...(typeof h.id === "string" ? { session_id: h.id } : {}),
    ...(typeof h.cwd === "string" && isAbsolute(h.cwd) ? { cwd: h.cwd } : {}),
    ...(isoOrUndefined(h.timestamp) ? { first_activity: h.timestamp } : {}),
  };
}

/** The header, and the entries of the branch that ends at the last entry, in order. */
function branch(text: string): { header?: Record<string, any>; path: Record<string, any>[] } {
  let header: Record<string, any> | undefined;
  const byId = new Map<string, Record<string, any>>();
  let last: Record<string, any> | undefined;
  for (const line of text.split("\n")) {
    if (line.length < 2) continue;
    const r = jsonObject(line);
    if (!r) continue;
    if (r.type === "session") {
      header ??= r;
      continue;
    }
    if (r.type === "title") continue; // omp's
    if (typeof r.id === "string") byId.set(r.id, r);
    last = r;
  }
  const path: Record<string, any>[] = [];
  const seen = new Set<string>();
  for (let e = last; e && !seen.has(e.id); e = typeof e.parentId === "string" ? byId.get(e.parentId) : undefined) {
    seen.add(e.id);
    path.push(e);
  }
  return { header, path: path.reverse() };
}

/** Text blocks of a message's content (thinking, tool calls and images are not text). */
function texts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((b) => b?.type === "text" && typeof b.text === "string").map((b) => b.text as string);
}

export function parsePi(text: string): ParsedTranscript {
  const parsed: ParsedTranscript = { host: "pi", title: "", turns: [] };
  const { header, path } = branch(text);
  if (typeof header?.id === "string") parsed.session_id = header.id;
  if (typeof header?.cwd === "string" && isAbsolute(header.cwd)) parsed.cwd = header.cwd;
  widen(parsed, header?.timestamp);
  let name: string | undefined;
  for (const e of path) {
    widen(parsed, e.timestamp);
    if (e.type === "session_info" && typeof e.name === "string") name = e.name;
    if (e.type !== "message" || !e.message) continue;
    const role = e.message.role === "user" ? "user" : e.message.role === "assistant" ? "assistant" : undefined;
    if (!role) continue;
    const cleaned = texts(e.message.content).map(cleanText).filter(Boolean).join("\n\n");
    if (cleaned) parsed.turns.push({ role, text: cleaned, at: isoOrUndefined(e.timestamp) });
  }
  parsed.title = sessionTitle(name, parsed.turns);
  return parsed;
}

/** A Pi session as acts: prompts, the assistant's text, its `toolCall` blocks and `toolResult` messages. */
export function piActivity(text: string): Act[] {
  const acts: Act[] = [];
  for (const e of branch(text).path) {
    const m = e.type === "message" ? e.message : undefined;
    if (!m) continue;
    const at = atMs(e.timestamp);
    if (m.role === "user") {
      for (const t of texts(m.content).map(cleanText).filter(Boolean)) acts.push({ kind: "prompt", text: t, at });
    } else if (m.role === "assistant") {
      for (const t of texts(m.content)) acts.push({ kind: "say", text: t, at });
      for (const b of Array.isArray(m.content) ? m.content : [])
        if (b?.type === "toolCall")
          acts.push({ kind: "tool", text: actText(b.arguments), at, tool: String(b.name ?? "") });
    } else if (m.role === "toolResult") {
      acts.push({ kind: "result", text: texts(m.content).join("\n"), at, tool: String(m.toolName ?? "") });
    }
  }
  return acts;
}
