/**
 * Kilo Code CLI, a fork of OpenCode that loads OpenCode plugins: Coffer's generated plugin pipes
 * `{hook_event_name, session_id, cwd, prompt}` to `coffer hook session-start|prompt --agent kilo`,
 * and the answer fills the one system-prompt slot it keeps (OpenCode's contract, shared).
 */
import { pluginAdapter } from "../opencode/hook";

export const adapter = pluginAdapter("kilo", "Kilo Code");
