/**
 * Kimi Code: hooks are `[[hooks]]` tables of `~/.kimi-code/config.toml` (`KIMI_CODE_HOME` moves
 * the folder), four keys each (`event`, `matcher`, `command`, `timeout` in seconds; any other key
 * stops the file from loading); there are no project-level hooks. MCP in `mcp.json` beside it
 * (project: `.kimi-code/mcp.json`, used once the folder is trusted), `{command, args}` entries.
 * Finished sessions are read by the transcript sweep.
 */
import { join } from "node:path";
import { commandOf, configDir, type HostLink, stdioServer, type Target } from "../link";

const home = (t: Target) =>
  t.root ? join(t.root, ".kimi-code") : process.env.KIMI_CODE_HOME || configDir(t, ".kimi-code");

export const link: HostLink = {
  host: "kimi",
  name: "Kimi Code",
  hooks: {
    kind: "toml-array",
    // A project has no hooks file Kimi reads: this one is never written (userOnly).
    file: (t) => join(home(t), "config.toml"),
    key: "hooks",
    events: [
      { native: "UserPromptSubmit", event: "session-start", timeout: 10 },
      { native: "UserPromptSubmit", event: "prompt", timeout: 10 },
    ],
    entry: (command, spec) => ({ event: spec.native, command, timeout: spec.timeout }),
  },
  mcp: {
    file: (t) => ({ path: join(home(t), "mcp.json"), dialect: "json" }),
    path: ["mcpServers", "coffer"],
    value: stdioServer,
    binaryOf: commandOf,
  },
  userOnly: "Kimi Code reads hooks only from ~/.kimi-code/config.toml",
  sessionEnd: "sweep",
  gets: {
    bundle: "hook",
    promptDelta: true,
    pathTriggers: [],
    subagents: false,
    summariser: "kimi-code",
    harvest: false,
  },
  installed: { dirs: [".kimi-code"], bins: ["kimi"] },
};
