/**
 * Model providers for distillation: any OpenAI-compatible chat completions endpoint (OpenAI,
 * Ollama, LM Studio, vLLM, OpenRouter, ...), Anthropic's messages API, or an agent's own CLI run
 * headless for one tool-less turn (`claude-code`, `codex`, `gemini-cli`: `agent-cli.ts`). With no
 * `[model]` configured, the first linked agent whose CLI can be found is used; `provider = "none"`
 * turns distillation off. API calls: plain fetch, a timeout, retry with backoff on 429/5xx and
 * network errors. The API key goes into one request header and nowhere else: never into an error
 * message, a log line or a file.
 */

import type { Config } from "../config/config";
import { cliOfHost, HEADLESS_CLIS, isCliProvider } from "../hosts/clis";
import type { HeadlessCli, HeadlessErrorKind, SetupFailureKind } from "../hosts/headless";
import type { CliProvider } from "../lib/hosts";
import { homeDir } from "../lib/paths";
import { scrubText } from "../transcripts/scrub";
import { findCli, linkedClis, searched } from "./linked-clis";

export type ApiProvider = "openai" | "anthropic";

export type ApiSettings = {
  provider: ApiProvider;
  model: string;
  /** Endpoint base: `.../v1` for OpenAI-compatible servers, the API host for Anthropic. */
  baseUrl: string;
  /** Environment variable holding the key, when one is to be sent. */
  keyEnv?: string;
  timeoutMs: number;
};

/** An agent CLI as the model. */
export type CliSettings = {
  provider: CliProvider;
  /** The model asked for (`model.model`, else the CLI's cheap default); undefined: the CLI's own default. */
  model?: string;
  /** The executable; undefined when it cannot be found (a call then fails with kind "missing"). */
  cli?: string;
  timeoutMs: number;
};

export type ModelSettings = ApiSettings | CliSettings;

export function isCliSettings(s: ModelSettings): s is CliSettings {
  return isCliProvider(s.provider);
}

/** The facts of a CLI provider (argv, output, names). */
export function cliFacts(s: CliSettings): HeadlessCli {
  return HEADLESS_CLIS[s.provider];
}

const OPENAI_URL = "https://api.openai.com/v1";
const ANTHROPIC_URL = "https://api.anthropic.com";

/** How to get a model, for every "no model" message. */
export const CONFIGURE_MODEL_HINT = [
  "Link an agent and Coffer distils with its own CLI (coffer link claude|codex|gemini), or name one:",
  "  coffer config set model.provider claude-code    # or codex, gemini-cli: the agent's CLI, headless",
  "or an API, e.g. OpenAI:",
  "  coffer config set model.provider openai && coffer config set model.model gpt-4o-mini && coffer config set model.api_key_env OPENAI_API_KEY",
  "or a local Ollama: coffer config set model.provider openai && coffer config set model.model llama3.1 && coffer config set model.base_url http://127.0.0.1:11434/v1",
  "or Anthropic: coffer config set model.provider anthropic && coffer config set model.model claude-haiku-4-5 && coffer config set model.api_key_env ANTHROPIC_API_KEY",
].join("\n");

/**
 * Which model distillation uses, and why: `config` ([model] names it), `linked` (no [model]: the
 * first linked agent whose CLI is found), `off` (provider = "none"), `none` (nothing usable).
 */
export type ModelChoice = {
  settings?: ModelSettings;
  source: "config" | "linked" | "off" | "none";
  /** One line for doctor, stats, the web UI and "no model" messages. */
  why: string;
  /** Agents are linked but none of their CLIs was found: the executables to install (`codex`). */
  missingClis?: string[];
};

/** How a choice is named in messages: "`claude -p` (haiku)", "openai/gpt-4o-mini". */
export function describeSettings(s: ModelSettings): string {
  if (!isCliSettings(s)) return `${s.provider}/${s.model}`;
  return `\`${cliFacts(s).command}\` (${s.model ?? "its default model"})`;
}

function cliSettings(cli: HeadlessCli, config: Config, path: string | undefined): CliSettings {
  const model = config["model.model"] ?? cli.defaultModel(homeDir());
  return {
    provider: cli.provider,
    ...(model ? { model } : {}),
    ...(path ? { cli: path } : {}),
    timeoutMs: config["model.timeout_ms"],
  };
}

export function resolveModel(config: Config): ModelChoice {
  const provider = config["model.provider"];
  if (provider === "none") return { source: "off", why: "distillation is off (model.provider = none)" };
  if (isCliProvider(provider)) {
    const cli = HEADLESS_CLIS[provider];
    const recorded = linkedClis().find((r) => r.host === cli.host)?.path;
    const path = findCli(cli, recorded);
    const settings = cliSettings(cli, config, path);
    return {
      settings,
      source: "config",
      why: path
        ? `model.provider = ${provider}; ${path}, ${cli.plan}`
        : `model.provider = ${provider}, but \`${cli.bin}\` was not found (looked in ${searched(cli)})`,
    };
  }
  if (provider) {
    const model = config["model.model"];
    if (!model) return { source: "none", why: `model.provider = ${provider} names no model (model.model)` };
    const explicitUrl = config["model.base_url"];
    const baseUrl = (explicitUrl || (provider === "openai" ? OPENAI_URL : ANTHROPIC_URL)).replace(/\/+$/, "");
    // A key is sent where the user said (api_key_env) or to the provider's own endpoint; never
    // implicitly to some other server (a local Ollama does not need the user's OpenAI key).
    const keyEnv =
      config["model.api_key_env"] ??
      (explicitUrl ? undefined : provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
    const settings: ApiSettings = { provider, model, baseUrl, keyEnv, timeoutMs: config["model.timeout_ms"] };
    return { settings, source: "config", why: `[model] in config.toml; ${baseUrl}` };
  }
  const linked = linkedClis();
  const missing: string[] = [];
  for (const r of linked) {
    const cli = cliOfHost(r.host)!;
    const path = findCli(cli, r.path);
    if (!path) {
      missing.push(cli.bin);
      continue;
    }
    const settings = cliSettings(cli, config, path);
    return {
      settings,
      source: "linked",
      why: `no [model] in config.toml, so the first linked agent's CLI; ${path}, ${cli.plan}`,
    };
  }
  if (missing.length)
    return {
      source: "none",
      why: `no [model] in config.toml, and the linked agents' CLIs were not found (${missing.map((b) => `\`${b}\``).join(", ")}: not on PATH nor in the usual places)`,
      missingClis: missing,
    };
  return { source: "none", why: "no [model] in config.toml and no linked agent with a CLI Coffer can run" };
}

/** The model distillation uses, or undefined when it is off or none is usable. */
/** `provider/model` for the ledger and stats (`claude-code/claude-haiku-5-5`: the model a CLI says answered). */
export const modelLabel = (m: ModelSettings, answered?: string) => `${m.provider}/${answered ?? m.model ?? "default"}`;

export function modelSettings(config: Config): ModelSettings | undefined {
  return resolveModel(config).settings;
}

/**
 * timeout, http (another error status), network (unreachable), auth (key or login refused),
 * rate_limit (429), quota (a plan's usage limit or credit used up), server (5xx, overloaded),
 * refused (the model or its API turned this request down), malformed (not an answer), and the
 * set-up failures of an agent CLI (`SETUP_FAILURES`): missing (not installed, or it cannot start),
 * logged_out (never logged in), in_session (it refuses to run inside another agent's session).
 * Which of them never count against a session: ledger.ts `stopsSweep`.
 */
export type ModelErrorKind = "timeout" | HeadlessErrorKind | SetupFailureKind;

/**
 * Set-up failures (issue 36): the model cannot run as this machine has it set up, whatever the
 * session. Like any failure of the model itself they stop a sweep and make the next ones wait
 * (ledger.ts `stopsSweep`), but they never count against a session's tries, and `coffer doctor`
 * says the last one once, with its fix (`setupProblem`). Which CLI answers are set-up failures:
 * `setupFailure` in src/hosts/headless.ts. This list is the one place that names them.
 */
export const SETUP_FAILURES: readonly ModelErrorKind[] = ["missing", "logged_out", "in_session"];

export function isSetupFailure(kind: string | undefined): boolean {
  return (SETUP_FAILURES as readonly string[]).includes(kind ?? "");
}

/**
 * A set-up failure of a CLI provider in words, with its fix; undefined for another failure or
 * provider.
 */
export function setupProblem(
  kind: string | undefined,
  provider: string | undefined,
): { message: string; fix: string } | undefined {
  if (!isSetupFailure(kind) || !isCliProvider(provider)) return undefined;
  const cli = HEADLESS_CLIS[provider];
  const name = `\`${cli.command}\``;
  const then = "then `coffer distill run --pending` (the sweep also tries again after its wait)";
  if (kind === "logged_out") return { message: `${name} is not logged in`, fix: `${cli.setup.login}, ${then}` };
  if (kind === "in_session")
    return {
      message: `${name} refused to run inside another agent's session`,
      fix: `run \`coffer distill run --pending\` in a terminal outside any agent session, and please report it: Coffer leaves the agents' session variables out of the CLI's environment, and one was missed`,
    };
  return {
    message: `${name} could not be found or started`,
    fix: `install ${cli.bin} again (an interpreter it starts with, such as node, may be gone) and run \`coffer link ${cli.host}\` to record where it is, or choose another model: coffer config set model.provider <provider>; ${then}`,
  };
}

/**
 * Tokens one call cost: what the provider reported (`usage`), or, when it reported nothing,
 * an estimate from the characters sent and received (`estimated: true`).
 */
export type Usage = { input_tokens: number; output_tokens: number; estimated: boolean; cost_usd?: number };

/** The usual rule of thumb for English text and code: about four characters per token. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(chars: number): number {
  return Math.ceil(Math.max(0, chars) / CHARS_PER_TOKEN);
}

const count = (n: unknown): number | undefined =>
  typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;

/**
 * The provider's `usage` in either shape: OpenAI-compatible `{prompt_tokens, completion_tokens}`
 * (OpenAI, Ollama, LM Studio, vLLM, OpenRouter) or Anthropic `{input_tokens, output_tokens}` (cache
 * reads and writes are input too). Undefined when neither is there.
 */
export function usageOf(body: unknown): Omit<Usage, "estimated"> | undefined {
  const u = (body as { usage?: Record<string, unknown> } | undefined)?.usage;
  if (!u || typeof u !== "object") return undefined;
  const prompt = count(u.prompt_tokens);
  const completion = count(u.completion_tokens);
  if (prompt !== undefined || completion !== undefined)
    return { input_tokens: prompt ?? 0, output_tokens: completion ?? 0 };
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  const cached = (count(u.cache_creation_input_tokens) ?? 0) + (count(u.cache_read_input_tokens) ?? 0);
  return { input_tokens: (input ?? 0) + cached, output_tokens: output ?? 0 };
}

/** Reported usage, or an estimate from the characters of the request and the reply. */
export function usageOrEstimate(body: unknown, sentChars: number, replyChars: number): Usage {
  const reported = usageOf(body);
  if (reported) return { ...reported, estimated: false };
  return { input_tokens: estimateTokens(sentChars), output_tokens: estimateTokens(replyChars), estimated: true };
}

/** A model call that did not produce usable output; `message` is safe to print and store. */
export class ModelError extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    /** What the call cost when the model did answer (a malformed answer is still paid for). */
    public usage?: Usage,
  ) {
    super(message);
    this.name = "ModelError";
  }
}

/** One completion's reply text and what it cost (`model`: the model that answered, when the CLI says). */
export type Completion = { text: string; usage: Usage; model?: string };

export type CallOptions = {
  /** Attempts in all (first try + retries) for 429/5xx/network errors. */
  attempts?: number;
  /** Base backoff in ms (doubled per retry; a Retry-After header wins, capped at 20 s). */
  backoffMs?: number;
};

function apiKey(s: ApiSettings): string | undefined {
  if (!s.keyEnv) return undefined;
  const key = process.env[s.keyEnv]?.trim();
  if (key) return key;
  if (s.provider === "anthropic" || s.baseUrl === OPENAI_URL) {
    throw new ModelError("auth", `no API key: $${s.keyEnv} is not set (model.api_key_env names it)`);
  }
  return undefined;
}

function request(s: ApiSettings, system: string, user: string): { url: string; init: RequestInit; key?: string } {
  const key = apiKey(s);
  if (s.provider === "anthropic") {
    const url = /\/v1$/.test(s.baseUrl) ? `${s.baseUrl}/messages` : `${s.baseUrl}/v1/messages`;
    const headers: Record<string, string> = { "content-type": "application/json", "anthropic-version": "2023-06-01" };
    if (key) headers["x-api-key"] = key;
    const body = {
      model: s.model,
      max_tokens: 2048,
      temperature: 0.2,
      system,
      messages: [{ role: "user", content: user }],
    };
    return { url, init: { method: "POST", headers, body: JSON.stringify(body) }, key };
  }
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const body = {
    model: s.model,
    temperature: 0.2,
    messages: [
      { role: "system", content: system },
      { role: "user", content: user },
    ],
  };
  return { url: `${s.baseUrl}/chat/completions`, init: { method: "POST", headers, body: JSON.stringify(body) }, key };
}

/** The reply text out of a provider's response body. */
function replyText(s: ApiSettings, body: any): string | undefined {
  if (s.provider === "anthropic") {
    if (!Array.isArray(body?.content)) return undefined;
    return body.content
      .filter((b: any) => b?.type === "text" && typeof b.text === "string")
      .map((b: any) => b.text)
      .join("");
  }
  const content = body?.choices?.[0]?.message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: any) => (typeof p?.text === "string" ? p.text : "")).join("");
  return undefined;
}

/** A short, scrubbed piece of a response body for an error message (the key itself cut out too). */
function excerpt(text: string, key?: string): string {
  const masked = key ? text.split(key).join("[redacted]") : text;
  return scrubText(masked.replace(/\s+/g, " ").trim().slice(0, 200)).text;
}

function retryDelay(res: Response | undefined, attempt: number, backoffMs: number): number {
  const header = res?.headers.get("retry-after");
  const seconds = header && /^\d+(?:\.\d+)?$/.test(header.trim()) ? Number(header) : undefined;
  if (seconds !== undefined) return Math.min(seconds * 1000, 20_000);
  return backoffMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
}

/**
 * One completion from an HTTP model (`openai`, `anthropic`): `system` + `user` in, the reply text
 * and its token usage out. Throws ModelError. complete.ts picks this or an agent CLI.
 */
export async function completeApi(
  s: ApiSettings,
  system: string,
  user: string,
  opts: CallOptions = {},
): Promise<Completion> {
  const attempts = opts.attempts ?? 3;
  const backoffMs = opts.backoffMs ?? 500;
  const { url, init, key } = request(s, system, user);
  const where = new URL(url).host;
  let last: ModelError | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    let res: Response | undefined;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(s.timeoutMs) });
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === "TimeoutError" || name === "AbortError") {
        // Not retried: a model that needs longer than the timeout will need it again.
        throw new ModelError(
          "timeout",
          `the model at ${where} did not answer within ${s.timeoutMs} ms (model.timeout_ms)`,
        );
      }
      last = new ModelError("network", `cannot reach the model at ${where}: ${(err as Error)?.message ?? err}`);
    }
    if (res) {
      if (res.ok) {
        let body: unknown;
        const text = await res.text();
        try {
          body = JSON.parse(text);
        } catch {
          throw new ModelError(
            "malformed",
            `the model at ${where} answered with something that is not JSON: ${excerpt(text, key)}`,
          );
        }
        const reply = replyText(s, body);
        const sent = system.length + user.length;
        if (reply === undefined)
          throw new ModelError(
            "malformed",
            `the model at ${where} answered without a message: ${excerpt(text, key)}`,
            usageOrEstimate(body, sent, 0),
          );
        return { text: reply, usage: usageOrEstimate(body, sent, reply.length) };
      }
      const detail = excerpt(await res.text().catch(() => ""), key);
      if (res.status === 401 || res.status === 403) {
        throw new ModelError(
          "auth",
          `the model at ${where} refused the key (HTTP ${res.status})${detail ? `: ${detail}` : ""}`,
        );
      }
      last = new ModelError(
        res.status === 429 ? "rate_limit" : res.status >= 500 ? "server" : "http",
        `the model at ${where} answered HTTP ${res.status}${detail ? `: ${detail}` : ""}`,
      );
      if (res.status !== 429 && res.status < 500) throw last;
    }
    if (attempt + 1 < attempts) await Bun.sleep(retryDelay(res, attempt, backoffMs));
  }
  throw new ModelError(last!.kind, `${last!.message} (after ${attempts} attempts)`);
}
