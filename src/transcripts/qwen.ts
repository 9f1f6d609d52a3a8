/**
 * Qwen Code sessions: `~/.qwen/projects/<cwd with every non-alphanumeric as "-">/chats/<sessionId>.jsonl`
 * (`$QWEN_HOME` moves `~/.qwen`), one record per line: `{uuid, parentUuid, sessionId, timestamp,
 * type: user|assistant|tool_result|system, cwd, message: {role: user|model, parts}}`. The parts are
 * Gemini's (Qwen Code is a Gemini CLI fork), read by Gemini's own part reader; hook context sits in
 * a user part as `<qwen:user-prompt-submit-context>…</qwen:user-prompt-submit-context>` (cleaned),
 * and `system` records are telemetry, snapshots and titles (`custom_title`); a user record
 * whose `provenance` is not `real_user` was made by Qwen (goals, crons). Observed with 0.24.4.
 */
import { isAbsolute, join } from "node:path";
import { agentDir } from "../lib/paths";
import { cleanText } from "./clean";
import { entries, filesIn, jsonObject, readHeadLines, type SessionFile, type SessionHead } from "./files";
import { partTexts } from "./gemini";
import { type Act, actText, atMs, isoOrUndefined, type ParsedTranscript, sessionTitle, widen } from "./types";

export function qwenRoot(): string {
  return join(agentDir("qwen"), "projects");
}

export function listQwenSessions(): SessionFile[] {
  const root = qwenRoot();
  const out: SessionFile[] = [];
  for (const dir of entries(root)) {
    for (const f of filesIn(join(root, dir, "chats"), (n) => n.endsWith(".jsonl"))) {
      const session_id = f.name.slice(0, -".jsonl".length);
      out.push({ host: "qwen", path: f.path, session_id, size: f.size, mtimeMs: f.mtimeMs });
    }
  }
  return out;
}

export function qwenHead(path: string): SessionHead {
  const head: SessionHead = {};
  const scan = (lines: string[]) => {
    for (const line of lines) {
      const r = jsonObject(line);
      if (!r) continue;
      if (!head.session_id && typeof r.sessionId === "string") head.session_id = r.sessionId;
      if (!head.cwd && typeof r.cwd === "string" && isAbsolute(r.cwd)) head.cwd = r.cwd;
      if (!head.first_activity && isoOrUndefined(r.timestamp)) head.first_activity = r.timestamp;
    }
    return Boolean(head.cwd);
  };
  scan(readHeadLines(path, scan));
  return head;
}

/** The conversation's records, each once (a record Qwen rewrites keeps its uuid). */
function* records(text: string): Generator<Record<string, any>> {
  const seen = new Set<string>();
  for (const line of text.split("\n")) {
    if (line.length < 2) continue;
    const r = jsonObject(line);
    if (!r) continue;
    if (typeof r.uuid === "string") {
      if (seen.has(r.uuid)) continue;
      seen.add(r.uuid);
    }
    yield r;
  }
}

/** A record the user typed: a user record Qwen made itself (goals, crons) has another `provenance`. */
const typedByUser = (r: Record<string, any>) =>
  r.type === "user" && (r.provenance === undefined || r.provenance === "real_user");

export function parseQwen(text: string): ParsedTranscript {
  const parsed: ParsedTranscript = { host: "qwen", title: "", turns: [] };
  let title: string | undefined;
  for (const r of records(text)) {
    if (!parsed.session_id && typeof r.sessionId === "string") parsed.session_id = r.sessionId;
    if (!parsed.cwd && typeof r.cwd === "string" && isAbsolute(r.cwd)) parsed.cwd = r.cwd;
    widen(parsed, r.timestamp);
    if (r.type === "system" && r.subtype === "custom_title" && typeof r.systemPayload?.customTitle === "string")
      title = r.systemPayload.customTitle;
    const role = typedByUser(r) ? "user" : r.type === "assistant" ? "assistant" : undefined;
    if (!role || !r.message || typeof r.message !== "object") continue;
    const cleaned = partTexts(r.message.parts).map(cleanText).filter(Boolean).join("\n\n");
    if (cleaned) parsed.turns.push({ role, text: cleaned, at: isoOrUndefined(r.timestamp) });
  }
  parsed.title = sessionTitle(title, parsed.turns);
  return parsed;
}

/**
 * A Qwen Code session as acts: typed prompts (cleaned of hook context), the model's text (thoughts
 * left out), its `functionCall` parts and the `functionResponse` parts of `tool_result` records.
 */
export function qwenActivity(text: string): Act[] {
  const acts: Act[] = [];
  for (const r of records(text)) {
    const parts: unknown[] = Array.isArray(r.message?.parts) ? r.message.parts : [];
    const at = atMs(r.timestamp);
    if (typedByUser(r)) {
      for (const t of partTexts(parts).map(cleanText).filter(Boolean)) acts.push({ kind: "prompt", text: t, at });
    } else if (r.type === "assistant") {
      for (const t of partTexts(parts)) acts.push({ kind: "say", text: t, at });
      for (const p of parts as Record<string, any>[])
        if (p?.functionCall && typeof p.functionCall === "object")
          acts.push({ kind: "tool", text: actText(p.functionCall.args), at, tool: String(p.functionCall.name ?? "") });
    } else if (r.type === "tool_result") {
      for (const p of parts as Record<string, any>[])
        if (p?.functionResponse && typeof p.functionResponse === "object")
          acts.push({
            kind: "result",
            text: actText(p.functionResponse.response),
            at,
            tool: String(p.functionResponse.name ?? ""),
          });
    }
  }
  return acts;
}
