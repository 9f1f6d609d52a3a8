/**
 * Kimi Code as the distillation model: `kimi --agent-file <file> -p <input> --output-format
 * stream-json`. The agent file (written in Coffer's headless folder) is Kimi's documented way to
 * replace the main agent: its body is the whole system prompt (Coffer's) and `tools: []` offers
 * the model no tool, MCP tools included (`subagents: []`: nothing to delegate to). `-p` takes the
 * prompt only as an argument (Kimi reads no stdin), so the run marker and the conversation go
 * there (`distill.budget_chars` keeps them far below the 128 KiB an argument may hold). Hooks
 * have no switch: Coffer's answer empty (COFFER_NO_HOOKS), the user's other hooks still run. The
 * answer is the last `{"role":"assistant","content"}` line (a hook's output shows as an earlier
 * one); a `session.resume_hint` line names the session, whose `wire.jsonl` holds the tokens
 * (`usage.record`). A failing API shows as `turn.step.retrying` lines (10 tries, minutes). Kimi
 * keeps the run as a session (its first prompt is the marker: never distilled). Observed with
 * Kimi Code 2.1.0 (docs/hosts-observed.md).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../../lib/hash";
import {
  classifyFailure,
  count,
  type HeadlessCli,
  type HeadlessUsage,
  type RunSpec,
  tail,
  usualPlaces,
} from "../headless";

const agentFile = (system: string) => `kimi-agent-${sha256(system).slice(0, 12)}.md`;

function agentText(system: string): string {
  return `---\nname: coffer-distill\ndescription: Coffer's distillation run (no tools)\ntools: []\nsubagents: []\n---\n${system.trim()}\n`;
}

/** Tokens of one session from its wire log (`usage.record` lines of the main agent). */
export function kimiUsage(spec: RunSpec | undefined, sessionId: string | undefined): HeadlessUsage | undefined {
  if (!spec || !sessionId || !/^session_[A-Za-z0-9-]+$/.test(sessionId)) return undefined;
  const root = join(process.env.KIMI_CODE_HOME || join(spec.home, ".kimi-code"), "sessions");
  let input = 0;
  let output = 0;
  let counted = false;
  try {
    for (const wd of readdirSync(root)) {
      let text: string;
      try {
        text = readFileSync(join(root, wd, sessionId, "agents", "main", "wire.jsonl"), "utf8");
      } catch {
        continue;
      }
      for (const line of text.split("\n")) {
        if (!line.includes('"usage.record"')) continue;
        const u = (JSON.parse(line) as { usage?: Record<string, unknown> }).usage;
        if (!u) continue;
        counted = true;
        input += (count(u.inputOther) ?? 0) + (count(u.inputCacheRead) ?? 0) + (count(u.inputCacheCreation) ?? 0);
        output += count(u.output) ?? 0;
      }
      break;
    }
  } catch {
    return undefined;
  }
  return counted ? { input_tokens: input, output_tokens: output } : undefined;
}

export const headless: HeadlessCli = {
  provider: "kimi-code",
  host: "kimi",
  bin: "kimi",
  command: "kimi -p",
  plan: "your Kimi account",
  // Kimi's configured default model (`default_model`): it has no cheap alias of its own to name.
  defaultModel: () => undefined,
  places: (home) => usualPlaces(home, "kimi"),
  files: (system) => ({ [agentFile(system)]: agentText(system) }),
  argv: (s) => [
    "--agent-file",
    join(s.dir, agentFile(s.system)),
    ...(s.model ? ["-m", s.model] : []),
    "-p",
    s.input ?? "",
    "--output-format",
    "stream-json",
  ],
  stdin: () => "",
  env: () => ({}),
  setup: { login: "run `kimi` in a terminal and type /login (or set default_model in ~/.kimi-code/config.toml)" },
  parse: ({ stdout, stderr, code }, spec) => {
    let text: string | undefined;
    let sessionId: string | undefined;
    let retrying: string | undefined;
    for (const line of stdout.split("\n")) {
      if (!line.startsWith("{")) continue;
      let r: Record<string, unknown>;
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (r.role === "assistant" && typeof r.content === "string") text = r.content;
      else if (r.type === "session.resume_hint" && typeof r.session_id === "string") sessionId = r.session_id;
      else if (r.type === "turn.step.retrying") retrying = `${r.error_name ?? "error"}: ${r.error_message ?? ""}`;
    }
    if (code !== 0 || text === undefined) {
      if (/No model configured/.test(stderr)) return { ok: false, kind: "auth", message: "not logged in to Kimi Code" };
      const why = retrying ?? (tail(stderr) || tail(stdout) || "no output");
      const kind = classifyFailure({ text: why, unreachable: /APIConnectionError|Connection error/.test(why) });
      return { ok: false, kind, message: code !== 0 ? `exited ${code}: ${why}` : why };
    }
    const usage = kimiUsage(spec, sessionId);
    return { ok: true, text, ...(usage ? { usage } : {}) };
  },
};
