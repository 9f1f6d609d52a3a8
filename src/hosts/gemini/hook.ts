/**
 * Gemini CLI hooks. SessionStart (source startup|resume|clear) -> session-start, BeforeAgent ->
 * prompt, AfterTool on read_file|write_file|replace -> tool (Gemini's matcher is an unanchored
 * regex, so other tools whose names merely contain those words arrive too and get `{}`),
 * PreCompress -> compact (advisory only: no context), SessionEnd -> session-end.
 * With exit 0 Gemini parses stdout as JSON, so nothing else may be printed.
 */
import * as v from "valibot";
import { EMPTY_OBJECT, type HookEvent, type HostAdapter, type ParseResult, type StartSource, maxTokensCapacity, specificOutput } from "../../hooks/types";

const NATIVE: Record<HookEvent, string> = {
  "session-start": "SessionStart",
  prompt: "BeforeAgent",
  tool: "AfterTool",
  compact: "PreCompress",
  "subagent-start": "SubagentStart",
  "session-end": "SessionEnd",
};

const PATH_TOOLS = new Set(["read_file", "write_file", "replace"]);

const Stdin = v.object({
  session_id: v.string(),
  cwd: v.string(),
  hook_event_name: v.optional(v.string()),
  transcript_path: v.optional(v.string()),
  source: v.optional(v.string()),
  trigger: v.optional(v.string()),
  prompt: v.optional(v.string()),
  tool_name: v.optional(v.string()),
  tool_input: v.optional(v.looseObject({ file_path: v.optional(v.unknown()), absolute_path: v.optional(v.unknown()), path: v.optional(v.unknown()) })),
});

const SOURCES: Record<string, StartSource> = { startup: "startup", resume: "resume", clear: "clear", compact: "compact" };

function parse(event: HookEvent, raw: unknown): ParseResult {
  const r = v.safeParse(Stdin, raw);
  if (!r.success) return { ok: false, reason: `stdin does not match Gemini's ${NATIVE[event]} payload: ${r.issues[0]?.message}` };
  const s = r.output;
  if (s.hook_event_name !== undefined && s.hook_event_name !== NATIVE[event]) {
    return { ok: false, reason: `hook_event_name ${JSON.stringify(s.hook_event_name)} does not match ${NATIVE[event]}` };
  }
  const input = { host: "gemini" as const, event, sessionId: s.session_id, cwd: s.cwd, transcriptPath: s.transcript_path };
  switch (event) {
    case "session-start":
      return { ok: true, input: { ...input, source: SOURCES[s.source ?? s.trigger ?? "startup"] ?? "startup" } };
    case "prompt":
      if (typeof s.prompt !== "string") return { ok: false, reason: "BeforeAgent without a prompt" };
      return { ok: true, input: { ...input, prompt: s.prompt } };
    case "tool": {
      if (!s.tool_name || !PATH_TOOLS.has(s.tool_name)) return { ok: false, ignored: true, reason: `tool ${s.tool_name ?? "(none)"} is not a path trigger` };
      const ti = s.tool_input ?? {};
      const path = [ti.file_path, ti.absolute_path, ti.path].find((p) => typeof p === "string" && p);
      if (typeof path !== "string") return { ok: false, reason: `${s.tool_name} without a file path in tool_input` };
      return { ok: true, input: { ...input, filePaths: [path] } };
    }
    default:
      return { ok: true, input };
  }
}

export const adapter: HostAdapter = {
  host: "gemini",
  events: ["session-start", "prompt", "tool", "compact", "session-end"],
  injects: ["session-start", "prompt", "tool"],
  parse,
  render: (event, context) => specificOutput(NATIVE[event], context),
  empty: () => EMPTY_OBJECT,
  capacity: maxTokensCapacity,
};
