/**
 * Claude Code hooks: stdin fields, native event names, output shapes, payload cap.
 * SessionStart (startup|resume|clear|compact|fork) -> session-start, UserPromptSubmit -> prompt,
 * PreToolUse on Read|Edit|Write|MultiEdit (`tool_input.file_path`) -> tool, PreCompact -> compact,
 * SubagentStart -> subagent-start, SessionEnd -> session-end. Claude keeps additionalContext
 * whole up to 10,000 chars, so Coffer stays at 9,500.
 */
import * as v from "valibot";
import {
  CLAUDE_CONTRACT,
  CLAUDE_NATIVE,
  charCount,
  familyFields,
  familyParse,
  type HostAdapter,
  START_SOURCES,
  type StartSource,
} from "../hook";

const PATH_TOOLS = new Set(["Read", "Edit", "Write", "MultiEdit"]);

const Stdin = v.object({
  ...familyFields,
  transcript_path: v.optional(v.string()),
  tool_input: v.optional(v.looseObject({ file_path: v.optional(v.unknown()) })),
  agent_id: v.optional(v.string()),
});

const SOURCES: Record<string, StartSource> = { ...START_SOURCES, fork: "startup" };

/**
 * Copilot CLI runs a repository's `.claude/settings.json` hooks as well (in a folder the user
 * trusted; 1.0.102), with Claude's payload, and ignores Claude's answer (`hookSpecificOutput`): the
 * model never sees it, yet Coffer would count a delivery and the session's delivered set would
 * claim it. Under Copilot (which sets COPILOT_CLI=1 for its hooks; Claude Code sets CLAUDECODE=1
 * for its own, so Claude started from a Copilot session is still Claude) the Claude hook does
 * nothing: Copilot gets Coffer through `coffer link copilot`.
 */
const runByCopilot = () => process.env.COPILOT_CLI === "1" && !process.env.CLAUDECODE;

const claudeParse = familyParse({
  host: "claude",
  name: "Claude",
  native: CLAUDE_NATIVE,
  schema: Stdin,
  source: (s) => SOURCES[s.source ?? "startup"] ?? "startup",
  pathTools: PATH_TOOLS,
  toolPaths: (s) => {
    const path = s.tool_input?.file_path;
    if (typeof path !== "string" || !path) return { ok: false, reason: `${s.tool_name} without tool_input.file_path` };
    return [path];
  },
  // Claude submits background-task results as prompts too; they are not the user asking.
  prompt: (prompt) =>
    /^\s*<task-notification>/.test(prompt)
      ? { ok: false, ignored: true, reason: "task notification, not a user prompt" }
      : prompt,
});

const parse: HostAdapter["parse"] = (event, raw, processCwd) =>
  runByCopilot()
    ? { ok: false, ignored: true, reason: "a Claude Code hook run by Copilot CLI (Copilot ignores its answer)" }
    : claudeParse(event, raw, processCwd);

export const adapter: HostAdapter = {
  host: "claude",
  ...CLAUDE_CONTRACT,
  parse,
  capacity: () => ({ limit: 9500, unit: "chars", measure: charCount }),
};
