/**
 * Antigravity CLI (`agy`): hooks in `~/.gemini/config/hooks.json` (project: `.agents/hooks.json`),
 * a JSON map of NAMED hooks, `{"<name>": {"enabled"?, "PreToolUse"|"PostToolUse": [{matcher,
 * hooks: [{type: "command", command, timeout}]}], "PreInvocation"|"PostInvocation"|"Stop": [{type,
 * command, timeout}]}}`, timeouts in seconds (antigravity.google/docs/hooks, via a mirror; PostHog
 * coherence after agy 1.5.14's bundled hooks.md; agent-orchestrator's agy plugin). Coffer owns
 * one named hook, `coffer`, with two PreInvocation handlers (see hook.ts). agy drops a hook with
 * a key it does not know, and every hook of a file it cannot parse (skillsaw's
 * `antigravity-hooks-valid`, agy 1.1.26): Coffer's entry uses the documented keys only, and
 * doctor says when one it does not know crept in.
 *
 * agy shares `~/.gemini/` with Gemini CLI but not its files: linking Antigravity never touches
 * Gemini's `settings.json`, and Gemini's link never touches these. MCP in
 * `~/.gemini/config/mcp_config.json` (project `.agents/mcp_config.json`), `mcpServers` with
 * `{command, args}` (antigravity.google/docs/cli/mcp). Finished sessions are read by the
 * transcript sweep: agy's Stop ends a turn, not a session.
 */
import { join } from "node:path";
import { readJsonValue } from "../../lib/jsonc";
import { commandOf, type HostLink, type Problem, stdioServer, type Target } from "../link";

/** Coffer's hook's name in hooks.json. */
export const HOOK_NAME = "coffer";

/** The keys agy knows in a named hook (any other drops the hook). */
export const KNOWN_KEYS = ["enabled", "PreToolUse", "PostToolUse", "PreInvocation", "PostInvocation", "Stop"];

const dir = (t: Target) => (t.root ? join(t.root, ".agents") : join(t.home, ".gemini", "config"));

const hooksFile = (t: Target) => ({ path: join(dir(t), "hooks.json"), dialect: "json" as const });

export const link: HostLink = {
  host: "antigravity",
  name: "Antigravity CLI",
  hooks: {
    kind: "json",
    layout: "mixed",
    root: [HOOK_NAME],
    file: hooksFile,
    events: [
      { native: "PreInvocation", event: "session-start", timeout: 10 },
      { native: "PreInvocation", event: "prompt", timeout: 10 },
    ],
    entry: (command, spec) => ({ type: "command", command, timeout: spec.timeout }),
  },
  mcp: {
    file: (t) => ({ path: join(dir(t), "mcp_config.json"), dialect: "json" }),
    path: ["mcpServers", "coffer"],
    value: stdioServer,
    binaryOf: commandOf,
  },
  sessionEnd: "sweep",
  gets: { bundle: "hook", promptDelta: true, pathTriggers: [], subagents: false, harvest: false },
  installed: { dirs: [".gemini/antigravity", ".gemini/antigravity-cli"], bins: ["agy"] },
  doctorChecks: (t): Problem[] => {
    const file = hooksFile(t).path;
    let doc: unknown;
    try {
      doc = readJsonValue(file, "json");
    } catch {
      return []; // an unreadable file is reported by the hooks check
    }
    const entry = doc && typeof doc === "object" ? (doc as Record<string, unknown>)[HOOK_NAME] : undefined;
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) return [];
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !KNOWN_KEYS.includes(k));
    const problems: Problem[] = [];
    if (unknown.length)
      problems.push({
        message: `Antigravity drops the "${HOOK_NAME}" hook in ${file}: it has keys agy does not know (${unknown.join(", ")})`,
        fix: `remove ${unknown.join(", ")} from "${HOOK_NAME}" in ${file}`,
      });
    if (e.enabled === false)
      problems.push({
        message: `the "${HOOK_NAME}" hook is switched off (enabled = false in ${file})`,
        fix: `remove "enabled": false from "${HOOK_NAME}" in ${file}`,
      });
    return problems;
  },
};
