/**
 * Cursor: `hooks.json` (user `~/.cursor/hooks.json`, project `.cursor/hooks.json`) with
 * `version: 1` and flat entries; only `sessionStart` can inject context. MCP in `mcp.json`
 * next to it. Timeouts in seconds.
 */
import { join } from "node:path";
import type { HostLink, Target } from "../link";

const dir = (t: Target) => (t.root ? join(t.root, ".cursor") : join(t.home, ".cursor"));

export const link: HostLink = {
  host: "cursor",
  name: "Cursor",
  hooks: {
    kind: "json",
    layout: "flat",
    file: (t) => ({ path: join(dir(t), "hooks.json"), dialect: "json" }),
    events: [{ native: "sessionStart", event: "session-start", timeout: 10 }],
    entry: (command, spec) => ({ command, timeout: spec.timeout }),
    skeleton: { version: 1 },
  },
  mcp: {
    kind: "json",
    file: (t) => ({ path: join(dir(t), "mcp.json"), dialect: "json" }),
    path: ["mcpServers", "coffer"],
    value: (bin) => ({ command: bin, args: ["serve", "--stdio"] }),
    binaryOf: (e) =>
      e && typeof e === "object" ? ((e as { command?: unknown }).command as string | undefined) : undefined,
  },
  sessionEnd: "none",
};
