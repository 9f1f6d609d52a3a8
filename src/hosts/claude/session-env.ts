/**
 * What Claude Code sets in the environment of what it starts inside a session (its Bash tool, its
 * hooks: Coffer's session-start hook, and so the background sweep that hook starts). `CLAUDECODE`
 * makes Claude Code refuse to start ("cannot be launched inside another Claude Code session");
 * the others name the session's project, plugin and IDE connection.
 */
export const SESSION_ENV = [
  "CLAUDECODE",
  "CLAUDE_CODE_ENTRYPOINT",
  "CLAUDE_CODE_SSE_PORT",
  "CLAUDE_PROJECT_DIR",
  "CLAUDE_ENV_FILE",
  "CLAUDE_PLUGIN_ROOT",
  "CLAUDE_PLUGIN_DATA",
];
