/**
 * Pi as the distillation model: `pi -p --mode json ""` reads the conversation from stdin and prints
 * its events as JSON lines. Coffer's system prompt replaces Pi's (`--system-prompt`); `--no-tools`,
 * `--no-extensions` (Coffer's own extension included: no hooks run), `--no-skills`,
 * `--no-context-files` (no AGENTS.md/CLAUDE.md), `--no-prompt-templates` and `--no-themes` leave the
 * model the conversation alone; `--no-session` keeps the run out of `~/.pi/agent/sessions`;
 * `--offline` skips Pi's start-up network checks (the model call still goes out). Pi has no MCP
 * client. Observed with 0.73.1: the last `agent_end` event lists the run's messages; the assistant's
 * carries `content`, `model`, `usage.{input,output}` and `stopReason`. A failed call still exits 0:
 * `stopReason: "error"` with `errorMessage` (after Pi's own retries); no usable model or key exits 1
 * with `No API key found for the selected model.` on stderr.
 */
import { classifyFailure, count, type HeadlessCli, tail, usualPlaces } from "../headless";

/** The last `agent_end` event's last assistant message, if the output holds one. */
function lastAssistant(stdout: string): Record<string, any> | undefined {
  const lines = stdout.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.startsWith('{"type":"agent_end"')) continue;
    try {
      const messages: unknown = JSON.parse(line).messages;
      if (!Array.isArray(messages)) return undefined;
      return messages.findLast((m) => m && typeof m === "object" && m.role === "assistant");
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const NO_KEY = /\bno api key found\b/i;

export const headless: HeadlessCli = {
  provider: "pi",
  host: "pi",
  bin: "pi",
  command: "pi -p",
  plan: "your Pi provider",
  defaultModel: () => undefined,
  places: (home) => usualPlaces(home, "pi"),
  argv: (s) => [
    "-p",
    "--mode",
    "json",
    ...(s.model ? ["--model", s.model] : []),
    "--system-prompt",
    s.system,
    "--no-tools",
    "--no-extensions",
    "--no-skills",
    "--no-context-files",
    "--no-prompt-templates",
    "--no-themes",
    "--no-session",
    "--offline",
    "",
  ],
  env: () => ({}),
  setup: { login: "run `pi` in a terminal and sign in with /login (or set your provider's API key)" },
  parse: ({ stdout, stderr, code }) => {
    const m = lastAssistant(stdout);
    if (m?.stopReason === "error" || m?.stopReason === "aborted") {
      const message = String(m.errorMessage ?? m.stopReason);
      const status = Number(/^(\d{3})\b/.exec(message)?.[1]) || undefined;
      return { ok: false, kind: classifyFailure({ text: message, status }), message };
    }
    if (!m) {
      const why = tail(stderr) || tail(stdout);
      if (NO_KEY.test(stderr)) return { ok: false, kind: "auth", message: why };
      if (code !== 0)
        return { ok: false, kind: classifyFailure({ text: why }), message: `exited ${code}: ${why || "no output"}` };
      return {
        ok: false,
        kind: "malformed",
        message: `answered without its agent_end event: ${tail(stdout) || "nothing"}`,
      };
    }
    const text = (Array.isArray(m.content) ? m.content : [])
      .filter((b: any) => b?.type === "text" && typeof b.text === "string")
      .map((b: any) => b.text as string)
      .join("");
    const input = count(m.usage?.input);
    const output = count(m.usage?.output);
    return {
      ok: true,
      text,
      ...(input !== undefined && output !== undefined ? { usage: { input_tokens: input, output_tokens: output } } : {}),
      ...(typeof m.model === "string" ? { model: m.model } : {}),
    };
  },
};
