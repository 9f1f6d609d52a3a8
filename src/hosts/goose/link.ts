/**
 * Goose: MCP only. Its extensions live in `~/.config/goose/config.yaml` (`XDG_CONFIG_HOME`
 * honoured; `%APPDATA%\Block\goose\config\config.yaml` on Windows) under `extensions:`, each
 * `{enabled, type: stdio, name, cmd, args, envs, timeout}` (not the `mcpServers:` block some
 * installers write). Coffer's entry runs `coffer serve --stdio --rules`: its initialize answer
 * carries the rules bundle as `instructions`, which Goose puts in its system prompt under the
 * extension's "### Instructions" (block/goose `crates/goose/src/prompts/system.md`). Not run here:
 * Goose is a native binary that no registry ships.
 */
import { join } from "node:path";
import { userConfigDir } from "../../lib/platform";
import { type HostLink, SERVE_ARGS, type Target } from "../link";

function configFile(t: Target): string {
  if (process.platform === "win32")
    return join(userConfigDir(undefined, undefined, t.home), "Block", "goose", "config", "config.yaml");
  return join(process.env.XDG_CONFIG_HOME || join(t.home, ".config"), "goose", "config.yaml");
}

export const link: HostLink = {
  host: "goose",
  name: "Goose",
  hooks: {
    kind: "none",
    why: "Goose's hooks cannot add context: the rules reach it as the MCP server's instructions",
  },
  mcp: {
    file: (t) => (t.root ? undefined : { path: configFile(t), dialect: "yaml" }),
    path: ["extensions", "coffer"],
    value: (bin) => ({
      enabled: true,
      type: "stdio",
      name: "coffer",
      cmd: bin,
      args: [...SERVE_ARGS, "--rules"],
      envs: {},
      timeout: 300,
    }),
    managed: ["type", "name", "cmd", "args"],
    binaryOf: (entry) => {
      const cmd = entry && typeof entry === "object" ? (entry as { cmd?: unknown }).cmd : undefined;
      return typeof cmd === "string" ? cmd : undefined;
    },
    unavailable: () => "Goose reads extensions from your user config only: link without --project",
  },
  userOnly: "Goose reads its extensions from ~/.config/goose/config.yaml only",
  sessionEnd: "none",
  gets: { bundle: "mcp", promptDelta: false, pathTriggers: [], subagents: false, harvest: false },
  installed: { dirs: [".config/goose"], bins: ["goose"] },
};
