/** What OpenCode sets in its own process, and so in everything it starts (its shell tool, its plugins' commands). */
export const SESSION_ENV = ["OPENCODE", "OPENCODE_PID", "OPENCODE_TERMINAL", "OPENCODE_SESSION_ID", "AGENT"];
