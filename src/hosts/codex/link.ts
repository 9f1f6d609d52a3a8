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
import { commandOf, configDir, type HostLink, type Problem, stdioServer, type Target } from "../link";

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
  installed: { dirs: [".codex"], bins: ["codex"] },
  reminders: [TRUST],
  doctorChecks: hooksSwitchedOff,
};
