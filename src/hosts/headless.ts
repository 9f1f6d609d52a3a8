/**
 * The agent CLIs Coffer can run headless as its distillation model (`model.provider =
 * "claude-code" | "codex" | "gemini-cli"`): one non-interactive turn, no tools, no MCP servers, no
 * hooks, the prompt on stdin, the answer and its usage read from the CLI's own JSON. Each host's
 * quirks (argv, environment, output) live in `src/hosts/<host>/headless.ts`; what they share is
 * here. Spawning is distillation's business (`src/distill/agent-cli.ts`): never the hook path's.
 */
import { join } from "node:path";
import type { CliProvider, Host } from "../lib/hosts";
import { exeSuffix } from "../lib/platform";

/**
 * How a run failed, in the model layer's terms (`ModelError` kinds): auth (key or login refused),
 * rate_limit (slow down), quota (a plan's usage limit or credit used up), server (the provider
 * overloaded or failing), network (unreachable), refused (the model or its API turned this request
 * down: too long, a content policy), http (another error), malformed (not an answer).
 */
export type HeadlessErrorKind =
  | "auth"
  | "rate_limit"
  | "quota"
  | "server"
  | "network"
  | "refused"
  | "http"
  | "malformed";

/** Tokens (and the price, when the CLI states one) of the turn, as the CLI reported them. */
export type HeadlessUsage = { input_tokens: number; output_tokens: number; cost_usd?: number };

export type HeadlessAnswer =
  | { ok: true; text: string; usage?: HeadlessUsage; model?: string }
  | { ok: false; kind: HeadlessErrorKind; message: string };

/** What one run is given. */
export type RunSpec = {
  /** The model to ask for; undefined: the CLI's own default. */
  model?: string;
  /** The system prompt, as text and as a file (CLIs that take it from a file). */
  system: string;
  systemFile: string;
  /** Coffer's folder for headless runs (the host's `files` are written there). */
  dir: string;
  /** The empty folder the CLI runs in (no project files, settings or instructions to pick up). */
  workDir: string;
  home: string;
  /** What Coffer writes on stdin (the run marker, then the conversation), for a CLI that takes it as an argument. */
  input?: string;
};

/** What tells this CLI's set-up failures apart (`setupFailure`), and how a person fixes the usual one. */
export type HeadlessSetup = {
  /** How a person logs in: "run `codex login`". */
  login: string;
  /** Exit codes that mean "never logged in" (Gemini: 41, no auth method). */
  loggedOutCodes?: number[];
  /** The CLI's own words when it refuses to run inside another session. */
  refusesInSession?: RegExp;
};

export type HeadlessCli = {
  provider: CliProvider;
  host: Host;
  /** The executable's name. */
  bin: string;
  /** The command as people know it, for messages: "claude -p". */
  command: string;
  /** Whose account pays: "your Claude plan". */
  plan: string;
  /** A cheap model unless `model.model` names one (undefined: the CLI's configured default). */
  defaultModel: (home: string) => string | undefined;
  /** Where the CLI is usually installed besides PATH. */
  places: (home: string) => string[];
  /** Files the run needs in Coffer's headless folder (name -> content). */
  files?: (system: string) => Record<string, string>;
  argv: (spec: RunSpec) => string[];
  /** Environment added to the user's for the run. */
  env: (spec: RunSpec) => Record<string, string>;
  /** What the CLI reads on stdin, from the input Coffer wrote (default: the input). */
  stdin?: (spec: RunSpec, input: string) => string;
  /** The CLI's output as an answer or a failure. `code` is the exit code; `spec` the run's. */
  parse: (out: { stdout: string; stderr: string; code: number }, spec?: RunSpec) => HeadlessAnswer;
  setup: HeadlessSetup;
};

/**
 * Install places shared by npm-, bun- and Homebrew-installed CLIs (Node version managers keep one
 * folder per Node version: those are found through PATH or the path `coffer link` recorded).
 */
export function usualPlaces(home: string, bin: string): string[] {
  const exe = `${bin}${exeSuffix()}`;
  if (process.platform === "win32") {
    const appData = process.env.APPDATA || join(home, "AppData", "Roaming");
    return [join(appData, "npm", `${bin}.cmd`), join(home, ".bun", "bin", exe), join(home, ".local", "bin", exe)];
  }
  return [
    join(home, ".local", "bin", exe),
    join(home, ".npm-global", "bin", exe),
    join(home, ".bun", "bin", exe),
    join(home, ".volta", "bin", exe),
    `/opt/homebrew/bin/${exe}`,
    `/usr/local/bin/${exe}`,
  ];
}

/**
 * What a CLI reported about a failure, each host reading its own output for it
 * (`src/hosts/<host>/headless.ts`): the HTTP status and the provider's error type when it states
 * them, whether the request never reached the provider, and its words.
 */
export type FailureReport = {
  text: string;
  /** The API's HTTP status, when the CLI states one. */
  status?: number;
  /** The provider's error type or status name: `rate_limit_error`, `RESOURCE_EXHAUSTED`, `insufficient_quota`. */
  type?: string;
  /** The CLI says the request never got an answer (no connection, no status). */
  unreachable?: boolean;
};

/** Provider error types (Anthropic, OpenAI, Google RPC statuses) in the model layer's kinds. */
const ERROR_TYPES: Record<string, HeadlessErrorKind> = {
  authentication_error: "auth",
  permission_error: "auth",
  unauthenticated: "auth",
  permission_denied: "auth",
  invalid_api_key: "auth",
  rate_limit_error: "rate_limit",
  rate_limit_exceeded: "rate_limit",
  resource_exhausted: "rate_limit",
  insufficient_quota: "quota",
  billing_error: "quota",
  usage_limit_reached: "quota",
  overloaded_error: "server",
  api_error: "server",
  server_error: "server",
  internal: "server",
  unavailable: "server",
  deadline_exceeded: "server",
  invalid_request_error: "refused",
  invalid_argument: "refused",
  request_too_large: "refused",
  content_filter: "refused",
  failed_precondition: "refused",
};

const QUOTA =
  /\b(usage limit|hit your (usage )?limit|limit reached|quota|credit balance|out of credits|billing|insufficient.?quota)\b/i;
const RATE = /\b(rate.?limit(ed)?|too many requests|resource.?exhausted)\b/i;
const AUTH =
  /\b(not logged in|please run \/login|log ?in again|authenticat\w*|unauthori[sz]ed|forbidden|invalid (api )?key|api key|auth method|credentials?)\b/i;
const SERVER = /\b(overloaded|internal server error|service unavailable|bad gateway|gateway time-?out|server error)\b/i;
const NETWORK =
  /\b(network|connection (error|refused|reset|failed|closed|timed out)|could not connect|failed to connect|unable to connect|error sending request|stream disconnected|request timed out|name does not resolve|lookup address|getaddrinfo|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|fetch failed|socket hang up|offline)\b/i;
const REFUSED =
  /\b(prompt is too long|context (length|window)|too many tokens|content (policy|filter|management)|safety|refus(ed|es) to|blocked)\b/i;

/**
 * A failure in the model layer's kinds, from what the CLI reported: its HTTP status and the
 * provider's error type first (the CLIs pass both through), then its own words for the cases
 * they do not cover (a connection that never opened, a plan's usage limit).
 */
export function classifyFailure(f: FailureReport): HeadlessErrorKind {
  const { text, status } = f;
  const typed = f.type ? ERROR_TYPES[f.type.toLowerCase()] : undefined;
  if (status === 401 || status === 403) return "auth";
  if (status === 402) return "quota";
  if (status === 429 || typed === "rate_limit" || typed === "quota")
    return typed === "quota" || QUOTA.test(text) ? "quota" : "rate_limit";
  if (status !== undefined && (status >= 500 || status === 408)) return "server";
  if (typed) return typed;
  if (status !== undefined && status >= 400) return REFUSED.test(text) ? "refused" : "http";
  if (f.unreachable || NETWORK.test(text)) return "network";
  if (QUOTA.test(text)) return "quota";
  if (RATE.test(text)) return "rate_limit";
  if (AUTH.test(text)) return "auth";
  if (SERVER.test(text)) return "server";
  if (REFUSED.test(text)) return "refused";
  return "http";
}

/**
 * Set-up failures: the CLI cannot run as this machine has it set up, whatever the session it is
 * given. `missing`: not found, or it cannot start (exit 126/127: not executable, or the interpreter
 * its first line names is gone); `logged_out`: the user never logged in; `in_session`: it refuses
 * to run inside another agent's session. What Coffer does about them: `SETUP_FAILURES` in
 * src/distill/model.ts.
 */
export type SetupFailureKind = "missing" | "logged_out" | "in_session";

const LOGGED_OUT =
  /\b(not logged in|please run \/login|please (set|select|choose) an auth(entication)? method|no auth(entication)? (method|type is selected)|run `?(claude|codex|gemini) login\b)/i;
const IN_SESSION = /\b(cannot|can't|must not) (be launched|run|start) inside another\b/i;

/** Whether a failed run is a set-up failure, from its answer's message, stderr and exit code. */
export function setupFailure(
  cli: HeadlessCli,
  out: { stderr: string; code: number },
  message: string,
): SetupFailureKind | undefined {
  const text = `${message}\n${tail(out.stderr, 2000)}`;
  if (IN_SESSION.test(text) || cli.setup.refusesInSession?.test(text)) return "in_session";
  if (cli.setup.loggedOutCodes?.includes(out.code) || LOGGED_OUT.test(text)) return "logged_out";
  if (out.code === 126 || out.code === 127) return "missing";
  return undefined;
}

/** The last non-empty lines of a stream, on one line, for an error message. */
export function tail(text: string, chars = 300): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^(Warning|Ripgrep)\b/.test(l));
  const joined = lines.slice(-3).join(" | ");
  return joined.length > chars ? `…${joined.slice(-chars)}` : joined;
}

/**
 * The JSON object a CLI printed, alone or after notices: the text from the line that opens it to
 * the end. One pass over the text and at most one parse, whatever it holds (trying every line that
 * opens an object, as before, took 44 s on 80,000 of them: issue 36 item 7); the text is already
 * bounded by what the caller reads of a stream.
 */
export function jsonObjectIn(text: string): Record<string, unknown> | undefined {
  const end = text.trimEnd().length;
  const start = documentStart(text, end);
  if (start === undefined) return undefined;
  try {
    const v = JSON.parse(text.slice(start, end));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;
const BRACKET_OPEN = 0x5b;
const BRACKET_CLOSE = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/** Only blanks between the line's start and `at`. */
function opensLine(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = text[i];
    if (c === "\n") return true;
    if (c !== " " && c !== "\t" && c !== "\r") return false;
  }
  return true;
}

/**
 * Where the only object that can reach `end` from the start of a line begins, read lexically
 * (brackets and strings) in one pass. At most one such line exists: a line start outside the
 * object's strings is inside it, and the object closes before `end`. So one candidate is followed
 * at a time; whatever refutes it (a line break inside a string, a bracket that does not match, an
 * object that closes before `end`) refutes every line it holds, and the search goes on from the
 * next line. A candidate still open at `end` (a notice with a lone `{`) may hold the document:
 * the one whose bracket the last `}` closes.
 */
function documentStart(text: string, end: number): number | undefined {
  if (end === 0 || text.charCodeAt(end - 1) !== BRACE_CLOSE) return undefined;
  const open: number[] = [];
  let candidate = false;
  let inString = false;
  let escaped = false;
  let i = 0;
  /** Give up the candidate; go on at the next line (false: there is none). */
  const nextLine = (from: number): boolean => {
    candidate = false;
    const nl = text.indexOf("\n", from);
    if (nl < 0 || nl >= end) return false;
    i = nl + 1;
    return true;
  };
  while (i < end) {
    if (!candidate) {
      while (i < end && (text[i] === " " || text[i] === "\t" || text[i] === "\r")) i++;
      if (text.charCodeAt(i) !== BRACE_OPEN) {
        if (!nextLine(i)) return undefined;
        continue;
      }
      candidate = true;
      open.length = 0;
      inString = false;
      escaped = false;
    }
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) inString = false;
      else if (c === NEWLINE) {
        // No JSON string holds a line break: the candidate ends here, the next line may begin one.
        candidate = false;
      }
      i++;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === BRACE_OPEN || c === BRACKET_OPEN) open.push(i);
    else if (c === BRACE_CLOSE || c === BRACKET_CLOSE) {
      const at = open.pop();
      if (at === undefined || text.charCodeAt(at) !== (c === BRACE_CLOSE ? BRACE_OPEN : BRACKET_OPEN)) {
        if (!nextLine(i)) return undefined;
        continue;
      }
      if (i === end - 1) return opensLine(text, at) ? at : undefined;
      if (open.length === 0) {
        if (!nextLine(i)) return undefined;
        continue;
      }
    }
    i++;
  }
  return undefined;
}

/** A non-negative count, or undefined. */
export function count(n: unknown): number | undefined {
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
}
