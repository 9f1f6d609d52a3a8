/**
 * Helpers for the distillation tests: fake model servers on loopback that record every request
 * body and report token usage in the provider's own shape when a reply carries some, an async runner (the servers live in the test process, so the binary must not be run
 * with spawnSync), and ways to place transcripts where the agents keep them.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RunOptions, RunResult, Sandbox } from "../helpers";

export const FIXTURES = join(import.meta.dir, "..", "fixtures", "transcripts");

export async function runAsync(sb: Sandbox, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const p = sb.spawn(args, opts);
  if (opts.stdin !== undefined && p.stdin && typeof p.stdin !== "number") {
    p.stdin.write(opts.stdin);
    p.stdin.end();
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

export type Insight = { kind: string; title: string; body: string };

/** Token usage a reply reports, in the server's own shape; `null` leaves `usage` out of the body. */
export type ReplyUsage = { input: number; output: number; cacheRead?: number; cacheWrite?: number } | null;

export type Reply =
  | { status?: number; text: string; headers?: Record<string, string>; delayMs?: number; usage?: ReplyUsage }
  | { status: number; raw: string; headers?: Record<string, string> };

export type ModelServer = {
  url: string;
  requests: { path: string; headers: Record<string, string>; body: string }[];
  /** Replies used in order; the last one repeats. */
  replies: Reply[];
  stop: () => void;
};

/** An OpenAI-compatible (`/v1/chat/completions`) or Anthropic-shaped (`/v1/messages`) server. */
export function modelServer(kind: "openai" | "anthropic", replies: Reply[]): ModelServer {
  const state: ModelServer = { url: "", requests: [], replies, stop: () => {} };
  let n = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      state.requests.push({ path: new URL(req.url).pathname, headers: Object.fromEntries(req.headers), body });
      const reply = state.replies[Math.min(n++, state.replies.length - 1)]!;
      if ("delayMs" in reply && reply.delayMs) await Bun.sleep(reply.delayMs);
      if ("raw" in reply) return new Response(reply.raw, { status: reply.status, headers: reply.headers });
      const u = reply.usage;
      const payload =
        kind === "openai"
          ? {
              id: "chatcmpl-1",
              object: "chat.completion",
              model: "test",
              choices: [{ index: 0, message: { role: "assistant", content: reply.text }, finish_reason: "stop" }],
              ...(u
                ? { usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output } }
                : {}),
            }
          : {
              id: "msg_1",
              type: "message",
              role: "assistant",
              model: "test",
              content: [{ type: "text", text: reply.text }],
              stop_reason: "end_turn",
              ...(u
                ? {
                    usage: {
                      input_tokens: u.input,
                      output_tokens: u.output,
                      ...(u.cacheRead !== undefined ? { cache_read_input_tokens: u.cacheRead } : {}),
                      ...(u.cacheWrite !== undefined ? { cache_creation_input_tokens: u.cacheWrite } : {}),
                    },
                  }
                : {}),
            };
      return Response.json(payload, { status: reply.status ?? 200, headers: reply.headers });
    },
  });
  state.url = `http://127.0.0.1:${server.port}`;
  state.stop = () => server.stop(true);
  return state;
}

export const fenced = (insights: Insight[]) => `\`\`\`json\n${JSON.stringify(insights, null, 2)}\n\`\`\``;

export function writeModelConfig(
  sb: Sandbox,
  kind: "openai" | "anthropic",
  url: string,
  extra: Record<string, string | number> = {},
): void {
  const lines = [
    "[model]",
    `provider = "${kind}"`,
    `model = "test-model"`,
    `base_url = "${kind === "openai" ? `${url}/v1` : url}"`,
    `api_key_env = "COFFER_TEST_KEY"`,
  ];
  for (const [k, v] of Object.entries(extra)) lines.push(`${k} = ${typeof v === "number" ? v : JSON.stringify(v)}`);
  mkdirSync(sb.cofferHome, { recursive: true });
  writeFileSync(join(sb.cofferHome, "config.toml"), `${lines.join("\n")}\n`);
}

/** Claude Code's project directory name for a cwd: every non-alphanumeric character as "-". */
export const claudeDir = (cwd: string) => cwd.replace(/[^A-Za-z0-9]/g, "-");

/** Place a Claude Code transcript for `cwd` (fixture placeholders replaced), with an optional age. */
export function placeClaude(
  sb: Sandbox,
  text: string,
  opts: { id: string; cwd: string; ageMinutes?: number; from?: string },
): string {
  const file = join(sb.home, ".claude", "projects", claudeDir(opts.cwd), `${opts.id}.jsonl`);
  mkdirSync(dirname(file), { recursive: true });
  let body = text.split(opts.from ?? "__CWD__").join(opts.cwd);
  body = body.replace(/"sessionId":"[^"]*"/g, `"sessionId":"${opts.id}"`);
  writeFileSync(file, body);
  if (opts.ageMinutes !== undefined) age(file, opts.ageMinutes);
  return file;
}

/** Place a Codex rollout under sessions/YYYY/MM/DD for `cwd`. */
export function placeCodex(
  sb: Sandbox,
  text: string,
  opts: { id: string; cwd: string; ageMinutes?: number; from?: string },
): string {
  const when = new Date(Date.now() - (opts.ageMinutes ?? 0) * 60_000);
  const day = when.toISOString().slice(0, 10).split("-");
  const file = join(
    sb.home,
    ".codex",
    "sessions",
    day[0]!,
    day[1]!,
    day[2]!,
    `rollout-${when.toISOString().slice(0, 19).replace(/:/g, "-")}-${opts.id}.jsonl`,
  );
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    text
      .split(opts.from ?? "__CWD__")
      .join(opts.cwd)
      .replace(/"id":"01a2b3c4-[^"]*"/, `"id":"${opts.id}"`),
  );
  if (opts.ageMinutes !== undefined) age(file, opts.ageMinutes);
  return file;
}

export function age(file: string, minutes: number): void {
  const t = new Date(Date.now() - minutes * 60_000);
  utimesSync(file, t, t);
}

/** A simple Claude Code session in `cwd` with one exchange (for selection tests). */
export function simpleClaudeSession(
  text = "How do we deploy?",
  answer = "With make release, never git push --tags.",
): string {
  const rec = (type: string, content: unknown, i: number) =>
    JSON.stringify({
      type,
      uuid: `r${i}`,
      sessionId: "x",
      cwd: "__CWD__",
      isSidechain: false,
      timestamp: `2026-11-20T10:0${i}:00.000Z`,
      message: { id: type === "assistant" ? `m${i}` : undefined, role: type, content },
    });
  return `${[rec("user", text, 1), rec("assistant", [{ type: "text", text: answer }], 2)].join("\n")}\n`;
}

/** Every file under a directory, recursively, as [path, text]. */
export function allFiles(dir: string): [string, string][] {
  const out: [string, string][] = [];
  const walk = (d: string) => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      try {
        out.push([p, readFileSync(p, "latin1")]);
      } catch {
        walk(p);
      }
    }
  };
  walk(dir);
  return out;
}

export function entryFiles(sb: Sandbox): { path: string; text: string }[] {
  return allFiles(join(sb.cofferHome, "memory"))
    .filter(([p]) => /\/entries\/[^/]+\.md$/.test(p))
    .map(([path, text]) => ({ path, text }));
}

export type QueueEntry = { transcript_path: string; host: string; session: string; at?: string };

/** Write `queue/session-queue.json` as the session-end hook would have. */
export function writeQueue(sb: Sandbox, items: QueueEntry[]): void {
  const file = join(sb.cofferHome, "queue", "session-queue.json");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify(
      items.map((i, n) => ({ at: new Date(Date.now() - (items.length - n) * 1000).toISOString(), ...i })),
      null,
      2,
    ),
  );
}

export function readQueueFile(sb: Sandbox): QueueEntry[] {
  try {
    return JSON.parse(readFileSync(join(sb.cofferHome, "queue", "session-queue.json"), "utf8"));
  } catch {
    return [];
  }
}

/** `state/distilled.jsonl` as records (empty when there is none). */
export function ledgerLines(sb: Sandbox): Record<string, any>[] {
  try {
    return readFileSync(join(sb.cofferHome, "state", "distilled.jsonl"), "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

/** Queue a team-lane proposal as distillation does (`inbox/team-<id>.json`), for tests of the surfaces. */
export function writeTeamProposal(
  sb: Sandbox,
  id: string,
  project: { id: string; label: string; origin?: string },
  entry: { id: string; title: string; kind?: string },
): void {
  const file = join(sb.cofferHome, "inbox", `team-${id}.json`);
  mkdirSync(dirname(file), { recursive: true });
  const proposal = {
    version: 1,
    kind: "team",
    id,
    created: "2026-11-20T10:00:00.000Z",
    host: "claude",
    session: "s-team",
    project,
    entry: { kind: "convention", ...entry },
  };
  writeFileSync(file, JSON.stringify(proposal, null, 2));
}

/** What `claude -p --output-format json` prints on success (docs/hosts-observed.md), cut to what Coffer reads. */
export const claudeOk = (text: string) =>
  JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    result: text,
    usage: { input_tokens: 1200, output_tokens: 80 },
  });

/** state/sweep.json: the last background sweep's record, if any. */
export const sweepRecordFile = (sb: Sandbox) => join(sb.cofferHome, "state", "sweep.json");
export const sweepRecord = (sb: Sandbox) =>
  existsSync(sweepRecordFile(sb)) ? JSON.parse(readFileSync(sweepRecordFile(sb), "utf8")) : undefined;

/** Wait (polling files, at most `ms`) until the recorded sweep has finished and let go of its lock. */
export async function sweepFinished(sb: Sandbox, ms = 60_000): Promise<Record<string, any>> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const r = sweepRecord(sb);
    if (r?.finished && !existsSync(join(sb.cofferHome, "state", "sweep.lock"))) return r;
    await Bun.sleep(100);
  }
  throw new Error(`no finished sweep: ${JSON.stringify(sweepRecord(sb))}`);
}
