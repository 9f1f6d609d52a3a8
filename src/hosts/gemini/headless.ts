/**
 * Gemini CLI as the distillation model: `gemini -p "" -o json` appends stdin (the conversation) to
 * the empty prompt. Coffer's system prompt replaces Gemini's (`GEMINI_SYSTEM_MD` names a file), a
 * policy file denies every tool (none is offered to the model), `--allowed-mcp-server-names` with a
 * name no server has starts none, `-e none` loads no extension, `--skip-trust` trusts Coffer's
 * empty run folder for this run only (an untrusted folder stops a headless run, exit 55). Hooks have
 * no command-line switch: the run folder holds workspace settings (`.gemini/settings.json`, over the
 * user's) with `hooksConfig.enabled = false`, read because `GEMINI_CLI_TRUST_WORKSPACE=true` trusts
 * the folder before settings load (`--skip-trust` only does so after). Not a system settings file
 * (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`): Gemini skips one that is not root's or lies below a folder
 * others may write to, such as /tmp (issue 37 bug 8), and the machine's own system settings stay in
 * force this way. Coffer's own hooks answer `{}` in any case (COFFER_NO_HOOKS). The answer: `{session_id, response, stats: {models: {<model>: {tokens}}}}`; a
 * failure: `{session_id, error: {type, message, code}}`, on stdout or stderr, with a non-zero exit.
 * Gemini keeps a chat file for the run under `~/.gemini/tmp/<run folder>/chats/`.
 */
import { join, relative } from "node:path";
import { paths } from "../../lib/paths";
import {
  classifyFailure,
  count,
  type HeadlessCli,
  type HeadlessUsage,
  jsonObjectIn,
  tail,
  usualPlaces,
} from "../headless";

export const POLICY_FILE = "gemini-policy.toml";

/** The run folder's workspace settings, as a name under Coffer's headless folder (where `files` go). */
const workspaceSettings = () => join(relative(paths.headless(), paths.headlessRun()), ".gemini", "settings.json");

/** Hooks off for the run (the user's settings otherwise hold: their sign-in, their model). */
const RUN_SETTINGS = `${JSON.stringify({ hooksConfig: { enabled: false } }, null, 2)}\n`;

const DENY_ALL_TOOLS = `# Coffer's distillation runs: no tool may run.
[[rule]]
toolName = "*"
decision = "deny"
priority = 999
`;

type Tokens = { prompt?: unknown; input?: unknown; candidates?: unknown; thoughts?: unknown };

export const headless: HeadlessCli = {
  provider: "gemini-cli",
  host: "gemini",
  bin: "gemini",
  command: "gemini -p",
  plan: "your Gemini account",
  defaultModel: () => "flash-lite",
  places: (home) => usualPlaces(home, "gemini"),
  files: () => ({ [POLICY_FILE]: DENY_ALL_TOOLS, [workspaceSettings()]: RUN_SETTINGS }),
  argv: (s) => [
    "-p",
    "",
    "-o",
    "json",
    ...(s.model ? ["-m", s.model] : []),
    "--skip-trust",
    "--allowed-mcp-server-names",
    "coffer-headless-none",
    "-e",
    "none",
    "--policy",
    join(s.dir, POLICY_FILE),
  ],
  // No relaunch into a second Node process (it only raises the heap limit: not needed for one turn).
  env: (s) => ({
    GEMINI_SYSTEM_MD: s.systemFile,
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    GEMINI_CLI_NO_RELAUNCH: "true",
  }),
  setup: { login: "run `gemini` in a terminal and choose how to sign in", loggedOutCodes: [41] },
  parse: ({ stdout, stderr, code }) => {
    const doc = (jsonObjectIn(stdout) ?? jsonObjectIn(lastJsonBlock(stderr))) as Record<string, any> | undefined;
    if (doc?.error && typeof doc.error === "object") {
      const message = String(doc.error.message ?? doc.error.type ?? "error");
      const status = typeof doc.error.code === "number" && doc.error.code >= 400 ? doc.error.code : undefined;
      // Exit 41: no auth method configured (logged out).
      // The error's `type` or `status` is Google's RPC status name (RESOURCE_EXHAUSTED, UNAVAILABLE).
      const type = [doc.error.status, doc.error.type].find((t) => typeof t === "string" && /^[A-Z_]+$/.test(t));
      const kind = code === 41 ? "auth" : classifyFailure({ text: message, status, type: type?.toLowerCase() });
      return { ok: false, kind, message: status ? `${message} (HTTP ${status})` : message };
    }
    if (!doc || typeof doc.response !== "string") {
      const why = tail(stderr) || tail(stdout);
      if (code !== 0)
        return { ok: false, kind: classifyFailure({ text: why }), message: `exited ${code}: ${why || "no output"}` };
      return {
        ok: false,
        kind: "malformed",
        message: `answered without its JSON result: ${tail(stdout) || "nothing"}`,
      };
    }
    return { ok: true, text: doc.response, ...statsUsage(doc.stats) };
  },
};

/**
 * The tokens and model of a run from Gemini's `stats: {models: {<model>: {tokens}}}` (Qwen Code, a
 * fork, reports the same): input is the prompt, output the candidates and thoughts.
 */
export function statsUsage(stats: unknown): { usage?: HeadlessUsage; model?: string } {
  let input = 0;
  let output = 0;
  let counted = false;
  const raw = stats && typeof stats === "object" ? (stats as { models?: unknown }).models : undefined;
  const models = raw && typeof raw === "object" ? (raw as Record<string, { tokens?: Tokens }>) : {};
  for (const m of Object.values(models)) {
    const t = m?.tokens;
    if (!t) continue;
    const i = count(t.prompt) ?? count(t.input);
    const o = (count(t.candidates) ?? 0) + (count(t.thoughts) ?? 0);
    if (i === undefined && !o) continue;
    counted = true;
    input += i ?? 0;
    output += o;
  }
  const names = Object.keys(models);
  return {
    ...(counted ? { usage: { input_tokens: input, output_tokens: output } } : {}),
    ...(names.length === 1 ? { model: names[0] } : {}),
  };
}

/** Gemini prints a failure's JSON document last on stderr, after the stack trace. */
function lastJsonBlock(text: string): string {
  const at = text.lastIndexOf("\n{");
  return at >= 0 ? text.slice(at + 1) : text.trimStart().startsWith("{") ? text : "";
}
