/**
 * The environment a person's shell would have (issue 36): what Coffer's own processes inherited
 * from an agent's session, without the variables each host sets inside its sessions (listed in
 * `src/hosts/<host>/session-env.ts`). Every process Coffer starts from a session gets it: the
 * background sweep a session-start hook starts, and the agent CLIs distillation runs (a CLI that
 * sees another session's variables may refuse to start, or act as part of that session). On the
 * hook path: names only, no adapter is loaded.
 */
import { SESSION_ENV as claude } from "./claude/session-env";
import { SESSION_ENV as cline } from "./cline/session-env";
import { SESSION_ENV as codex } from "./codex/session-env";
import { SESSION_ENV as copilot } from "./copilot/session-env";
import { SESSION_ENV as cursor } from "./cursor/session-env";
import { SESSION_ENV as gemini } from "./gemini/session-env";
import { SESSION_ENV as kilo } from "./kilo/session-env";
import { SESSION_ENV as opencode } from "./opencode/session-env";
import { SESSION_ENV as pi } from "./pi/session-env";
import { SESSION_ENV as qwen } from "./qwen/session-env";

const IN_SESSION = new Set([
  ...claude,
  ...codex,
  ...gemini,
  ...cursor,
  ...opencode,
  ...copilot,
  ...cline,
  ...qwen,
  ...kilo,
  ...pi,
]);

/** True for a variable some host sets inside its sessions (names compared as Windows does: any case). */
function isSessionVariable(name: string): boolean {
  return IN_SESSION.has(name.toUpperCase());
}

/** `env` without any host's in-session variables (and without unset ones). */
export function shellEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !isSessionVariable(name)) out[name] = value;
  return out;
}
