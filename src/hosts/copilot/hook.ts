/**
 * GitHub Copilot CLI hooks, installed with Claude Code's PascalCase event names so that Copilot
 * sends its snake_case payloads (`hook_event_name`, `session_id`, `cwd`, `prompt`, `tool_name`,
 * `tool_input`, `transcript_path`): SessionStart -> session-start, UserPromptSubmit -> prompt,
 * PostToolUse on view|edit|create -> tool (a path trigger), PreCompact -> compact,
 * SubagentStart -> subagent-start, SessionEnd -> session-end.
 *
 * Observed with Copilot CLI 1.0.102 (docs/hosts-observed.md):
 * - Context goes back as a top-level `{"additionalContext": "..."}` on every event. Claude's
 *   `hookSpecificOutput.additionalContext` is ignored on UserPromptSubmit and PostToolUse.
 *   SessionStart's context becomes a user-message block before the prompt, UserPromptSubmit's a
 *   `<system_reminder>` after it, PostToolUse's is appended to the tool's result.
 * - No truncation up to 216,000 characters on any of them (hook output is bounded at 10 MiB), so
 *   the cap is Coffer's own `load.max_tokens`.
 * - The payload names tools as Claude does (`Read`, `Edit`, `Write` for view, edit, create); the
 *   matcher is applied to Copilot's own names.
 * - `source` is `new` or `resume`. SessionStart's context is not kept in the session: each run
 *   of the CLI puts that run's SessionStart context first, so a resumed session has the bundle
 *   only if the resume's SessionStart sends it again. UserPromptSubmit's context is kept (in the
 *   replayed prompts). So on `resume` the bundle goes again and the delivered set is kept
 *   (`resumeRebuildsStart`): an entry already in the replayed prompts is not sent once more.
 * - SubagentStart (the `task` tool) sends a camelCase payload whatever the event's spelling
 *   (`sessionId`: the parent's, `agent_id`, `agent_type`, `parent_agent_id`, `transcriptPath`, no
 *   `hook_event_name`); its context is put before the subagent's prompt, and the subagent's own
 *   UserPromptSubmit then carries that prompt (with `agent_id`): not the user's, not routed.
 */
import * as v from "valibot";
import {
  EMPTY_OBJECT,
  familyFields,
  familyParse,
  type HookEvent,
  type HostAdapter,
  maxTokensCapacity,
  type ParseResult,
  START_SOURCES,
} from "../hook";

export const NATIVE: Record<HookEvent, string> = {
  "session-start": "SessionStart",
  prompt: "UserPromptSubmit",
  tool: "PostToolUse",
  compact: "PreCompact",
  "subagent-start": "SubagentStart",
  "session-end": "SessionEnd",
};

/** Copilot's file tools, by its own names (the matcher) and by the names its payloads use. */
const PATH_TOOLS = new Set(["view", "edit", "create", "Read", "Edit", "Write"]);

const Stdin = v.object({
  ...familyFields,
  transcript_path: v.optional(v.string()),
  tool_input: v.optional(v.looseObject({ path: v.optional(v.unknown()), file_path: v.optional(v.unknown()) })),
});

const family = familyParse({
  host: "copilot",
  name: "Copilot CLI",
  native: NATIVE,
  schema: Stdin,
  source: (s) => (s.source === "new" ? "startup" : (START_SOURCES[s.source ?? ""] ?? "startup")),
  pathTools: PATH_TOOLS,
  toolPaths: (s) => {
    const ti = s.tool_input ?? {};
    const path = [ti.path, ti.file_path].find((p) => typeof p === "string" && p);
    return typeof path === "string" ? [path] : { ok: false, reason: `${s.tool_name} without a path in tool_input` };
  },
});

const SubagentStdin = v.object({
  sessionId: v.string(),
  cwd: v.string(),
  agent_id: v.string(),
  transcriptPath: v.optional(v.string()),
});

function parse(event: HookEvent, raw: unknown, processCwd: string): ParseResult {
  if (event === "subagent-start") {
    const r = v.safeParse(SubagentStdin, raw);
    if (!r.success)
      return { ok: false, reason: `stdin does not match Copilot CLI's SubagentStart payload: ${r.issues[0]?.message}` };
    const s = r.output;
    return {
      ok: true,
      input: {
        host: "copilot",
        event,
        sessionId: s.sessionId,
        cwd: s.cwd,
        agentId: s.agent_id,
        transcriptPath: s.transcriptPath,
      },
    };
  }
  if (
    event === "prompt" &&
    raw &&
    typeof raw === "object" &&
    typeof (raw as { agent_id?: unknown }).agent_id === "string"
  )
    return { ok: false, ignored: true, reason: "a subagent's prompt (its SubagentStart context is in it)" };
  return family(event, raw, processCwd);
}

export const adapter: HostAdapter = {
  host: "copilot",
  resumeRebuildsStart: true,
  events: ["session-start", "prompt", "tool", "compact", "subagent-start", "session-end"],
  injects: ["session-start", "prompt", "tool", "subagent-start"],
  parse,
  render: (_event, context) => JSON.stringify({ additionalContext: context }),
  empty: () => EMPTY_OBJECT,
  capacity: maxTokensCapacity,
};
