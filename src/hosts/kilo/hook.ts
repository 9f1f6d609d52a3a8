/**
 * Kilo Code CLI, a fork of OpenCode that loads OpenCode plugins: Coffer's generated plugin pipes
 * `{hook_event_name, session_id, cwd, prompt}` to `coffer hook session-start|prompt --agent kilo`,
 * and the answer fills the one system-prompt slot it keeps (OpenCode's contract, shared). Path
 * triggers: on `tool.execute.after` of read|edit|write it sends `file_path`, and the answer is
 * appended to the tool's output.
 */
import { pluginAdapter } from "../opencode/hook";

export const adapter = pluginAdapter("kilo", "Kilo Code", { pathTriggers: true });
