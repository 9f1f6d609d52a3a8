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
import { isAbsolute, join, relative, resolve } from "node:path";
import { readJsonValue } from "../../lib/jsonc";
import { commandOf, envDir, type HostLink, type Problem, stdioServer, type Target } from "../link";

/** Copilot's own folder: `$COPILOT_HOME`, else `~/.copilot` (its hooks, MCP and settings all move with it). */
const copilotHome = (t: Target) => envDir("COPILOT_HOME", t.home, false) ?? join(t.home, ".copilot");

const hooksFile = (t: Target) => ({
  path: t.root ? join(t.root, ".github", "hooks", "coffer.json") : join(copilotHome(t), "hooks", "coffer.json"),
  dialect: "json" as const,
});

/**
 * Whether Copilot will run a repository's hooks: 1.0.102 loads `.github/hooks/` only in a folder
 * the user trusted (recorded in `trustedFolders` of its `config.json` when they choose to remember
 * it), or with `COPILOT_ALLOW_ALL=true`. A trusted parent folder counts.
 */
function repoTrusted(t: Target & { root: string }): boolean {
  if (process.env.COPILOT_ALLOW_ALL === "true") return true;
  const doc = readJsonValue(join(copilotHome(t), "config.json"), "json-comments") as
    | { trustedFolders?: unknown }
    | undefined;
  const folders = Array.isArray(doc?.trustedFolders) ? doc.trustedFolders : [];
  const root = resolve(t.root);
  return folders.some((f) => {
    if (typeof f !== "string" || !f) return false;
    const rel = relative(resolve(f), root);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
}

const untrusted = (t: Target) =>
  t.root && !repoTrusted({ ...t, root: t.root })
    ? `Copilot CLI runs this repository's hooks only in a folder you trust: run \`copilot\` in ${t.root} once and choose to remember the folder (it records it in ${join(copilotHome(t), "config.json")} "trustedFolders")`
    : undefined;

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
  gets: {
    bundle: "hook",
    promptDelta: true,
    pathTriggers: ["view", "edit", "create"],
    subagents: true,
    summariser: "copilot-cli",
    harvest: false,
  },
  installed: { dirs: [".copilot"], bins: ["copilot"], env: "COPILOT_HOME" },
  linkNotes: (t) => {
    const why = untrusted(t);
    return why ? [why] : [];
  },
  doctorChecks: (t): Problem[] => {
    const why = untrusted(t);
    if (why)
      return [
        {
          message: `Copilot CLI will not run this repository's hooks: ${t.root} is not a trusted folder`,
          fix: why.slice(why.indexOf(": ") + 2),
        },
      ];
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
