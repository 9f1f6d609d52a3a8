/**
 * Pi (pi-coding-agent): Coffer's generated extension pipes `{hook_event_name, session_id, cwd,
 * prompt}` to `coffer hook session-start|prompt --agent pi` on `before_agent_start` and appends
 * the answer to that turn's system prompt. Pi rebuilds the system prompt every turn, so the
 * extension keeps one slot per session: OpenCode's contract (a non-empty answer replaces the slot,
 * `{}` keeps it), shared.
 */
import { pluginAdapter } from "../opencode/hook";

export const adapter = pluginAdapter("pi", "Pi");
