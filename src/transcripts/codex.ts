/**
 * Codex rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`, lines
 * `{timestamp, type, payload}`. The conversation is recorded more than once: as `response_item`
 * messages (what the model saw, preambles included), as `event_msg` user/agent messages (what the
 * UI showed) and, in newer versions, as `item_completed` items. Each turn is counted once.
 */
import { isAbsolute, join } from "node:path";
import { agentDir } from "../lib/paths";
import { normalizeOrigin } from "../store";
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

export function codexRoot(): string {
  return join(agentDir("codex"), "sessions");
}

const UUID_AT_END = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** Rollout files, skipping whole day directories older than `sinceMs` (a day of slack for time zones). */
export function listCodexSessions(sinceMs?: number): SessionFile[] {
  const root = codexRoot();
  const out: SessionFile[] = [];
  const cutoff = sinceMs !== undefined ? new Date(sinceMs - 86_400_000).toISOString().slice(0, 10) : "";
  for (const y of entries(root).filter((n) => /^\d{4}$/.test(n))) {
    for (const m of entries(join(root, y)).filter((n) => /^\d{2}$/.test(n))) {
      for (const d of entries(join(root, y, m)).filter((n) => /^\d{2}$/.test(n))) {
        if (cutoff && `${y}-${m}-${d}` < cutoff) continue;
        for (const f of filesIn(join(root, y, m, d), (n) => n.startsWith("rollout-") && n.endsWith(".jsonl"))) {
          const id = UUID_AT_END.exec(f.name)?.[1] ?? f.name.slice(0, -".jsonl".length);
          out.push({ host: "codex", path: f.path, session_id: id, size: f.size, mtimeMs: f.mtimeMs });
        }
      }
    }
  }
  return out;
}

/** `session_meta` (new format) or the bare first line of a legacy rollout. */
function metaOf(r: Record<string, any>): Record<string, any> | undefined {
  if (r.type === "session_meta" && r.payload && typeof r.payload === "object") return r.payload;
  if (r.type === undefined && typeof r.id === "string" && typeof r.timestamp === "string") return r; // legacy header
  return undefined;
}

function applyMeta(target: SessionHead, meta: Record<string, any>): void {
  if (typeof meta.id === "string") target.session_id ??= meta.id;
  if (typeof meta.cwd === "string" && isAbsolute(meta.cwd)) target.cwd ??= meta.cwd;
  if (typeof meta.timestamp === "string") target.first_activity ??= meta.timestamp;
  const url = meta.git?.repository_url;
  if (typeof url === "string" && url) target.origin ??= normalizeOrigin(url);
  if (meta.source && typeof meta.source === "object" && "subagent" in meta.source) target.subagent ??= true;
}

export function codexHead(path: string): SessionHead {
  const head: SessionHead = {};
  const scan = (lines: string[]) => {
    for (const line of lines.slice(0, 3)) {
      const r = jsonObject(line);
      const meta = r && metaOf(r);
      if (meta) {
        applyMeta(head, meta);
        return true;
      }
    }
    return false;
  };
  scan(readHeadLines(path, scan, 4 << 20)); // session_meta can carry long base instructions
  return head;
}

/** Texts of a message's content blocks (`input_text`, `output_text`, `text`); images are not text. */
function blockTexts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content
    .filter(
      (b) =>
        b &&
        typeof b === "object" &&
        /^(?:input_text|output_text|text)$/i.test(String(b.type)) &&
        typeof b.text === "string",
    )
    .map((b) => b.text as string);
}

/**
 * A response item that is a message: `"type": "message"`, or (older Codex versions) no `type`
 * at all, just `role` and `content`. Other typed items (tool calls, reasoning, inter-agent
 * `agent_message`s) are not conversation.
 */
function isMessage(p: Record<string, any>): boolean {
  if (p.type === "message") return true;
  return p.type === undefined && typeof p.role === "string" && p.content !== undefined;
}

export function parseCodex(text: string): ParsedTranscript {
  const parsed: ParsedTranscript = { host: "codex", title: "", turns: [] };
  const head: SessionHead = {};
  let metaSeen = false; // the first session_meta is this session's; later ones describe forks/subagents
  let threadName: string | undefined;
  // Duplicates of a turn arrive close together and before the other role speaks again:
  // a text is skipped when the current run of same-role turns already has it.
  let runRole: Role | undefined;
  let run = new Set<string>();
  const add = (role: Role, texts: string[], at: unknown) => {
    const cleaned = texts.map(cleanText).filter(Boolean).join("\n\n");
    if (!cleaned) return;
    const key = cleaned.replace(/\s+/g, " ");
    if (role !== runRole) {
      runRole = role;
      run = new Set();
    }
    if (run.has(key)) return;
    run.add(key);
    parsed.turns.push({ role, text: cleaned, at: isoOrUndefined(at) });
  };

  for (const line of text.split("\n")) {
    if (line.length < 2) continue;
    const r = jsonObject(line);
    if (!r) continue;
    const meta = metaOf(r);
    if (meta) {
      if (!metaSeen) applyMeta(head, meta);
      metaSeen = true;
      widen(parsed, meta.timestamp);
      continue;
    }
    widen(parsed, r.timestamp);
    // Legacy rollouts store response items bare, without the {type, payload} envelope.
    const p = r.payload && typeof r.payload === "object" ? r.payload : r.type === "message" ? r : undefined;
    if (!p) continue;
    const kind = r.payload ? r.type : "response_item";
    if (kind === "response_item" && isMessage(p)) {
      // developer/system messages are instructions and injected context, never conversation
      if (p.role === "user" || p.role === "assistant") add(p.role, blockTexts(p.content), r.timestamp);
    } else if (kind === "event_msg") {
      if (p.type === "user_message" && typeof p.message === "string") {
        if (p.kind === undefined || p.kind === "plain") add("user", [p.message], r.timestamp);
      } else if (p.type === "agent_message" && typeof p.message === "string") {
        add("assistant", [p.message], r.timestamp);
      } else if (p.type === "thread_name_updated" && typeof p.thread_name === "string") {
        threadName = p.thread_name;
      } else if (p.type === "item_completed" && p.item && typeof p.item === "object") {
        if (p.item.type === "UserMessage") add("user", blockTexts(p.item.content), r.timestamp);
        else if (p.item.type === "AgentMessage") add("assistant", blockTexts(p.item.content), r.timestamp);
      }
    }
  }
  Object.assign(parsed, { session_id: head.session_id, cwd: head.cwd, origin: head.origin, subagent: head.subagent });
  if (head.first_activity) widen(parsed, head.first_activity);
  parsed.title = sessionTitle(threadName, parsed.turns);
  return parsed;
}

/**
 * A Codex rollout as acts: typed prompts (user messages cleaned of injected context; developer
 * messages are instructions), the agent's messages, its tool calls (function, custom and shell
 * calls, patches, MCP invocations as `<server>__<tool>`) and what they returned.
 */
export function codexActivity(text: string): Act[] {
  const acts: Act[] = [];
  const toolNames = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.length < 2) continue;
    const r = jsonObject(line);
    if (!r || metaOf(r)) continue;
    const at = atMs(r.timestamp);
    const p = r.payload && typeof r.payload === "object" ? r.payload : r.type === "message" ? r : undefined;
    if (!p) continue;
    const kind = r.payload ? r.type : "response_item";
    const callId = typeof p.call_id === "string" ? p.call_id : undefined;
    if (kind === "response_item") {
      if (isMessage(p)) {
        const texts = blockTexts(p.content);
        if (p.role === "assistant") for (const t of texts) acts.push({ kind: "say", text: t, at });
        else if (p.role === "user")
          for (const t of texts.map(cleanText).filter(Boolean)) acts.push({ kind: "prompt", text: t, at });
      } else if (p.type === "function_call" || p.type === "custom_tool_call" || p.type === "local_shell_call") {
        const tool = typeof p.name === "string" ? p.name : "shell";
        if (callId) toolNames.set(callId, tool);
        acts.push({ kind: "tool", text: actText(p.arguments ?? p.input ?? p.action), at, tool });
      } else if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
        acts.push({ kind: "result", text: actText(p.output), at, tool: callId && toolNames.get(callId) });
      }
    } else if (kind === "event_msg") {
      if (p.type === "agent_message" && typeof p.message === "string") acts.push({ kind: "say", text: p.message, at });
      else if (p.type === "mcp_tool_call_end" && p.invocation && typeof p.invocation === "object") {
        const tool = `${p.invocation.server}__${p.invocation.tool}`;
        acts.push({ kind: "tool", text: actText(p.invocation.arguments), at, tool });
        acts.push({ kind: "result", text: actText(p.result), at, tool });
      } else if (p.type === "patch_apply_end" && p.changes && typeof p.changes === "object") {
        acts.push({ kind: "tool", text: Object.keys(p.changes).join("\n"), at, tool: "apply_patch" });
      }
    }
  }
  return acts;
}
