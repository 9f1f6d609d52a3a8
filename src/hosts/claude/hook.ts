/**
 * Claude Code hooks: stdin fields, native event names, output shapes, payload cap.
 * SessionStart (startup|resume|clear|compact|fork) -> session-start, UserPromptSubmit -> prompt,
 * PreToolUse on Read|Edit|Write|MultiEdit (`tool_input.file_path`) -> tool, PreCompact -> compact,
 * SubagentStart -> subagent-start, SessionEnd -> session-end. Claude keeps additionalContext
 * whole up to 10,000 chars, so Coffer stays at 9,500.
 */
import * as v from "valibot";
import {
  charCount,
  EMPTY_OBJECT,
  type HookEvent,
  type HostAdapter,
  type ParseResult,
  readStdin,
  type StartSource,
  specificOutput,
} from "../hook";

const NATIVE: Record<HookEvent, string> = {
  "session-start": "SessionStart",
  prompt: "UserPromptSubmit",
  tool: "PreToolUse",
  compact: "PreCompact",
  "subagent-start": "SubagentStart",
  "session-end": "SessionEnd",
};

const PATH_TOOLS = new Set(["Read", "Edit", "Write", "MultiEdit"]);

const Stdin = v.object({
  session_id: v.string(),
  cwd: v.string(),
  hook_event_name: v.optional(v.string()),
  transcript_path: v.optional(v.string()),
  source: v.optional(v.string()),
  prompt: v.optional(v.string()),
  tool_name: v.optional(v.string()),
  tool_input: v.optional(v.looseObject({ file_path: v.optional(v.unknown()) })),
  agent_id: v.optional(v.string()),
});

const SOURCES: Record<string, StartSource> = {
  startup: "startup",
  resume: "resume",
  clear: "clear",
  compact: "compact",
  fork: "startup",
};

function parse(event: HookEvent, raw: unknown): ParseResult {
  const read = readStdin(Stdin, raw, "Claude", NATIVE[event]);
  if (!read.ok) return read;
  const s = read.s;
  const input = {
    host: "claude" as const,
    event,
    sessionId: s.session_id,
    cwd: s.cwd,
    agentId: s.agent_id,
    transcriptPath: s.transcript_path,
  };
  switch (event) {
    case "session-start":
      return { ok: true, input: { ...input, source: SOURCES[s.source ?? "startup"] ?? "startup" } };
    case "prompt":
      if (typeof s.prompt !== "string") return { ok: false, reason: "UserPromptSubmit without a prompt" };
      // Claude submits background-task results as prompts too; they are not the user asking.
      if (/^\s*<task-notification>/.test(s.prompt))
        return { ok: false, ignored: true, reason: "task notification, not a user prompt" };
      return { ok: true, input: { ...input, prompt: s.prompt } };
    case "tool": {
      if (!s.tool_name || !PATH_TOOLS.has(s.tool_name))
        return { ok: false, ignored: true, reason: `tool ${s.tool_name ?? "(none)"} is not a path trigger` };
      const path = s.tool_input?.file_path;
      if (typeof path !== "string" || !path)
        return { ok: false, reason: `${s.tool_name} without tool_input.file_path` };
      return { ok: true, input: { ...input, filePaths: [path] } };
    }
    default:
      return { ok: true, input };
  }
}

export const adapter: HostAdapter = {
  host: "claude",
  events: ["session-start", "prompt", "tool", "compact", "subagent-start", "session-end"],
  injects: ["session-start", "prompt", "tool", "subagent-start"],
  parse,
  render: (event, context) => specificOutput(NATIVE[event], context),
  // SessionStart answers its own shape even when empty; everything else answers {}.
  empty: (event) => (event === "session-start" ? specificOutput("SessionStart", "") : EMPTY_OBJECT),
  capacity: () => ({ limit: 9500, unit: "chars", measure: charCount }),
};
