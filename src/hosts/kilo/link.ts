/**
 * Kilo Code CLI (npm `@kilocode/cli`, an OpenCode fork): Coffer's OpenCode plugin, generated for
 * `--agent kilo`, in `~/.config/kilo/plugins/coffer.js` (project `.kilo/plugins/coffer.js`), which
 * Kilo loads like OpenCode (`{plugin,plugins}/*.{ts,js}` in each config folder); MCP in
 * `~/.config/kilo/kilo.json` `mcp` (project `kilo.json`), `kilo.jsonc` when the user has one. Kilo
 * also reads `opencode.json` and `.opencode/`, so a repository linked for OpenCode reaches Kilo too.
 */
import { pluginLink, xdgConfigDir } from "../opencode/link";

export const link = pluginLink({
  host: "kilo",
  name: "Kilo Code",
  dir: (t) => xdgConfigDir(t, "kilo"),
  projectDir: ".kilo",
  config: "kilo",
  installed: { dirs: [".config/kilo", ".local/share/kilo"], bins: ["kilo"] },
});
