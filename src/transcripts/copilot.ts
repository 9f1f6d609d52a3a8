/**
 * GitHub Copilot CLI sessions: `~/.copilot/session-state/<session id>/events.jsonl` (`COPILOT_HOME`
 * moves `~/.copilot`), one event a line: `{type, data, id, timestamp, parentId}`. `session.start`
 * carries `data.sessionId`, `data.startTime` and `data.context.cwd`; `user.message` `data.content`
 * is what the user typed (`transformedContent` adds the date and hook context); `assistant.message`
 * `data.content` the model's words (empty when it only called tools; `parentToolCallId` marks a
 * subagent's). A resumed session appends to the same file (`session.resume`); `hook.start` /
 * `hook.end` record every hook's input and output, Coffer's context included, and are not
 * conversation. Observed with Copilot CLI 1.0.102 (docs/hosts-observed.md).
 */
import { isAbsolute, join } from "node:path";
import { homeDir } from "../lib/paths";
import { cleanText } from "./clean";
import { entries, fileStat, jsonObject, readHeadLines, type SessionFile, type SessionHead } from "./files";
import { isoOrUndefined, type ParsedTranscript, sessionTitle, widen } from "./types";

export function copilotRoot(): string {
  return join(process.env.COPILOT_HOME || join(homeDir(), ".copilot"), "session-state");
}

/** One `events.jsonl` per session folder (the folder is named after the session id). */
export function listCopilotSessions(): SessionFile[] {
  const root = copilotRoot();
  const out: SessionFile[] = [];
  for (const id of entries(root)) {
    const path = join(root, id, "events.jsonl");
    const st = fileStat(path);
    if (st) out.push({ host: "copilot", path, session_id: id, ...st });
  }
  return out;
}

function applyStart(head: SessionHead, data: Record<string, any>): void {
  if (typeof data.sessionId === "string") head.session_id ??= data.sessionId;
  if (typeof data.startTime === "string") head.first_activity ??= data.startTime;
  const cwd = data.context?.cwd;
  if (typeof cwd === "string" && isAbsolute(cwd)) head.cwd ??= cwd;
}

export function copilotHead(path: string): SessionHead {
  const head: SessionHead = {};
  const scan = (lines: string[]) => {
    for (const line of lines.slice(0, 5)) {
      const r = jsonObject(line);
      if (r?.type === "session.start" && r.data && typeof r.data === "object") {
        applyStart(head, r.data);
        return true;
      }
    }
    return false;
  };
  scan(readHeadLines(path, scan));
  return head;
}

export function parseCopilot(text: string): ParsedTranscript {
  const parsed: ParsedTranscript = { host: "copilot", title: "", turns: [] };
  const head: SessionHead = {};
  for (const line of text.split("\n")) {
    if (line.length < 2) continue;
    const r = jsonObject(line);
    if (!r?.data || typeof r.data !== "object") continue;
    widen(parsed, r.timestamp);
    if (r.type === "session.start") applyStart(head, r.data);
    const role = r.type === "user.message" ? "user" : r.type === "assistant.message" ? "assistant" : undefined;
    if (!role || typeof r.data.content !== "string" || r.data.parentToolCallId) continue;
    const cleaned = cleanText(r.data.content);
    if (cleaned) parsed.turns.push({ role, text: cleaned, at: isoOrUndefined(r.timestamp) });
  }
  if (head.session_id) parsed.session_id = head.session_id;
  if (head.cwd) parsed.cwd = head.cwd;
  parsed.title = sessionTitle(undefined, parsed.turns);
  return parsed;
}

type CopilotAct = { kind: "prompt" | "say" | "tool" | "result"; text: string; at?: number; tool?: string };

const asText = (v: unknown): string =>
  typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);

/**
 * A Copilot CLI session as acts: typed prompts, the model's words, its tool requests
 * (`assistant.message` `toolRequests`) and the tools' results (`tool.execution_complete`).
 */
export function copilotActivity(text: string): CopilotAct[] {
  const acts: CopilotAct[] = [];
  const toolOf = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.length < 2) continue;
    const r = jsonObject(line);
    const d = r?.data;
    if (!d || typeof d !== "object" || d.parentToolCallId) continue;
    const ms = typeof r.timestamp === "string" ? Date.parse(r.timestamp) : Number.NaN;
    const at = Number.isFinite(ms) ? ms : undefined;
    if (r.type === "user.message" && typeof d.content === "string") {
      const t = cleanText(d.content);
      if (t) acts.push({ kind: "prompt", text: t, at });
    } else if (r.type === "assistant.message") {
      if (typeof d.content === "string" && d.content.trim()) acts.push({ kind: "say", text: d.content, at });
      for (const q of Array.isArray(d.toolRequests) ? d.toolRequests : []) {
        const tool = typeof q?.name === "string" ? q.name : "";
        if (typeof q?.toolCallId === "string") toolOf.set(q.toolCallId, tool);
        acts.push({ kind: "tool", text: asText(q?.arguments), at, tool });
      }
    } else if (r.type === "tool.execution_complete") {
      const tool = toolOf.get(d.toolCallId) ?? "";
      acts.push({ kind: "result", text: asText(d.result?.content ?? d.result), at, tool });
    }
  }
  return acts;
}
