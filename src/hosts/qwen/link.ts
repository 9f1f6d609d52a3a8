/**
 * Qwen Code: hooks and MCP both in settings.json (user `~/.qwen/settings.json`, project
 * `.qwen/settings.json`; `$QWEN_HOME` moves `~/.qwen`), read with comments allowed; the MCP entry is
 * the `{command, args}` shape `qwen mcp add` writes. Hook timeouts are in SECONDS (0.24: a value of
 * 1,000 or more is read as legacy milliseconds). Qwen fires no SessionEnd hook in a headless run, so
 * `--session-end` turns on the transcript sweep, as for Gemini CLI. No SubagentStart hook: 0.24.4
 * runs it, but keeps its context as the template variable `${hook_context}`, which the built-in
 * agents' prompts never use (test/agents/qwen-subagents.test.ts). A subagent's tool calls fire
 * PostToolUse, whose context reaches it: PostToolUse has no matcher, so the subagent's first tool
 * result of any tool carries its bundle, and path triggers reach it too.
 * `"disableAllHooks": true` switches every hook off; `memory.enableManagedAutoMemory` is its auto
 * memory (`--native-memory off` sets it false).
 */
import { join } from "node:path";
import { readJsonValue } from "../../lib/jsonc";
import { commandOf, envDir, type HostLink, type Problem, stdioServer, type Target } from "../link";

/** Qwen's user folder: `$QWEN_HOME` (`~` expanded, as Qwen does), else `~/.qwen`; a project's `.qwen`. */
const qwenDir = (t: Target) =>
  t.root ? join(t.root, ".qwen") : (envDir("QWEN_HOME", t.home, true) ?? join(t.home, ".qwen"));

const settings = (t: Target) => ({
  path: join(qwenDir(t), "settings.json"),
  dialect: "json-comments" as const,
});

export const link: HostLink = {
  host: "qwen",
  name: "Qwen Code",
  hooks: {
    kind: "json",
    layout: "grouped",
    file: settings,
    events: [
      { native: "SessionStart", event: "session-start", timeout: 10 },
      { native: "UserPromptSubmit", event: "prompt", timeout: 10 },
      // Every tool: a subagent's first tool result, whatever the tool, carries its bundle (the
      // main agent's other tools are answered empty before the store is opened).
      { native: "PostToolUse", event: "tool", timeout: 10 },
      { native: "PreCompact", event: "compact", timeout: 10 },
    ],
    entry: (command, spec) => ({ type: "command", command, timeout: spec.timeout }),
  },
  mcp: {
    file: settings,
    path: ["mcpServers", "coffer"],
    value: stdioServer,
    binaryOf: commandOf,
  },
  // Qwen's auto memory (its extractor writes ~/.qwen/projects/<project>/memory/ after each turn).
  nativeMemory: { file: settings, settings: [{ path: ["memory", "enableManagedAutoMemory"], off: false }] },
  sessionEnd: "sweep",
  gets: {
    bundle: "hook",
    promptDelta: true,
    pathTriggers: ["read_file", "write_file", "edit"],
    subagents: true,
    summariser: "qwen-code",
    harvest: true,
  },
  installed: { dirs: [".qwen"], bins: ["qwen"], env: "QWEN_HOME", envTilde: true },
  // A repository's MCP servers wait for the user's approval (bound to the entry's hash in
  // mcpApprovals.json): Coffer leaves that decision to them. The hooks run without it.
  linkNotes: (t) =>
    t.root
      ? [
          `Qwen Code starts a repository's MCP servers only once you approve them: run \`qwen mcp approve coffer\` in ${t.root} (the hooks need no approval)`,
        ]
      : [],
  doctorChecks: (t): Problem[] => {
    const file = settings(t).path;
    const doc = readJsonValue(file, "json-comments") as { disableAllHooks?: unknown } | undefined;
    return doc?.disableAllHooks === true
      ? [
          {
            message: `Qwen Code runs no hooks at all: "disableAllHooks": true in ${file}`,
            fix: `remove "disableAllHooks" from ${file}`,
          },
        ]
      : [];
  },
};
