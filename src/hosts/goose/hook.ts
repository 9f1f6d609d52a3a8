/**
 * Goose runs no hook that can add context (its plugin hooks are observe-only; only PreToolUse and
 * Stop can block), so Coffer installs none: `coffer hook --agent goose` answers nothing. Goose
 * gets Coffer through MCP, the rules bundle as the server's `instructions` (link.ts).
 */
import type { HostAdapter } from "../hook";

export const adapter: HostAdapter = {
  host: "goose",
  events: [],
  injects: [],
  parse: () => ({ ok: false, ignored: true, reason: "Goose's hooks cannot add context; Coffer installs none" }),
  render: () => "",
  empty: () => "",
  capacity: () => ({ limit: 0, unit: "chars", measure: (t) => t.length }),
};
