/**
 * Pi (pi-coding-agent): Coffer's generated extension pipes `{hook_event_name, session_id, cwd,
 * prompt}` to `coffer hook session-start|prompt --agent pi` on `before_agent_start` and appends
 * the answer to that turn's system prompt. Pi rebuilds the system prompt every turn, so the
 * extension keeps one slot per session: OpenCode's contract (a non-empty answer replaces the slot,
 * `{}` keeps it), shared. Path triggers: on `tool_result` of read|edit|write the extension sends
 * `{hook_event_name: "tool", session_id, cwd, file_path}` and appends the answer to the tool's result.
 */
import { pluginAdapter } from "../opencode/hook";

export const adapter = pluginAdapter("pi", "Pi", { pathTriggers: true });
