/**
 * Gemini CLI sessions: `~/.gemini/tmp/<project>/chats/session-*.json` (one document with
 * `messages`) or `.jsonl` (a header line, then messages, `{"$set": ...}` metadata updates and
 * `{"$rewindTo": id}` rewinds; the last copy of a message id wins; a resume appends a second
 * header). Hook context sits inside user content as `<hook_context>…</hook_context>`. `<project>` is a short slug
 * (with a `.project_root` marker and `~/.gemini/projects.json`) or, in older versions, sha256 of
 * the project path.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { sha256 } from "../lib/hash";
import { agentDir } from "../lib/paths";
import { cleanText } from "./clean";
import { entries, filesIn, jsonObject, readHeadLines, type SessionFile, type SessionHead } from "./files";
import {
  type Act,
  actText,
  atMs,
  isoOrUndefined,
  type ParsedTranscript,
  type Role,
  sessionTitle,
  widen,
} from "./types";

export function geminiHome(): string {
  return agentDir("gemini");
}

export function geminiRoot(): string {
  return join(geminiHome(), "tmp");
}

/** Top-level chat files of every project directory (subagent chats live one level deeper). */
export function listGeminiSessions(): SessionFile[] {
  const root = geminiRoot();
  const out: SessionFile[] = [];
  for (const dir of entries(root)) {
    const files = filesIn(join(root, dir, "chats"), (n) => n.startsWith("session-") && /\.jsonl?$/.test(n));
    const jsonl = new Set(files.filter((f) => f.name.endsWith(".jsonl")).map((f) => f.name.slice(0, -1)));
    for (const f of files) {
      if (f.name.endsWith(".json") && jsonl.has(f.name)) continue; // migrated to .jsonl on resume
      const id = geminiHead(f.path).session_id ?? f.name.replace(/\.jsonl?$/, "");
      out.push({ host: "gemini", path: f.path, session_id: id, size: f.size, mtimeMs: f.mtimeMs });
    }
  }
  return out;
}

/** The project path a `tmp/<dir>` belongs to: its `.project_root` marker, else projects.json, else a hash match. */
export function geminiProjectPath(chatFile: string): string | undefined {
  const projectDir = dirname(dirname(chatFile));
  try {
    const marker = readFileSync(join(projectDir, ".project_root"), "utf8").trim();
    if (isAbsolute(marker)) return marker;
  } catch {}
  const slug = basename(projectDir);
  let registry: Record<string, string> = {};
  try {
    const doc = JSON.parse(readFileSync(join(geminiHome(), "projects.json"), "utf8"));
    if (doc && typeof doc.projects === "object") registry = doc.projects;
  } catch {}
  for (const [path, id] of Object.entries(registry)) {
    if (id === slug) return path;
    if (/^[0-9a-f]{64}$/.test(slug) && sha256(path) === slug) return path;
  }
  return undefined;
}

export function geminiHead(path: string): SessionHead {
  const head: SessionHead = {};
  const lines = readHeadLines(path, (ls) => ls.some((l) => /"sessionId"\s*:/.test(l)));
  const first = lines[0] ? jsonObject(lines[0]) : undefined;
  if (first && typeof first.sessionId === "string") {
    head.session_id = first.sessionId;
    if (typeof first.startTime === "string") head.first_activity = first.startTime;
    if (first.kind === "subagent") head.subagent = true;
  } else {
    // A legacy single-document file: pick the fields out of its first bytes.
    const text = lines.join("\n");
    head.session_id = /"sessionId"\s*:\s*"([^"]+)"/.exec(text)?.[1];
    head.first_activity = /"startTime"\s*:\s*"([^"]+)"/.exec(text)?.[1];
  }
  head.cwd = geminiProjectPath(path);
  return head;
}

/** The text parts of Gemini content (Qwen Code's too), thoughts left out. */
export function partTexts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  // text parts only: functionCall/functionResponse/inlineData/fileData are tool traffic and files
  return content
    .filter((p) => p && typeof p === "object" && typeof p.text === "string" && !p.thought)
    .map((p) => p.text as string);
}

function roleOf(type: unknown): Role | undefined {
  return type === "user" ? "user" : type === "gemini" || type === "model" ? "assistant" : undefined;
}

/** The session's header fields and its messages as they stand after rewinds, re-syncs and rewrites. */
function geminiMessages(text: string): { meta: Record<string, any>; messages: Record<string, any>[] } {
  let meta: Record<string, any> = {};
  let messages: Record<string, any>[] = [];
  // A single document parses whole; a .jsonl file fails fast at its second line.
  const doc = text.trimStart().startsWith("{") ? jsonObject(text) : undefined;
  if (doc && Array.isArray(doc.messages)) {
    meta = doc;
    messages = doc.messages.filter((m: unknown) => m && typeof m === "object");
  } else {
    const byId = new Map<string, Record<string, any>>();
    for (const line of text.split("\n")) {
      if (line.length < 2) continue;
      const r = jsonObject(line);
      if (!r) continue;
      if (typeof r.$rewindTo === "string") {
        // Drop the rewound message and everything after it.
        let found = false;
        for (const id of [...byId.keys()]) {
          if (id === r.$rewindTo) found = true;
          if (found) byId.delete(id);
        }
        if (!found) byId.clear();
      } else if (r.$set && typeof r.$set === "object") {
        // `$set.messages` re-syncs the whole list (masking, compression): an update of each
        // message it names, never a deletion, so turns before a compression stay readable.
        const { messages: synced, ...rest } = r.$set;
        meta = { ...meta, ...rest };
        if (Array.isArray(synced)) for (const m of synced) if (m && typeof m.id === "string") byId.set(m.id, m);
      } else if (typeof r.id === "string") {
        byId.set(r.id, r); // last copy wins, first position kept
      } else if (typeof r.sessionId === "string") {
        meta = { ...meta, ...r };
      }
    }
    messages = [...byId.values()];
  }
  return { meta, messages };
}

export function parseGemini(text: string): ParsedTranscript {
  const parsed: ParsedTranscript = { host: "gemini", title: "", turns: [] };
  const { meta, messages } = geminiMessages(text);
  if (typeof meta.sessionId === "string") parsed.session_id = meta.sessionId;
  if (meta.kind === "subagent") parsed.subagent = true;
  widen(parsed, meta.startTime);
  widen(parsed, meta.lastUpdated);
  for (const m of messages) {
    widen(parsed, m.timestamp);
    const role = roleOf(m.type);
    if (!role) continue; // info / error / warning notices
    // What the user typed (displayContent) rather than the prompt with @file contents pasted in.
    const source =
      role === "user" && m.displayContent !== undefined && partTexts(m.displayContent).join("").trim()
        ? m.displayContent
        : (m.content ?? m.parts); // `parts`: a message kept in the API's own Content shape
    const cleaned = partTexts(source).map(cleanText).filter(Boolean).join("\n\n");
    if (cleaned) parsed.turns.push({ role, text: cleaned, at: isoOrUndefined(m.timestamp) });
  }
  parsed.title = sessionTitle(typeof meta.summary === "string" ? meta.summary : undefined, parsed.turns);
  return parsed;
}

/**
 * A Gemini CLI chat as acts: typed prompts (what the user typed, cleaned), the model's text
 * (thoughts left out), its tool calls (`toolCalls` with their results, or `functionCall` parts).
 */
export function geminiActivity(text: string): Act[] {
  const acts: Act[] = [];
  for (const m of geminiMessages(text).messages) {
    const at = atMs(m.timestamp);
    const role = roleOf(m.type);
    if (role === "user") {
      const source =
        m.displayContent !== undefined && partTexts(m.displayContent).join("").trim()
          ? m.displayContent
          : (m.content ?? m.parts);
      for (const t of partTexts(source).map(cleanText).filter(Boolean)) acts.push({ kind: "prompt", text: t, at });
      continue;
    }
    if (role !== "assistant") continue;
    for (const t of partTexts(m.content ?? m.parts)) acts.push({ kind: "say", text: t, at });
    const parts = Array.isArray(m.content) ? m.content : Array.isArray(m.parts) ? m.parts : [];
    for (const p of parts)
      if (p?.functionCall && typeof p.functionCall === "object")
        acts.push({ kind: "tool", text: actText(p.functionCall.args), at, tool: String(p.functionCall.name ?? "") });
    for (const c of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
      if (!c || typeof c !== "object") continue;
      const tool = typeof c.name === "string" ? c.name : "";
      const callAt = atMs(c.timestamp) ?? at;
      acts.push({ kind: "tool", text: actText(c.args), at: callAt, tool });
      if (c.result !== undefined) acts.push({ kind: "result", text: actText(c.result), at: callAt, tool });
    }
  }
  return acts;
}
