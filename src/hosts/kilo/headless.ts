/**
 * Kilo Code as the distillation model: `kilo run --format json --pure --agent coffer` reads the
 * conversation from stdin and prints JSON events. The `coffer` agent comes in
 * `KILO_CONFIG_CONTENT` (which Kilo merges over the user's config): Coffer's system prompt, every
 * tool off (`"*": false`), no instructions files; each MCP server of the user's global config and
 * Coffer's own is switched off by name (`tools` off does not stop a server from starting).
 * `--pure` loads no plugin, so Coffer's plugin (its hooks) never runs; `--title` spares the
 * request Kilo would make to title the session. `KILO_DB` keeps the run's
 * session out of the user's `kilo.db` (in Coffer's headless folder), so the sweep never sees it;
 * `KILO_SESSION_RETRY_LIMIT` stops Kilo's own endless retries (Coffer retries). Observed with 7.7.7:
 * Kilo still puts its own persona (about 1.5 KB) before the agent's prompt and adds the user's global
 * `AGENTS.md`; the answer is the `text` events' parts, tokens each `step_finish` part's `tokens`
 * (`input`, `output`, `reasoning`, `cache.{read,write}`) and `cost`; a failure is an `error` event
 * (`{error: {name, data: {message, statusCode?}}}`) and exit 1.
 */
import { join } from "node:path";
import { readJsonValue } from "../../lib/jsonc";
import { classifyFailure, count, type HeadlessCli, tail, usualPlaces } from "../headless";

/** Kilo's global config folder, as it reads it (XDG_CONFIG_HOME honoured on every OS). */
const configDir = (home: string) => join(process.env.XDG_CONFIG_HOME || join(home, ".config"), "kilo");

/** The files Kilo merges into its global config (and `KILO_CONFIG`, one more). */
const CONFIG_FILES = ["config.json", "kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc"];

/** MCP servers in the user's global Kilo config files, and Coffer's own: each switched off for the run. */
function mcpServers(home: string): string[] {
  const names = new Set(["coffer"]);
  const files = CONFIG_FILES.map((f) => join(configDir(home), f));
  if (process.env.KILO_CONFIG) files.push(process.env.KILO_CONFIG);
  for (const file of files) {
    const config = readJsonValue(file, "jsonc") as { mcp?: unknown } | undefined;
    if (config?.mcp && typeof config.mcp === "object") for (const name of Object.keys(config.mcp)) names.add(name);
  }
  return [...names];
}

/** What Kilo merges over the user's config for the run. */
function runConfig(system: string, home: string): string {
  return JSON.stringify({
    agent: { coffer: { mode: "primary", prompt: system, tools: { "*": false } } },
    instructions: [],
    mcp: Object.fromEntries(mcpServers(home).map((n) => [n, { enabled: false }])),
  });
}

type KiloEvent = { type?: string; part?: Record<string, any>; error?: Record<string, any> };

function events(stdout: string): KiloEvent[] {
  const out: KiloEvent[] = [];
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line));
    } catch {}
  }
  return out;
}

export const headless: HeadlessCli = {
  provider: "kilo-code",
  host: "kilo",
  bin: "kilo",
  command: "kilo run",
  plan: "your Kilo Code provider",
  defaultModel: () => undefined,
  places: (home) => usualPlaces(home, "kilo"),
  argv: (s) => [
    "run",
    "--format",
    "json",
    "--pure",
    "--agent",
    "coffer",
    // A title given: Kilo asks the model for none (a second request otherwise).
    "--title",
    "coffer distillation run",
    ...(s.model ? ["-m", s.model] : []),
  ],
  env: (s) => ({
    KILO_CONFIG_CONTENT: runConfig(s.system, s.home),
    KILO_DB: join(s.dir, "kilo-runs.db"),
    KILO_SESSION_RETRY_LIMIT: "1",
    KILO_DISABLE_PROJECT_CONFIG: "1",
    KILO_DISABLE_CLAUDE_CODE: "1",
    KILO_DISABLE_CLAUDE_CODE_PROMPT: "1",
    KILO_DISABLE_EXTERNAL_SKILLS: "1",
    KILO_DISABLE_CODEBASE_INDEXING: "1",
    KILO_DISABLE_MODELS_FETCH: "1",
    KILO_DISABLE_AUTOUPDATE: "1",
    KILO_DISABLE_SHARE: "1",
    KILO_DISABLE_SESSION_INGEST: "1",
  }),
  setup: { login: "run `kilo auth` (or configure a provider in ~/.config/kilo/kilo.json)" },
  parse: ({ stdout, stderr, code }) => {
    const evs = events(stdout);
    const failure = evs.findLast((e) => e.type === "error");
    if (failure) {
      const data = failure.error?.data ?? {};
      const message = String(data.message ?? failure.error?.name ?? "error");
      const status = count(data.statusCode);
      const unreachable = /cannot connect|unable to connect/i.test(message);
      return { ok: false, kind: classifyFailure({ text: message, status, unreachable }), message };
    }
    const texts = new Map<string, string>();
    let input = 0;
    let output = 0;
    let cost: number | undefined;
    let steps = 0;
    for (const e of evs) {
      if (e.type === "text" && typeof e.part?.text === "string")
        texts.set(String(e.part.id ?? texts.size), e.part.text);
      if (e.type === "step_finish" && e.part?.tokens && typeof e.part.tokens === "object") {
        const t = e.part.tokens;
        steps++;
        input += (count(t.input) ?? 0) + (count(t.cache?.read) ?? 0) + (count(t.cache?.write) ?? 0);
        output += (count(t.output) ?? 0) + (count(t.reasoning) ?? 0);
        if (typeof e.part.cost === "number" && e.part.cost > 0) cost = (cost ?? 0) + e.part.cost;
      }
    }
    if (!steps) {
      const why = tail(stderr) || tail(stdout);
      if (code !== 0)
        return { ok: false, kind: classifyFailure({ text: why }), message: `exited ${code}: ${why || "no output"}` };
      return {
        ok: false,
        kind: "malformed",
        message: `answered without a finished step: ${tail(stdout) || "nothing"}`,
      };
    }
    return {
      ok: true,
      text: [...texts.values()].join(""),
      usage: { input_tokens: input, output_tokens: output, ...(cost !== undefined ? { cost_usd: cost } : {}) },
    };
  },
};
