/**
 * Windsurf (Cascade): `hooks.json` (user `~/.codeium/windsurf/hooks.json`, project
 * `.windsurf/hooks.json`) with flat entries. Windsurf hooks cannot inject context, so the
 * `pre_user_prompt` hook only records delivery and Coffer reaches Cascade through MCP, which
 * Windsurf reads from `~/.codeium/windsurf/mcp_config.json` only (there is no project file).
 */
import { join } from "node:path";
import { commandOf, type HostLink, stdioServer, type Target } from "../link";

const userDir = (t: Target) => join(t.home, ".codeium", "windsurf");

export const link: HostLink = {
  host: "windsurf",
  name: "Windsurf",
  hooks: {
    kind: "json",
    layout: "flat",
    file: (t) => ({
      path: t.root ? join(t.root, ".windsurf", "hooks.json") : join(userDir(t), "hooks.json"),
      dialect: "json",
    }),
    events: [{ native: "pre_user_prompt", event: "prompt" }],
    entry: (command) => ({ command, show_output: false }),
  },
  mcp: {
    file: (t) => (t.root ? undefined : { path: join(userDir(t), "mcp_config.json"), dialect: "json" }),
    path: ["mcpServers", "coffer"],
    value: stdioServer,
    binaryOf: commandOf,
    unavailable: () =>
      "Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json: run `coffer link windsurf` (without --project) once to register Coffer's MCP server, which is how Cascade reaches Coffer's memory.",
  },
  sessionEnd: "none",
  gets: { bundle: "none", promptDelta: false, pathTriggers: [], subagents: false, harvest: false },
  installed: { dirs: [".codeium/windsurf"], bins: ["windsurf"] },
  linkNotes: () => [
    "Windsurf hooks cannot inject context: Cascade uses Coffer through its MCP tools (coffer__recall, coffer__remember, ...).",
  ],
};
