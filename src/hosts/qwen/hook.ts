/**
 * Qwen Code hooks (a Gemini CLI fork whose hooks follow Claude Code's contract): SessionStart ->
 * session-start, UserPromptSubmit -> prompt, PostToolUse -> tool (path triggers: read_file,
 * write_file, edit with `tool_input.file_path`; any tool of a subagent, `agent_id` set), PreCompact
 * -> compact, SubagentStart -> subagent-start (parsed, but `coffer link` installs none: its context
 * did not reach the subagent), SessionEnd -> session-end. Answers are Claude's
 * `hookSpecificOutput.additionalContext`.
 *
 * Observed with Qwen Code 0.24.4 (docs/hosts-observed.md):
 * - SessionStart context is appended to the system prompt inside `<qwen:session-start-context>`;
 *   UserPromptSubmit context is a separate part of the user turn inside
 *   `<qwen:user-prompt-submit-context>`, and the hook's `prompt` is the user's text alone.
 * - PreToolUse's additionalContext is read but never sent to the model; PostToolUse's is appended
 *   to the tool result, so path triggers answer after the tool ran.
 * - A subagent's tool calls fire PostToolUse with its `agent_id` (and the parent's `session_id`),
 *   and their context reaches the subagent: its first tool result carries the subagent's bundle
 *   (`subagentsVia: "tool"`), which its SubagentStart context never would.
 * - Neither context is cut: 140,000 characters arrived whole, so the cap is `load.max_tokens`.
 * - The session-start block lives in the system prompt, which a resumed session rebuilds without
 *   it, while the replayed history keeps what prompts delivered: on `resume` the bundle goes again
 *   and the delivered set is kept (`resumeRebuildsStart`). Gemini differs: it replays no turn that
 *   carried context, so its resume is a fresh start.
 */
import * as v from "valibot";
import {
  CLAUDE_CONTRACT,
  CLAUDE_NATIVE,
  familyFields,
  familyParse,
  type HookEvent,
  type HostAdapter,
  maxTokensCapacity,
  type ParseResult,
  START_SOURCES,
  specificOutput,
} from "../hook";

const NATIVE: Record<HookEvent, string> = { ...CLAUDE_NATIVE, tool: "PostToolUse" };

const PATH_TOOLS = new Set(["read_file", "write_file", "edit"]);

const Stdin = v.object({
  ...familyFields,
  transcript_path: v.optional(v.string()),
  tool_input: v.optional(v.looseObject({ file_path: v.optional(v.unknown()) })),
  agent_id: v.optional(v.string()),
});

const familyOf = familyParse({
  host: "qwen",
  name: "Qwen",
  native: NATIVE,
  schema: Stdin,
  source: (s) => START_SOURCES[s.source ?? "startup"] ?? "startup",
  pathTools: PATH_TOOLS,
  toolPaths: (s) => {
    const path = s.tool_input?.file_path;
    if (typeof path !== "string" || !path) return { ok: false, reason: `${s.tool_name} without tool_input.file_path` };
    return [path];
  },
});

/**
 * The family's parse, plus a subagent's tool call of any tool (`agent_id` set): it is a tool event
 * with no path, whose answer carries the subagent's bundle the first time (`subagentsVia`).
 */
function parse(event: HookEvent, raw: unknown, processCwd: string): ParseResult {
  const r = familyOf(event, raw, processCwd);
  if (r.ok || !r.ignored || event !== "tool") return r;
  const s = v.safeParse(Stdin, raw);
  if (!s.success || !s.output.agent_id) return r;
  const { session_id, cwd, agent_id, transcript_path } = s.output;
  return {
    ok: true,
    input: {
      host: "qwen",
      event,
      sessionId: session_id,
      cwd,
      agentId: agent_id,
      transcriptPath: transcript_path,
      filePaths: [],
    },
  };
}

export const adapter: HostAdapter = {
  host: "qwen",
  resumeRebuildsStart: true,
  subagentsVia: "tool",
  ...CLAUDE_CONTRACT,
  parse,
  render: (event, context) => specificOutput(NATIVE[event], context),
  capacity: maxTokensCapacity,
};
