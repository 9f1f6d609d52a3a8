import type { Host } from "../store/config";

/**
 * The additionalContext `coffer hook session-start --agent <host>` would inject for `cwd`
 * (used by the HTTP session-context route). Placeholder until the hooks issue lands.
 */
export function sessionStartContext(_host: Host, _cwd: string): string {
  return "";
}
