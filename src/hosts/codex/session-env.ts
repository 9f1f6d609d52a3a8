/**
 * What Codex sets in the environment of what it starts inside a session (its shell tool, its
 * hooks): the thread, its sandbox, and the npm/bun launcher's markers.
 */
export const SESSION_ENV = [
  "CODEX_THREAD_ID",
  "CODEX_SANDBOX",
  "CODEX_SANDBOX_NETWORK_DISABLED",
  "CODEX_CI",
  "CODEX_INTERNAL_ORIGINATOR_OVERRIDE",
  "CODEX_MANAGED_BY_NPM",
  "CODEX_MANAGED_BY_BUN",
];
