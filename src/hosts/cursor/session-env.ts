/** What Cursor sets in the environment of what it starts inside a session (its terminal, its hooks). */
export const SESSION_ENV = ["CURSOR_PROJECT_DIR", "CURSOR_VERSION", "CURSOR_TRACE_ID", "CURSOR_AGENT"];
