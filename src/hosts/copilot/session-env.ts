/**
 * What Copilot CLI 1.0.102 sets in the environment of the hooks and tools it starts inside a
 * session (observed: docs/hosts-observed.md). It sets CLAUDE_PROJECT_DIR too (Claude Code's list
 * has it).
 */
export const SESSION_ENV = [
  "COPILOT_CLI",
  "COPILOT_PROJECT_DIR",
  "COPILOT_HOOK_DIR",
  "COPILOT_CLI_BINARY_VERSION",
  "COPILOT_CLI_RESOLVED_DIST_DIR",
];
