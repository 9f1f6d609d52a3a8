/**
 * Kimi Code sessions: `~/.kimi-code/sessions/<workdir key>/<session id>/agents/main/wire.jsonl`
 * (`KIMI_CODE_HOME` moves `~/.kimi-code`), beside `state.json` (`id`, `cwd`, `createdAt` in ms).
 * The wire log records everything (streamed `content.part` events, requests, usage); the
 * conversation is read from its `agent.message.appended` records: `{message: {message: {role,
 * content: [{type: "text"|"think", text}]}, meta: {source: "input"|"llm", origin}}, time}`. A
 * user record is what was typed; Kimi keeps hook output (`<hook_result>`) and its reminders as
 * separate context messages, not as these. Subagents write `agents/<name>/wire.jsonl`: not
 * listed. Observed with Kimi Code 2.1.0 (docs/hosts-observed.md).
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { homeDir } from "../lib/paths";
import { cleanText } from "./clean";
import { entries, fileStat, jsonObject, type SessionFile, type SessionHead } from "./files";
import { type Act, actText, type ParsedTranscript, type Role, sessionTitle, widen } from "./types";

export function kimiRoot(): string {
  return join(process.env.KIMI_CODE_HOME || join(homeDir(), ".kimi-code"), "sessions");
}

export function listKimiSessions(): SessionFile[] {
  const root = kimiRoot();
  const out: SessionFile[] = [];
  for (const wd of entries(root)) {
    if (wd.startsWith(".")) continue;
    for (const id of entries(join(root, wd))) {
      const path = join(root, wd, id, "agents", "main", "wire.jsonl");
      const st = fileStat(path);
      if (st) out.push({ host: "kimi", path, session_id: id, ...st });
    }
  }
  return out;
}

/** `state.json` of the session a wire file belongs to (`<session>/agents/<agent>/wire.jsonl`). */
function stateOf(wirePath: string): Record<string, any> | undefined {
  try {
    return jsonObject(readFileSync(join(dirname(dirname(dirname(wirePath))), "state.json"), "utf8"));
  } catch {
    return undefined;
  }
}

export function kimiHead(path: string): SessionHead {
  const state = stateOf(path);
  const head: SessionHead = {};
  if (typeof state?.id === "string") head.session_id = state.id;
  if (typeof state?.cwd === "string" && isAbsolute(state.cwd)) head.cwd = state.cwd;
  if (typeof state?.createdAt === "number") head.first_activity = new Date(state.createdAt).toISOString();
  return head;
}

/** The cwd of a session, from its `state.json`. */
export function kimiSessionCwd(wirePath: string): string | undefined {
  return kimiHead(wirePath).cwd;
}

export function parseKimi(text: string): ParsedTranscript {
  const parsed: ParsedTranscript = { host: "kimi", title: "", turns: [] };
  for (const line of text.split("\n")) {
    if (!line.includes('"agent.message.appended"')) continue;
    const r = jsonObject(line);
    const m = r?.message?.message;
    if (!m || typeof m !== "object") continue;
    const at = typeof r?.time === "number" ? new Date(r.time).toISOString() : undefined;
    widen(parsed, at);
    const source = r?.message?.meta?.source;
    const role: Role | undefined =
      m.role === "user" && source === "input" ? "user" : m.role === "assistant" ? "assistant" : undefined;
    if (!role || !Array.isArray(m.content)) continue;
    const cleaned = m.content
      .filter((p: any) => p && p.type === "text" && typeof p.text === "string")
      .map((p: any) => cleanText(p.text))
      .filter(Boolean)
      .join("\n\n");
    if (cleaned) parsed.turns.push({ role, text: cleaned, at });
  }
  parsed.title = sessionTitle(undefined, parsed.turns);
  return parsed;
}

/**
 * What happened in a session (capture/use.ts), from the same `agent.message.appended` records:
 * what the user typed (source `input`), what the agent said and its tool calls (`toolCalls`:
 * `{id, name, arguments}` in wire 1.1, `{id, function: {name, arguments}}` before), and tool
 * results (role `tool`, `toolCallId`).
 */
export function kimiActivity(text: string): Act[] {
  const acts: Act[] = [];
  const toolNames = new Map<string, string>();
  const partsText = (content: unknown) =>
    Array.isArray(content)
      ? content
          .filter((p: any) => p && p.type === "text" && typeof p.text === "string")
          .map((p: any) => p.text as string)
          .join("\n")
      : typeof content === "string"
        ? content
        : "";
  for (const line of text.split("\n")) {
    if (!line.includes('"agent.message.appended"')) continue;
    const r = jsonObject(line);
    const m = r?.message?.message;
    if (!m || typeof m !== "object") continue;
    const at = typeof r?.time === "number" ? r.time : undefined;
    if (m.role === "user" && r?.message?.meta?.source === "input") {
      const typed = cleanText(partsText(m.content));
      if (typed) acts.push({ kind: "prompt", text: typed, at });
    } else if (m.role === "assistant") {
      const said = partsText(m.content);
      if (said) acts.push({ kind: "say", text: said, at });
      for (const c of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
        if (!c || typeof c !== "object") continue;
        const tool = String(c.name ?? c.function?.name ?? "");
        if (typeof c.id === "string") toolNames.set(c.id, tool);
        acts.push({ kind: "tool", text: actText(c.arguments ?? c.function?.arguments), at, tool });
      }
    } else if (m.role === "tool") {
      const tool = typeof m.toolCallId === "string" ? toolNames.get(m.toolCallId) : undefined;
      acts.push({ kind: "result", text: partsText(m.content), at, ...(tool ? { tool } : {}) });
    }
  }
  return acts;
}
