/**
 * What Gemini CLI sets in the environment of what it starts inside a session (its shell tool, its
 * hooks): the session, its project folder, and the relaunched process's marker.
 */
export const SESSION_ENV = [
  "GEMINI_CLI",
  "GEMINI_PROJECT_DIR",
  "GEMINI_SESSION_ID",
  "GEMINI_CWD",
  "GEMINI_CLI_NO_RELAUNCH",
];
