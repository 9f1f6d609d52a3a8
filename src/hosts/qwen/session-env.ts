/**
 * What Qwen Code sets in the environment of its hooks and shell commands (observed with 0.24.4):
 * the session, its project folders, the model, and its launcher's markers. It also sets
 * GEMINI_PROJECT_DIR and CLAUDE_PROJECT_DIR, which those hosts' lists already name.
 */
export const SESSION_ENV = [
  "QWEN_CODE",
  "QWEN_CODE_SESSION_ID",
  "QWEN_CODE_PROJECT_DIR",
  "QWEN_PROJECT_DIR",
  "QWEN_CODE_AGENT_ID",
  "QWEN_CODE_PROMPT_ID",
  "QWEN_CODE_MODEL",
  "QWEN_CODE_MODEL_IDENTITY",
  "QWEN_CODE_CLI",
  "QWEN_CODE_NO_RELAUNCH",
  "QWEN_CODE_LAUNCHER_PID",
  "QWEN_CODE_STARTUP_VERSION",
  "QWEN_CODE_PRIVATE_RELAUNCH_ENV_PROVENANCE",
  "QWEN_CODE_MANAGED_NPM_ROOT",
  "QWEN_CODE_MANAGED_NPM_PIN",
];
