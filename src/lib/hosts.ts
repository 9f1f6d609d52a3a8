/**
 * The agents Coffer links into, by name: the one list. Each host's code lives in
 * `src/hosts/<host>/` and is reached through the registry in `src/hosts/index.ts`; this bare
 * list sits in lib/ so the store (config keys `native_memory.<host>`) can name hosts too.
 */
export const HOSTS = [
  "claude",
  "codex",
  "gemini",
  "cursor",
  "windsurf",
  "opencode",
  "copilot",
  "cline",
  "kimi",
  "goose",
  "qwen",
  "kilo",
  "pi",
  "antigravity",
] as const;
export type Host = (typeof HOSTS)[number];

export function isHost(name: string): name is Host {
  return (HOSTS as readonly string[]).includes(name);
}

/**
 * `model.provider` values that run an agent's own CLI headless as the distillation model (the
 * facts of each live in `src/hosts/<host>/headless.ts`, the table in `src/hosts/clis.ts`).
 */
export const CLI_PROVIDERS = [
  "claude-code",
  "codex",
  "gemini-cli",
  "copilot-cli",
  "kimi-code",
  "qwen-code",
  "pi",
  "kilo-code",
] as const;
export type CliProvider = (typeof CLI_PROVIDERS)[number];

/** The agent whose CLI each provider runs (the same fact as each host's `headless.ts` `host`, checked by a test). */
export const CLI_PROVIDER_HOST = {
  "claude-code": "claude",
  codex: "codex",
  "gemini-cli": "gemini",
  "copilot-cli": "copilot",
  "kimi-code": "kimi",
  "qwen-code": "qwen",
  pi: "pi",
  "kilo-code": "kilo",
} as const satisfies Record<CliProvider, Host>;
