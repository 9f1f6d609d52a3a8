/**
 * Claude Code: hooks in settings.json (user `~/.claude/settings.json`, project
 * `.claude/settings.json`), MCP in `~/.claude.json` `mcpServers` (project `.mcp.json`),
 * native memory = `autoMemoryEnabled` in the same settings.json. Timeouts in seconds.
 */
import { join } from "node:path";
import { readJsonValue } from "../../lib/jsonc";
import { commandOf, configDir, type HostLink, type OtherWayIn, type Problem, stdioServer, type Target } from "../link";

const settings = (t: Target) => ({
  path: join(configDir(t, ".claude"), "settings.json"),
  dialect: "json" as const,
});

/**
 * Coffer's Claude Code plugin (this repository's marketplace: `coffer@<marketplace>`) where it is
 * enabled for the target's scope: `enabledPlugins` in the user's settings.json, or the project's
 * shared and local settings.
 */
function enabledCofferPlugin(t: Target): OtherWayIn | undefined {
  const files = t.root
    ? [join(t.root, ".claude", "settings.json"), join(t.root, ".claude", "settings.local.json")]
    : [settings(t).path];
  for (const file of files) {
    const enabled = (readJsonValue(file, "json") as { enabledPlugins?: unknown } | undefined)?.enabledPlugins;
    if (!enabled || typeof enabled !== "object") continue;
    const id = Object.entries(enabled).find(([k, v]) => v === true && k.startsWith("coffer@"))?.[0];
    if (id)
      return { what: `the Claude Code plugin ${id} (enabled in ${file})`, remove: `claude plugin uninstall ${id}` };
  }
  return undefined;
}

export const link: HostLink = {
  host: "claude",
  name: "Claude Code",
  hooks: {
    kind: "json",
    layout: "grouped",
    file: settings,
    events: [
      { native: "SessionStart", event: "session-start", matcher: "startup|resume|clear|compact", timeout: 10 },
      { native: "UserPromptSubmit", event: "prompt", timeout: 10 },
      { native: "PreToolUse", event: "tool", matcher: "Read|Edit|Write|MultiEdit", timeout: 10 },
      { native: "PreCompact", event: "compact", timeout: 10 },
      { native: "SubagentStart", event: "subagent-start", matcher: "*", timeout: 10 },
      { native: "SessionEnd", event: "session-end", timeout: 5, optIn: true },
    ],
    entry: (command, spec) => ({ type: "command", command, timeout: spec.timeout }),
  },
  mcp: {
    // `claude mcp add` writes this shape; Claude Code rewrites ~/.claude.json often, so only this key changes.
    file: (t) => ({ path: t.root ? join(t.root, ".mcp.json") : join(t.home, ".claude.json"), dialect: "json" }),
    path: ["mcpServers", "coffer"],
    value: (bin) => ({ type: "stdio", ...stdioServer(bin), env: {} }),
    managed: ["type", "command", "args"],
    binaryOf: commandOf,
  },
  nativeMemory: { file: settings, settings: [{ path: ["autoMemoryEnabled"], off: false }] },
  sessionEnd: "hook",
  gets: {
    bundle: "hook",
    promptDelta: true,
    pathTriggers: ["Read", "Edit", "Write"],
    subagents: true,
    summariser: "claude-code",
    harvest: true,
  },
  installed: { dirs: [".claude"], bins: ["claude"] },
  otherWayIn: enabledCofferPlugin,
  linkNotes: (t) => {
    const plugin = enabledCofferPlugin(t);
    return plugin
      ? [
          `${plugin.what} also injects Coffer: remove one (${plugin.remove}, or keep the plugin: coffer unlink claude${t.root ? " --project" : ""})`,
        ]
      : [];
  },
  doctorChecks: (t): Problem[] => {
    const file = settings(t).path;
    const doc = readJsonValue(file, "json") as { disableAllHooks?: unknown } | undefined;
    return doc?.disableAllHooks === true
      ? [
          {
            message: `Claude Code runs no hooks at all: "disableAllHooks": true in ${file}`,
            fix: `remove "disableAllHooks" from ${file}`,
          },
        ]
      : [];
  },
};
