/**
 * Claude Code as the distillation model: `claude -p --output-format json`, the conversation on
 * stdin, Coffer's system prompt instead of Claude Code's, no built-in tools (`--tools ""`), no
 * MCP servers (`--strict-mcp-config` without a config), no hooks (`disableAllHooks` in
 * `--settings`), no skills, and no session file (`--no-session-persistence`). The answer is one
 * JSON document: `result` (the text), `is_error`, `api_error_status`, `usage` (Anthropic's
 * shape) and `total_cost_usd`; a failure (logged out, 401/429/5xx) is the same document with
 * `is_error: true`, exit code 1.
 */
import { join } from "node:path";
import {
  classifyFailure,
  count,
  type FailureReport,
  type HeadlessCli,
  jsonObjectIn,
  tail,
  usualPlaces,
} from "../headless";

/**
 * What a failed turn's `result` reports. Claude Code words an API failure as `API Error: <status>
 * <the API's JSON body>` (the body's `error.type`: `rate_limit_error`, `overloaded_error`, ...), and
 * one that got no answer at all as `API Error: Connection error.` or `API Error: Request timed out.`
 * (no status: the request never reached Anthropic). A plan's limit is its own sentence
 * ("Claude AI usage limit reached|<time>", "You've hit your limit · resets 3pm").
 */
export function claudeFailure(text: string, status?: number): FailureReport {
  const api = /^\s*API Error:\s*(?:(\d{3})\b)?\s*([\s\S]*)$/.exec(text);
  if (!api) return { text, ...(status ? { status } : {}) };
  const stated = status ?? (api[1] ? Number(api[1]) : undefined);
  const body = jsonObjectIn(api[2] ?? "") as { error?: { type?: unknown } } | undefined;
  const type = typeof body?.error?.type === "string" ? body.error.type : undefined;
  return {
    text,
    ...(stated ? { status: stated } : {}),
    ...(type ? { type } : {}),
    ...(stated === undefined && !type ? { unreachable: true } : {}),
  };
}

export const headless: HeadlessCli = {
  provider: "claude-code",
  host: "claude",
  bin: "claude",
  command: "claude -p",
  plan: "your Claude plan",
  defaultModel: () => "haiku",
  places: (home) => [join(home, ".claude", "local", "claude"), ...usualPlaces(home, "claude")],
  argv: (s) => [
    "-p",
    "--output-format",
    "json",
    ...(s.model ? ["--model", s.model] : []),
    "--system-prompt",
    s.system,
    "--tools",
    "",
    "--strict-mcp-config",
    "--settings",
    '{"disableAllHooks":true}',
    "--disable-slash-commands",
    "--no-session-persistence",
  ],
  // Claude Code retries API errors for minutes by default; one distillation may wait a little.
  env: () => ({ CLAUDE_CODE_MAX_RETRIES: "2" }),
  setup: {
    login: "run `claude` in a terminal and log in (/login)",
    // Claude Code 2.1.39 and later, when CLAUDECODE is set (Coffer leaves it out: ./session-env.ts).
    refusesInSession: /cannot be launched inside another Claude Code session/i,
  },
  parse: ({ stdout, stderr, code }) => {
    const doc = jsonObjectIn(stdout) as Record<string, any> | undefined;
    if (!doc || (doc.type !== undefined && doc.type !== "result")) {
      const why = tail(stderr) || tail(stdout);
      if (code !== 0)
        return { ok: false, kind: classifyFailure({ text: why }), message: `exited ${code}: ${why || "no output"}` };
      return {
        ok: false,
        kind: "malformed",
        message: `answered without its JSON result: ${tail(stdout) || "nothing"}`,
      };
    }
    const text = typeof doc.result === "string" ? doc.result : "";
    if (doc.is_error === true || (typeof doc.subtype === "string" && doc.subtype.startsWith("error"))) {
      const status = typeof doc.api_error_status === "number" ? doc.api_error_status : undefined;
      const message = text || String(doc.subtype ?? "error");
      return {
        ok: false,
        kind: classifyFailure(claudeFailure(message, status)),
        message: status ? `${message} (HTTP ${status})` : message,
      };
    }
    const u = (doc.usage ?? {}) as Record<string, unknown>;
    const input =
      (count(u.input_tokens) ?? 0) +
      (count(u.cache_creation_input_tokens) ?? 0) +
      (count(u.cache_read_input_tokens) ?? 0);
    const output = count(u.output_tokens);
    const cost = typeof doc.total_cost_usd === "number" && doc.total_cost_usd >= 0 ? doc.total_cost_usd : undefined;
    const models = doc.modelUsage && typeof doc.modelUsage === "object" ? Object.keys(doc.modelUsage) : [];
    return {
      ok: true,
      text,
      ...(output !== undefined || input
        ? {
            usage: {
              input_tokens: input,
              output_tokens: output ?? 0,
              ...(cost !== undefined ? { cost_usd: cost } : {}),
            },
          }
        : {}),
      ...(models.length === 1 ? { model: models[0] } : {}),
    };
  },
};
