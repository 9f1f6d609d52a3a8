import { resolve } from "node:path";
import { loadConfigOrDefaults } from "../config/config";
import { maxTokensCapacity } from "../hosts/hook";
import { loadHookAdapter } from "../hosts/index";
import type { Host } from "../lib/hosts";
import { closeStore, isAbsoluteDir, openStore, withHealing } from "../store";
import { hookLog } from "./log";
import { sessionStartText } from "./run";

/**
 * The additionalContext `coffer hook session-start --agent <host>` injects for `cwd` in a fresh
 * session (used by the HTTP session-context route). Reads only: no session is recorded.
 * "" when the host cannot take context at session start, the cwd is not an absolute existing
 * directory, or the read mode is off.
 */
export async function sessionStartContext(host: Host, cwd: string): Promise<string> {
  const adapter = await loadHookAdapter(host);
  if (!adapter?.injects.includes("session-start") || !isAbsoluteDir(cwd)) return "";
  const config = loadConfigOrDefaults();
  if (config["hook.read"] === "off") return "";
  const store = openStore({
    cwd: resolve(cwd),
    freshness: "shallow",
    rebuildAll: false,
    config,
    notice: (m) => hookLog(m, { host, event: "session-context" }),
  });
  try {
    return withHealing(store, () => sessionStartText(store, config, adapter.capacity(config)));
  } finally {
    closeStore(store);
  }
}

/**
 * The rules bundle for `cwd` as an MCP server's `instructions` (`coffer serve --stdio --rules`):
 * for agents that show a server's instructions to the model but run no hook that can inject
 * (Goose). Reads only; "" when the read mode is off or `cwd` is not an existing directory.
 */
export async function rulesInstructions(cwd: string): Promise<string> {
  if (!isAbsoluteDir(cwd)) return "";
  const config = loadConfigOrDefaults();
  if (config["hook.read"] === "off") return "";
  const store = openStore({
    cwd: resolve(cwd),
    freshness: "shallow",
    rebuildAll: false,
    config,
    notice: (m) => hookLog(m, { host: "goose", event: "session-context" }),
  });
  try {
    return withHealing(store, () => sessionStartText(store, config, maxTokensCapacity(config)));
  } finally {
    closeStore(store);
  }
}
