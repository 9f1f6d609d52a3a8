/**
 * Cursor: `hooks.json` (user `~/.cursor/hooks.json`, project `.cursor/hooks.json`) with
 * `version: 1` and flat entries; only `sessionStart` can inject context. MCP in `mcp.json`
 * next to it. Timeouts in seconds.
 */
import { join } from "node:path";
import { commandOf, configDir, type HostLink, stdioServer, type Target } from "../link";

const dir = (t: Target) => configDir(t, ".cursor");

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
    file: (t) => ({ path: join(dir(t), "mcp.json"), dialect: "json" }),
    path: ["mcpServers", "coffer"],
    value: stdioServer,
    binaryOf: commandOf,
  },
  sessionEnd: "none",
  gets: { bundle: "hook", promptDelta: false, pathTriggers: [], subagents: false, harvest: false },
  installed: { dirs: [".cursor"], bins: ["cursor-agent", "cursor"] },
};
