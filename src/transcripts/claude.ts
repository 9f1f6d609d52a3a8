/**
 * Claude Code transcripts: `~/.claude/projects/<cwd as dashes>/<sessionId>.jsonl`, one record per
 * line. Conversation lives in `user`/`assistant` records whose `message.content` is a string or a
 * list of blocks; everything else (attachments such as hook output, progress, snapshots, system
 * records, titles) is metadata or noise.
 */
import { isAbsolute, join } from "node:path";
import { agentDir } from "../lib/paths";
import { cleanText } from "./clean";
import { entries, filesIn, jsonObject, readHeadLines, type SessionFile, type SessionHead } from "./files";
import {
  type Act,
  actText,
  atMs,
  isoOrUndefined,
  type ParsedTranscript,
  sessionTitle,
  type Turn,
  widen,
} from "./types";

export function claudeRoot(): string {
  return join(agentDir("claude"), "projects");
}

/** Top-level session files only: subagent transcripts live in `<session>/subagents/` (or `agent-*.jsonl` in old versions). */
export function listClaudeSessions(): SessionFile[] {
  const root = claudeRoot();
  const out: SessionFile[] = [];
  for (const dir of entries(root)) {
    for (const f of filesIn(join(root, dir), (n) => n.endsWith(".jsonl") && !n.startsWith("agent-"))) {
      out.push({
        host: "claude",
        path: f.path,
        session_id: f.name.slice(0, -".jsonl".length),
        size: f.size,
        mtimeMs: f.mtimeMs,
      });
    }
  }
  return out;
}

export function claudeHead(path: string): SessionHead {
  const head: SessionHead = {};
  const scan = (lines: string[]) => {
    for (const line of lines) {
      const r = jsonObject(line);
      if (!r) continue;
      if (!head.session_id && typeof r.sessionId === "string") head.session_id = r.sessionId;
      if (!head.cwd && typeof r.cwd === "string" && isAbsolute(r.cwd)) head.cwd = r.cwd;
      if (!head.first_activity && typeof r.timestamp === "string" && /^\d{4}-/.test(r.timestamp))
        head.first_activity = r.timestamp;
    }
    return Boolean(head.cwd);
  };
  scan(readHeadLines(path, scan));
  return head;
}

/** Text of the natural-language blocks of a message; tool use/results, thinking and images are not text. */
function messageText(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const block of content) {
    if (block && typeof block === "object" && block.type === "text" && typeof block.text === "string")
      out.push(block.text);
  }
  return out;
}

/** A record that is part of the conversation (not a tool result, subagent, meta or synthetic record). */
function isConversation(r: Record<string, any>): boolean {
  if (r.type !== "user" && r.type !== "assistant") return false;
  if (r.isMeta || r.isCompactSummary || r.isSidechain || r.isVisibleInTranscriptOnly || r.isApiErrorMessage)
    return false;
  if (r.toolUseResult !== undefined) return false; // the record that carries a tool's output
  const m = r.message;
  if (!m || typeof m !== "object") return false;
  if (m.model === "<synthetic>") return false; // "No response requested." and the like
  // A background task's result handed to the model as a user message: nobody typed it.
  if (r.type === "user" && r.origin && typeof r.origin === "object" && r.origin.kind === "task-notification")
    return false;
  return true;
}

export function parseClaude(text: string): ParsedTranscript {
  const parsed: ParsedTranscript = { host: "claude", title: "", turns: [] };
  const titles: { custom?: string; ai?: string; summary?: string } = {};
  // Claude Code writes one record per content block; blocks of one API message share its id.
  let lastId: string | undefined;
  for (const line of text.split("\n")) {
    if (line.length < 2) continue;
    const r = jsonObject(line);
    if (!r) continue; // unknown, malformed or a truncated last line
    switch (r.type) {
      case "custom-title":
        if (typeof r.customTitle === "string") titles.custom = r.customTitle;
        continue;
      case "ai-title":
        if (typeof r.aiTitle === "string") titles.ai = r.aiTitle;
        continue;
      case "summary":
        if (typeof r.summary === "string") titles.summary ??= r.summary;
        continue;
    }
    if (!parsed.session_id && typeof r.sessionId === "string") parsed.session_id = r.sessionId;
    if (!parsed.cwd && typeof r.cwd === "string" && isAbsolute(r.cwd)) parsed.cwd = r.cwd;
    widen(parsed, r.timestamp);
    if (!isConversation(r)) continue;
    const role = r.type as Turn["role"];
    const text = messageText(r.message.content).map(cleanText).filter(Boolean).join("\n\n");
    if (!text) continue;
    const id = typeof r.message.id === "string" ? r.message.id : undefined;
    const last = parsed.turns[parsed.turns.length - 1];
    if (id && id === lastId && last?.role === role) last.text += `\n\n${text}`;
    else parsed.turns.push({ role, text, at: isoOrUndefined(r.timestamp) });
    lastId = id;
  }
  parsed.title = sessionTitle(titles.custom || titles.ai || titles.summary, parsed.turns);
  return parsed;
}

/**
 * A Claude Code session as acts: typed prompts (cleaned of injected context), the assistant's text,
 * its tool calls (`tool_use` input) and their results (`tool_result`, named by the call they answer).
 */
export function claudeActivity(text: string): Act[] {
  const acts: Act[] = [];
  const toolNames = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.length < 2) continue;
    const r = jsonObject(line);
    if (!r || (r.type !== "user" && r.type !== "assistant") || r.isSidechain) continue;
    const m = r.message;
    if (!m || typeof m !== "object" || m.model === "<synthetic>") continue;
    const at = atMs(r.timestamp);
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (!Array.isArray(blocks)) continue;
    for (const b of blocks) {
      if (!b || typeof b !== "object") continue;
      if (b.type === "text" && typeof b.text === "string") {
        if (r.type === "assistant") acts.push({ kind: "say", text: b.text, at });
        else if (!r.isMeta && !r.isCompactSummary && r.toolUseResult === undefined) {
          const typed = cleanText(b.text);
          if (typed) acts.push({ kind: "prompt", text: typed, at });
        }
      } else if (b.type === "tool_use" && r.type === "assistant") {
        const tool = typeof b.name === "string" ? b.name : "";
        if (typeof b.id === "string") toolNames.set(b.id, tool);
        acts.push({ kind: "tool", text: actText(b.input), at, tool });
      } else if (b.type === "tool_result") {
        const tool = typeof b.tool_use_id === "string" ? toolNames.get(b.tool_use_id) : undefined;
        acts.push({ kind: "result", text: actText(b.content), at, tool });
      }
    }
  }
  return acts;
}
