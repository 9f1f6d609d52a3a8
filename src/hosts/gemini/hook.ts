/**
 * Gemini CLI hooks. SessionStart (source startup|resume|clear) -> session-start, BeforeAgent ->
 * prompt, AfterTool on read_file|write_file|replace -> tool (Gemini's matcher is an unanchored
 * regex, so other tools whose names merely contain those words arrive too and get `{}`),
 * PreCompress -> compact (advisory only: no context), SessionEnd -> session-end.
 * With exit 0 Gemini parses stdout as JSON, so nothing else may be printed.
 *
 * Observed with Gemini CLI 0.61 (docs/hosts-observed.md):
 * - BeforeAgent's `prompt` carries earlier hook context as `<hook_context>…</hook_context>` before
 *   the user's text (the session-start bundle on the first turn): stripped before routing.
 * - A resumed session's replayed history drops the turns that carried hook context, so `resume`
 *   is a fresh start for Coffer (reset + full bundle), not a replay.
 * - PreCompress fires with `trigger: "auto"` before every model call, compressing or not; only a
 *   `manual` (/compress) one is known to be real, so only that resets the delivered set.
 */
import * as v from "valibot";
import {
  EMPTY_OBJECT,
  type HookEvent,
  type HostAdapter,
  maxTokensCapacity,
  type ParseResult,
  readStdin,
  type StartSource,
  specificOutput,
} from "../hook";

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
  tool_input: v.optional(
    v.looseObject({
      file_path: v.optional(v.unknown()),
      absolute_path: v.optional(v.unknown()),
      path: v.optional(v.unknown()),
    }),
  ),
});

// resume -> startup: Gemini does not replay the turns that carried earlier context.
const SOURCES: Record<string, StartSource> = {
  startup: "startup",
  resume: "startup",
  clear: "clear",
  compact: "compact",
};

const HOOK_CONTEXT = /<hook_context>[\s\S]*?<\/hook_context>\s*/g;

function parse(event: HookEvent, raw: unknown): ParseResult {
  const read = readStdin(Stdin, raw, "Gemini", NATIVE[event]);
  if (!read.ok) return read;
  const s = read.s;
  const input = {
    host: "gemini" as const,
    event,
    sessionId: s.session_id,
    cwd: s.cwd,
    transcriptPath: s.transcript_path,
  };
  switch (event) {
    case "session-start":
      return { ok: true, input: { ...input, source: SOURCES[s.source ?? s.trigger ?? "startup"] ?? "startup" } };
    case "prompt":
      if (typeof s.prompt !== "string") return { ok: false, reason: "BeforeAgent without a prompt" };
      return { ok: true, input: { ...input, prompt: s.prompt.replace(HOOK_CONTEXT, "") } };
    case "tool": {
      if (!s.tool_name || !PATH_TOOLS.has(s.tool_name))
        return { ok: false, ignored: true, reason: `tool ${s.tool_name ?? "(none)"} is not a path trigger` };
      const ti = s.tool_input ?? {};
      const path = [ti.file_path, ti.absolute_path, ti.path].find((p) => typeof p === "string" && p);
      if (typeof path !== "string") return { ok: false, reason: `${s.tool_name} without a file path in tool_input` };
      return { ok: true, input: { ...input, filePaths: [path] } };
    }
    case "compact":
      if (s.trigger === "auto")
        return {
          ok: false,
          ignored: true,
          reason: "PreCompress auto fires before every model call; not a compression",
        };
      return { ok: true, input };
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
