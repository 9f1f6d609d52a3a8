/**
 * Copilot CLI as the distillation model: `copilot --output-format json` reads its prompt from
 * stdin (with `-p` it would ignore stdin, and one argument cannot hold a long conversation) and
 * prints JSONL events. Copilot has no system-prompt switch: Coffer's system prompt follows the
 * run marker at the top of the prompt. `--available-tools` naming no tool offers the model none,
 * `--disable-builtin-mcps` and one `--disable-mcp-server` per server of `~/.copilot/mcp-config.json`
 * start no MCP server, `--no-custom-instructions` loads no AGENTS.md or instructions file. Hooks
 * have no switch per run (only `disableAllHooks` in the user's settings): Coffer's own answer
 * empty (COFFER_NO_HOOKS), the user's other hooks still run. The answer is the last
 * `assistant.message` event's `content`; a failure is a `session.error` event and exit code 1;
 * token counts come from `--usage-output-file` (`modelMetrics.<model>.usage`), the only place
 * Copilot states them. Copilot keeps the run as a session under `~/.copilot/session-state/`
 * (its first prompt opens with the run marker: never distilled).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readJsonValue } from "../../lib/jsonc";
import {
  classifyFailure,
  count,
  type HeadlessCli,
  type HeadlessUsage,
  type RunSpec,
  tail,
  usualPlaces,
} from "../headless";

/** The usage file of this process's run (one run at a time per process). */
const usageFile = (s: RunSpec) => join(s.dir, `copilot-usage-${process.pid}.json`);

/** The names of the user's MCP servers, each switched off for the run. */
function userMcpServers(home: string): string[] {
  const doc = readJsonValue(join(process.env.COPILOT_HOME || join(home, ".copilot"), "mcp-config.json"), "json");
  const servers = doc && typeof doc === "object" ? (doc as { mcpServers?: unknown }).mcpServers : undefined;
  return servers && typeof servers === "object" ? Object.keys(servers) : [];
}

/** Tokens summed over `modelMetrics`, and the model when there was one. */
export function copilotUsage(doc: unknown): { usage?: HeadlessUsage; model?: string } {
  const metrics = (doc as { modelMetrics?: unknown } | undefined)?.modelMetrics;
  if (!metrics || typeof metrics !== "object") return {};
  let input = 0;
  let output = 0;
  let counted = false;
  for (const m of Object.values(metrics) as { usage?: Record<string, unknown> }[]) {
    const u = m?.usage;
    const i = count(u?.inputTokens);
    const o = count(u?.outputTokens);
    if (i === undefined && o === undefined) continue;
    counted = true;
    input += i ?? 0;
    output += o ?? 0;
  }
  const names = Object.keys(metrics);
  return {
    ...(counted ? { usage: { input_tokens: input, output_tokens: output } } : {}),
    ...(names.length === 1 ? { model: names[0] } : {}),
  };
}

function readUsage(spec: RunSpec | undefined): ReturnType<typeof copilotUsage> {
  if (!spec) return {};
  const file = usageFile(spec);
  try {
    return copilotUsage(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return {};
  } finally {
    rmSync(file, { force: true });
  }
}

export const headless: HeadlessCli = {
  provider: "copilot-cli",
  host: "copilot",
  bin: "copilot",
  command: "copilot",
  plan: "your GitHub Copilot plan",
  defaultModel: () => "claude-haiku-4.5",
  places: (home) => usualPlaces(home, "copilot"),
  // The marker stays first (a run's own session is recognised by it); the system prompt follows.
  stdin: (spec, input) => {
    const nl = input.indexOf("\n");
    const marker = nl < 0 ? input : input.slice(0, nl);
    return `${marker}\n\n${spec.system.trim()}\n\n${nl < 0 ? "" : input.slice(nl + 1).trimStart()}`;
  },
  argv: (s) => [
    "--output-format",
    "json",
    ...(s.model ? ["--model", s.model] : []),
    "--available-tools=coffer-headless-none",
    "--disable-builtin-mcps",
    ...userMcpServers(s.home).map((name) => `--disable-mcp-server=${name}`),
    "--no-custom-instructions",
    "--no-ask-user",
    "--no-auto-update",
    "--stream=off",
    "--usage-output-file",
    usageFile(s),
  ],
  env: () => ({ COPILOT_AUTO_UPDATE: "false" }),
  setup: { login: "run `copilot` in a terminal and type /login" },
  parse: ({ stdout, stderr, code }, spec) => {
    const used = readUsage(spec);
    let text: string | undefined;
    let error: string | undefined;
    for (const line of stdout.split("\n")) {
      if (!line.startsWith("{")) continue;
      let r: { type?: unknown; data?: Record<string, unknown> };
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (r.type === "assistant.message" && typeof r.data?.content === "string" && r.data.content.trim())
        text = r.data.content;
      else if (r.type === "session.error") error = String(r.data?.message ?? r.data?.errorType ?? "error");
    }
    // Logged out (no token, no custom provider): exit 1 and how to sign in, on stderr.
    if (code !== 0 && /To authenticate, you can use/.test(stderr))
      return { ok: false, kind: "auth", message: "not logged in to GitHub Copilot" };
    if (error !== undefined || (code !== 0 && text === undefined)) {
      const why = error ?? (tail(stderr) || tail(stdout) || "no output");
      const status = /\b(?:status|HTTP)\s*:?\s*(\d{3})\b/i.exec(why)?.[1];
      const unreachable = /could not connect|connection (refused|error)/i.test(why);
      const kind = classifyFailure({ text: why, ...(status ? { status: Number(status) } : {}), unreachable });
      return { ok: false, kind, message: code !== 0 && error === undefined ? `exited ${code}: ${why}` : why };
    }
    if (text === undefined)
      return {
        ok: false,
        kind: "malformed",
        message: `answered without an assistant message: ${tail(stdout) || "nothing"}`,
      };
    return { ok: true, text, ...used };
  },
};
