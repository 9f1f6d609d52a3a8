/**
 * What Kilo Code sets in its own process, and so in everything it starts (observed in 7.7.7's
 * binary): its markers, and OpenCode's (`OPENCODE`, `AGENT`), which OpenCode's list names.
 */
export const SESSION_ENV = ["KILO", "KILO_PID", "KILO_PURE", "KILO_CLIENT"];
