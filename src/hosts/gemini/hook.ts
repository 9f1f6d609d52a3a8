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
  familyFields,
  familyParse,
  type HookEvent,
  type HostAdapter,
  maxTokensCapacity,
  START_SOURCES,
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
  ...familyFields,
  transcript_path: v.optional(v.string()),
  trigger: v.optional(v.string()),
  tool_input: v.optional(
    v.looseObject({
      file_path: v.optional(v.unknown()),
      absolute_path: v.optional(v.unknown()),
      path: v.optional(v.unknown()),
    }),
  ),
});

// resume -> startup: Gemini does not replay the turns that carried earlier context.
const SOURCES: Record<string, StartSource> = { ...START_SOURCES, resume: "startup" };

const HOOK_CONTEXT = /<hook_context>[\s\S]*?<\/hook_context>\s*/g;

const parse = familyParse({
  host: "gemini",
  name: "Gemini",
  native: NATIVE,
  schema: Stdin,
  source: (s) => SOURCES[s.source ?? s.trigger ?? "startup"] ?? "startup",
  pathTools: PATH_TOOLS,
  toolPaths: (s) => {
    const ti = s.tool_input ?? {};
    const path = [ti.file_path, ti.absolute_path, ti.path].find((p) => typeof p === "string" && p);
    return typeof path === "string"
      ? [path]
      : { ok: false, reason: `${s.tool_name} without a file path in tool_input` };
  },
  prompt: (prompt) => prompt.replace(HOOK_CONTEXT, ""),
  compact: (s) =>
    s.trigger === "auto"
      ? { ok: false, ignored: true, reason: "PreCompress auto fires before every model call; not a compression" }
      : undefined,
});

export const adapter: HostAdapter = {
  host: "gemini",
  events: ["session-start", "prompt", "tool", "compact", "session-end"],
  injects: ["session-start", "prompt", "tool"],
  parse,
  render: (event, context) => specificOutput(NATIVE[event], context),
  empty: () => EMPTY_OBJECT,
  capacity: maxTokensCapacity,
};
