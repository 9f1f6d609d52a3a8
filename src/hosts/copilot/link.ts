/**
 * GitHub Copilot CLI: hooks in a file of Coffer's own, `~/.copilot/hooks/coffer.json` (project:
 * `.github/hooks/coffer.json`), in the Claude-compatible shape Copilot accepts (PascalCase events,
 * `{matcher, hooks: [...]}` groups, `timeout` in seconds); MCP in `~/.copilot/mcp-config.json`
 * `mcpServers` in the shape `copilot mcp add` writes (project: `.github/mcp.json`, not the
 * `.mcp.json` Claude Code shares). `$COPILOT_HOME` moves `~/.copilot` (1.0.102 reads its hooks folder,
 * `mcp-config.json` and settings there). `disableAllHooks` in Copilot's settings switches every hook off.
 * Copilot shows an MCP server's `instructions` to the model only for servers it allowlists (or
 * with `--allow-all-mcp-server-instructions`): the hooks carry the bundle, not MCP.
 */
import { join } from "node:path";
import { readJsonValue } from "../../lib/jsonc";
import { commandOf, envDir, type HostLink, type Problem, stdioServer, type Target } from "../link";

/** Copilot's own folder: `$COPILOT_HOME`, else `~/.copilot` (its hooks, MCP and settings all move with it). */
export const copilotHome = (t: Target) => envDir("COPILOT_HOME", t.home) ?? join(t.home, ".copilot");

const hooksFile = (t: Target) => ({
  path: t.root ? join(t.root, ".github", "hooks", "coffer.json") : join(copilotHome(t), "hooks", "coffer.json"),
  dialect: "json" as const,
});

/** Copilot's settings files that may hold `disableAllHooks` for the target. */
const settingsFiles = (t: Target) =>
  t.root
    ? [join(t.root, ".github", "copilot", "settings.json"), join(t.root, ".github", "copilot", "settings.local.json")]
    : [join(copilotHome(t), "settings.json"), join(copilotHome(t), "config.json")];

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
      path: t.root ? join(t.root, ".github", "mcp.json") : join(copilotHome(t), "mcp-config.json"),
      dialect: "json",
    }),
    path: ["mcpServers", "coffer"],
    value: (bin) => ({ type: "local", ...stdioServer(bin), tools: ["*"] }),
    managed: ["type", "command", "args"],
    binaryOf: commandOf,
  },
  sessionEnd: "hook",
  installed: { dirs: [".copilot"], bins: ["copilot"], env: "COPILOT_HOME" },
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
