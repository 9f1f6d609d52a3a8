/**
 * Codex: hooks in `hooks.json` (user `~/.codex/hooks.json`, project `.codex/hooks.json`), same
 * shape as Claude's; MCP and the native-memory switches in `config.toml` (`[mcp_servers.coffer]`,
 * `[features] memories`, `[memories] generate_memories`). No SessionEnd event: `--session-end`
 * turns on the transcript sweep. Codex runs a hook only after the user trusts it in `/hooks`,
 * and runs it without the user's shell rc files (hence absolute paths).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { sha256 } from "../../lib/hash";
import { agentDir } from "../../lib/paths";
import {
  commandOf,
  configDir,
  type HookEntry,
  type HookTrust,
  type HostLink,
  type Problem,
  stdioServer,
  type Target,
} from "../link";

const dir = (t: Target) => configDir(t, ".codex");
const configToml = (t: Target) => join(dir(t), "config.toml");

const TRUST =
  "Codex runs hooks only after you trust them: start Codex, type /hooks, and trust the Coffer entries (again after a re-link that changes them).";

function hooksSwitchedOff(t: Target): Problem[] {
  const file = configToml(t);
  if (!existsSync(file)) return [];
  try {
    const doc = parseToml(readFileSync(file, "utf8")) as { features?: Record<string, unknown> };
    const f = doc.features ?? {};
    const key = f.hooks === false ? "hooks" : f.codex_hooks === false ? "codex_hooks" : undefined;
    return key
      ? [
          {
            message: `Codex hooks are switched off ([features] ${key} = false in ${file})`,
            fix: `remove "${key} = false" from [features] in ${file}`,
          },
        ]
      : [];
  } catch {
    return [{ message: `${file} is not valid TOML`, fix: `fix ${file} by hand (Codex will not start with it either)` }];
  }
}

/** Codex's event names in trust keys: `SessionStart` -> `session_start`. */
const snake = (event: string) => event.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

/** Events whose matcher Codex ignores (and leaves out of the hash). */
const NO_MATCHER = new Set(["user_prompt_submit", "stop"]);

/**
 * The hash Codex 0.169 stores as `trusted_hash` when the user trusts a command hook in /hooks:
 * sha256 of the handler's normalized JSON with sorted keys (event name, matcher, the handler
 * with `async` and the default timeout of 600 s filled in). Observed with the real CLI's
 * app-server `hooks/list` (docs/hosts-observed.md); undefined for a handler shape Coffer does
 * not write (its hash is not known).
 */
export function codexHookHash(e: HookEntry): string | undefined {
  const h = e.handler;
  const known = new Set(["type", "command", "timeout"]);
  if (h.type !== "command" || typeof h.command !== "string" || Object.keys(h).some((k) => !known.has(k)))
    return undefined;
  const event = snake(e.event);
  const handler = {
    async: false,
    command: h.command,
    timeout: typeof h.timeout === "number" ? h.timeout : 600,
    type: "command",
  };
  const doc: Record<string, unknown> = { event_name: event, hooks: [handler] };
  if (e.matcher !== undefined && !NO_MATCHER.has(event)) doc.matcher = e.matcher;
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  return `sha256:${sha256(JSON.stringify(sorted(doc)))}`;
}

/**
 * What Codex's user config says about each of Coffer's hook entries: `[hooks.state."<hooks.json
 * path>:<event>:<group>:<handler>"]` holds `trusted_hash` (and `enabled = false` when switched
 * off in /hooks). No entry: never trusted; another hash: changed since it was trusted.
 */
function hookTrust(_t: Target, entries: HookEntry[]): { file: string; trust: HookTrust[] } {
  const file = join(agentDir("codex"), "config.toml");
  let state: Record<string, { trusted_hash?: unknown; enabled?: unknown }> = {};
  try {
    const doc = parseToml(readFileSync(file, "utf8")) as { hooks?: { state?: typeof state } };
    if (doc.hooks?.state && typeof doc.hooks.state === "object") state = doc.hooks.state;
  } catch {}
  return {
    file,
    trust: entries.map((e) => {
      const s = state[`${e.file}:${snake(e.event)}:${e.group}:${e.index}`];
      if (s?.enabled === false) return "disabled";
      if (typeof s?.trusted_hash !== "string") return "untrusted";
      return s.trusted_hash === codexHookHash(e) ? "trusted" : "modified";
    }),
  };
}

export const link: HostLink = {
  host: "codex",
  name: "Codex",
  hooks: {
    kind: "json",
    layout: "grouped",
    file: (t) => ({ path: join(dir(t), "hooks.json"), dialect: "json" }),
    events: [
      { native: "SessionStart", event: "session-start", matcher: "startup|resume|clear|compact", timeout: 10 },
      { native: "UserPromptSubmit", event: "prompt", timeout: 10 },
      { native: "PreToolUse", event: "tool", matcher: "apply_patch", timeout: 10 },
      { native: "PreCompact", event: "compact", timeout: 10 },
      { native: "SubagentStart", event: "subagent-start", matcher: "*", timeout: 10 },
    ],
    entry: (command, spec) => ({ type: "command", command, timeout: spec.timeout }),
  },
  mcp: {
    file: (t) => ({ path: configToml(t), dialect: "toml" }),
    path: ["mcp_servers", "coffer"],
    value: stdioServer,
    binaryOf: commandOf,
  },
  nativeMemory: {
    file: (t) => ({ path: configToml(t), dialect: "toml" }),
    settings: [
      { path: ["features", "memories"], off: false },
      { path: ["memories", "generate_memories"], off: false },
    ],
  },
  sessionEnd: "sweep",
  gets: {
    bundle: "hook",
    promptDelta: true,
    pathTriggers: ["apply_patch"],
    subagents: true,
    summariser: "codex",
    harvest: true,
  },
  installed: { dirs: [".codex"], bins: ["codex"] },
  reminders: [TRUST],
  doctorChecks: hooksSwitchedOff,
  hookTrust,
};
