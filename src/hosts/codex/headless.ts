/**
 * Codex as the distillation model: `codex exec --json ... -` reads the conversation from stdin and
 * prints JSONL events. Coffer's system prompt replaces Codex's (`model_instructions_file`); the
 * tools, skills, permission and environment preambles, hooks, memories and every configured MCP
 * server are switched off with `-c` overrides (an unknown key is only a warning event, where an
 * unknown `--disable <feature>` would stop the run); `--ephemeral` keeps the run out of
 * `~/.codex/sessions`, the read-only sandbox with approvals "never" covers the one tool Codex
 * always offers (`apply_patch`). Events: `item.completed` with an `agent_message` item (the text),
 * `turn.completed` with `usage`, `turn.failed` / `error` on failures (exit code 1).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { agentDir } from "../../lib/paths";
import { classifyFailure, count, type FailureReport, type HeadlessCli, tail, usualPlaces } from "../headless";

/**
 * What a failed Codex turn reports: `unexpected status 401 Unauthorized: <body>`, `exceeded retry
 * limit, last status: 429 Too Many Requests`, `You've hit your usage limit`, or, when no answer came
 * at all, `stream disconnected before completion: error sending request ...`.
 */
export function codexFailure(text: string): FailureReport {
  const status = /\b(?:status:?|status code)\s*(\d{3})\b/i.exec(text)?.[1];
  const body = /(\{[\s\S]*\})\s*$/.exec(text)?.[1];
  let type: string | undefined;
  try {
    const doc = body ? JSON.parse(body) : undefined;
    const t = doc?.error?.code ?? doc?.error?.type;
    if (typeof t === "string") type = t;
  } catch {}
  return {
    text,
    ...(status ? { status: Number(status) } : {}),
    ...(type ? { type } : {}),
    ...(!status && /\b(stream disconnected|error sending request)\b/i.test(text) ? { unreachable: true } : {}),
  };
}

/** Codex's fast, affordable model (`codex debug models`), asked for with low reasoning effort. */
const CHEAP_MODEL = "gpt-6-luna";

/** Features that offer tools or extra context; each `-c features.<name>=false`. */
const FEATURES_OFF = [
  "hooks",
  "shell_tool",
  "unified_exec",
  "view_image",
  "image_generation",
  "multi_agent",
  "multi_agent_v2",
  "tool_suggest",
  "goals",
  "apps",
  "plugins",
  "memories",
];

function userConfig(): Record<string, any> {
  try {
    return parseToml(readFileSync(join(agentDir("codex"), "config.toml"), "utf8")) as Record<string, any>;
  } catch {
    return {};
  }
}

/** MCP servers in the user's config.toml (each switched off for the run; names usable in a `-c` key only). */
function mcpServers(config: Record<string, any>): string[] {
  const servers = config.mcp_servers;
  if (!servers || typeof servers !== "object") return [];
  return Object.keys(servers).filter((n) => /^[A-Za-z0-9_-]+$/.test(n));
}

/** A user on another provider (Ollama, Azure, a proxy) keeps that provider's configured model. */
function ownProvider(config: Record<string, any>): boolean {
  return typeof config.model_provider === "string" && config.model_provider !== "openai";
}

export const headless: HeadlessCli = {
  provider: "codex",
  host: "codex",
  bin: "codex",
  command: "codex exec",
  plan: "your ChatGPT plan or OpenAI key",
  defaultModel: () => (ownProvider(userConfig()) ? undefined : CHEAP_MODEL),
  places: (home) => [...usualPlaces(home, "codex"), join(home, ".cargo", "bin", "codex")],
  argv: (s) => {
    const config = userConfig();
    const set = (kv: string) => ["-c", kv];
    return [
      "exec",
      "--json",
      "--ephemeral",
      "--skip-git-repo-check",
      "--sandbox",
      "read-only",
      ...(s.model ? ["-m", s.model] : []),
      ...(s.model === CHEAP_MODEL ? set('model_reasoning_effort="low"') : []),
      ...set(`model_instructions_file=${JSON.stringify(s.systemFile)}`),
      ...set('approval_policy="never"'),
      ...set('web_search="disabled"'),
      ...set("project_doc_max_bytes=0"),
      ...set("include_permissions_instructions=false"),
      ...set("include_environment_context=false"),
      ...set("skills.include_instructions=false"),
      ...set("tools.experimental_request_user_input.enabled=false"),
      ...set("tools.update_plan.enabled=false"),
      ...FEATURES_OFF.flatMap((f) => set(`features.${f}=false`)),
      ...mcpServers(config).flatMap((n) => set(`mcp_servers.${n}.enabled=false`)),
      "-",
    ];
  },
  env: () => ({}),
  setup: { login: "run `codex login`" },
  parse: ({ stdout, stderr, code }) => {
    let text: string | undefined;
    let usage: Record<string, unknown> | undefined;
    let failed: string | undefined;
    let lastError: string | undefined;
    let events = 0;
    for (const line of stdout.split("\n")) {
      if (!line.startsWith("{")) continue;
      let ev: Record<string, any>;
      try {
        ev = JSON.parse(line);
      } catch {
        continue;
      }
      events++;
      if (ev.type === "item.completed" && ev.item?.type === "agent_message" && typeof ev.item.text === "string")
        text = ev.item.text;
      else if (ev.type === "turn.completed" && ev.usage && typeof ev.usage === "object") usage = ev.usage;
      else if (ev.type === "turn.failed") failed = String(ev.error?.message ?? "turn failed");
      else if (ev.type === "error" && typeof ev.message === "string") lastError = ev.message;
    }
    if (failed !== undefined || (text === undefined && code !== 0)) {
      const why = failed ?? lastError ?? (tail(stderr) || "no output");
      return {
        ok: false,
        kind: classifyFailure(codexFailure(why)),
        message: code !== 0 ? `exited ${code}: ${why}` : why,
      };
    }
    if (text === undefined)
      return {
        ok: false,
        kind: "malformed",
        message: events ? "finished without an answer" : `answered without JSON events: ${tail(stdout) || "nothing"}`,
      };
    // input_tokens counts cached input too (cached_input_tokens is the part of it read from cache).
    const input = count(usage?.input_tokens);
    const output = count(usage?.output_tokens);
    return {
      ok: true,
      text,
      ...(input !== undefined || output !== undefined
        ? { usage: { input_tokens: input ?? 0, output_tokens: output ?? 0 } }
        : {}),
    };
  },
};
