/**
 * Gemini CLI: hooks and MCP both in settings.json (user `~/.gemini/settings.json`, project
 * `.gemini/settings.json`), which Gemini reads with comments allowed. Hook timeouts are in
 * MILLISECONDS. Gemini does not wait for SessionEnd hooks, so `--session-end` turns on the
 * transcript sweep instead. Gemini offers an MCP server's tools in headless runs only when the
 * entry has `"trust": true`; Coffer does not grant that itself, and keeps it when the user does.
 */
import { join } from "node:path";
import { readJsonValue } from "../../lib/jsonc";
import { commandOf, configDir, type HostLink, type Problem, stdioServer, type Target } from "../link";

const settings = (t: Target) => ({
  path: join(configDir(t, ".gemini"), "settings.json"),
  dialect: "json-comments" as const,
});

export const link: HostLink = {
  host: "gemini",
  name: "Gemini CLI",
  hooks: {
    kind: "json",
    layout: "grouped",
    file: settings,
    events: [
      { native: "SessionStart", event: "session-start", timeout: 10000 },
      { native: "BeforeAgent", event: "prompt", timeout: 10000 },
      { native: "AfterTool", event: "tool", matcher: "read_file|write_file|replace", timeout: 10000 },
      { native: "PreCompress", event: "compact", timeout: 10000 },
    ],
    entry: (command, spec) => ({ type: "command", command, name: `coffer-${spec.event}`, timeout: spec.timeout }),
  },
  mcp: {
    file: settings,
    path: ["mcpServers", "coffer"],
    value: stdioServer,
    binaryOf: commandOf,
  },
  sessionEnd: "sweep",
  gets: {
    bundle: "hook",
    promptDelta: true,
    pathTriggers: ["read_file", "write_file", "replace"],
    subagents: false,
    summariser: "gemini-cli",
    harvest: true,
  },
  installed: { dirs: [".gemini"], bins: ["gemini"] },
  doctorChecks: (t): Problem[] => {
    const file = settings(t).path;
    const doc = readJsonValue(file, "json-comments") as Record<string, any> | undefined;
    const off =
      doc?.hooksConfig?.enabled === false
        ? "hooksConfig.enabled"
        : doc?.hooks?.enabled === false
          ? "hooks.enabled"
          : doc?.tools?.enableHooks === false
            ? "tools.enableHooks"
            : undefined;
    return off
      ? [
          {
            message: `Gemini CLI hooks are switched off (${off} = false in ${file})`,
            fix: `set ${off} to true in ${file}`,
          },
        ]
      : [];
  },
};
