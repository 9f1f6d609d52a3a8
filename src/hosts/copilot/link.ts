/**
 * GitHub Copilot CLI: hooks in a file of Coffer's own, `~/.copilot/hooks/coffer.json` (project:
 * `.github/hooks/coffer.json`), in the Claude-compatible shape Copilot accepts (PascalCase events,
 * `{matcher, hooks: [...]}` groups, `timeout` in seconds); MCP in `~/.copilot/mcp-config.json`
 * `mcpServers` in the shape `copilot mcp add` writes (project: `.github/mcp.json`, not the
 * `.mcp.json` Claude Code shares). `disableAllHooks` in Copilot's settings switches every hook off.
 * Copilot shows an MCP server's `instructions` to the model only for servers it allowlists (or
 * with `--allow-all-mcp-server-instructions`): the hooks carry the bundle, not MCP.
 */
import { join } from "node:path";
import { readJsonValue } from "../../lib/jsonc";
import { commandOf, configDir, type HostLink, type Problem, stdioServer, type Target } from "../link";

const hooksFile = (t: Target) => ({
  path: t.root
    ? join(t.root, ".github", "hooks", "coffer.json")
    : join(configDir(t, ".copilot"), "hooks", "coffer.json"),
  dialect: "json" as const,
});

/** Copilot's settings files that may hold `disableAllHooks` for the target. */
const settingsFiles = (t: Target) =>
  t.root
    ? [join(t.root, ".github", "copilot", "settings.json"), join(t.root, ".github", "copilot", "settings.local.json")]
    : [join(t.home, ".copilot", "settings.json"), join(t.home, ".copilot", "config.json")];

export const link: HostLink = {
  host: "copilot",
  name: "Copilot CLI",
  hooks: {
    kind: "json",
    layout: "grouped",
    file: hooksFile,
    events: [
      { native: "SessionStart", event: "session-start", timeout: 10 },
      { native: "UserPromptSubmit", event: "prompt", timeout: 10 },
      { native: "PostToolUse", event: "tool", matcher: "view|edit|create", timeout: 10 },
      { native: "PreCompact", event: "compact", timeout: 10 },
      { native: "SubagentStart", event: "subagent-start", timeout: 10 },
      { native: "SessionEnd", event: "session-end", timeout: 5, optIn: true },
    ],
    entry: (command, spec) => ({ type: "command", command, timeout: spec.timeout }),
    skeleton: { version: 1 },
  },
  mcp: {
    file: (t) => ({
      path: t.root ? join(t.root, ".github", "mcp.json") : join(configDir(t, ".copilot"), "mcp-config.json"),
      dialect: "json",
    }),
    path: ["mcpServers", "coffer"],
    value: (bin) => ({ type: "local", ...stdioServer(bin), tools: ["*"] }),
    managed: ["type", "command", "args"],
    binaryOf: commandOf,
  },
  sessionEnd: "hook",
  installed: { dirs: [".copilot"], bins: ["copilot"] },
  doctorChecks: (t): Problem[] => {
    for (const file of settingsFiles(t)) {
      const doc = readJsonValue(file, "json-comments") as { disableAllHooks?: unknown } | undefined;
      if (doc?.disableAllHooks === true)
        return [
          {
            message: `Copilot CLI runs no hooks at all: "disableAllHooks": true in ${file}`,
            fix: `remove "disableAllHooks" from ${file}`,
          },
        ];
    }
    return [];
  },
};
