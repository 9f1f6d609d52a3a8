/**
 * Token accounting and the daily budget, against fake model servers reporting `usage` in the
 * OpenAI-compatible and the Anthropic shape (or not at all): the ledger records tokens, model,
 * duration and outcome; a budget stops a sweep at the limit, `coffer status` says so, the next
 * day's sweep (clock fixed with COFFER_NOW) goes on; `distill run --force` overrides.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SYSTEM_PROMPT } from "../../src/distill/prompt";
import {
  fenced,
  ledgerLines,
  type ModelServer,
  modelServer,
  placeClaude,
  runAsync,
  type Sandbox,
  sandbox,
  simpleClaudeSession,
  writeModelConfig,
} from "../kit";

const INSIGHT = [{ kind: "convention", title: "Releases go through make release", body: "Never push tags by hand." }];
const env = { COFFER_TEST_KEY: "test-key-not-a-secret-123" };
const ids = [
  "aaaaaaaa-0000-4000-8000-0000000000a1",
  "aaaaaaaa-0000-4000-8000-0000000000a2",
  "aaaaaaaa-0000-4000-8000-0000000000a3",
];

let sb: Sandbox;
let repo: string;
let server: ModelServer | undefined;

beforeEach(() => {
  sb = sandbox("coffer-budget-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
});
afterEach(() => {
  server?.stop();
  server = undefined;
  sb.cleanup();
});

/** What the request's system + user messages held, in characters (the estimate's input). */
function sentChars(body: string): number {
  const b = JSON.parse(body);
  if (typeof b.system === "string") return b.system.length + b.messages[0].content.length;
  return b.messages.reduce((n: number, m: { content: string }) => n + m.content.length, 0);
}

describe("token accounting in the ledger", () => {
  test("OpenAI-compatible usage {prompt_tokens, completion_tokens}: tokens, model, duration, outcome", async () => {
    placeClaude(sb, simpleClaudeSession(), { id: ids[0]!, cwd: repo });
    server = modelServer([{ text: fenced(INSIGHT), usage: { input: 1234, output: 56 } }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", ids[0]!, "--json"], { env });
    expect(r.code).toBe(0);
    const [rec] = ledgerLines(sb);
    expect(rec).toMatchObject({
      session_id: ids[0],
      outcome: "distilled",
      entries: 1,
      model: "openai/test-model",
      input_tokens: 1234,
      output_tokens: 56,
      tokens_estimated: false,
    });
    expect(typeof rec!.duration_ms).toBe("number");
    expect(rec!.duration_ms).toBeGreaterThanOrEqual(0);
    // No content in the ledger.
    expect(JSON.stringify(rec)).not.toContain("make release");
  });

  test("Anthropic usage {input_tokens, output_tokens}: cache reads and writes count as input", async () => {
    placeClaude(sb, simpleClaudeSession(), { id: ids[0]!, cwd: repo });
    server = modelServer([
      { text: JSON.stringify(INSIGHT), usage: { input: 100, output: 40, cacheRead: 900, cacheWrite: 10 } },
    ]);
    writeModelConfig(sb, "anthropic", server.url);
    expect((await runAsync(sb, ["distill", "run", ids[0]!], { env })).code).toBe(0);
    expect(ledgerLines(sb)[0]).toMatchObject({
      model: "anthropic/test-model",
      input_tokens: 1010,
      output_tokens: 40,
      tokens_estimated: false,
    });
  });

  test("no usage in the answer: estimated from characters (4 per token) and marked as an estimate", async () => {
    placeClaude(sb, simpleClaudeSession(), { id: ids[0]!, cwd: repo });
    const reply = JSON.stringify(INSIGHT);
    server = modelServer([{ text: reply }]);
    writeModelConfig(sb, "openai", server.url);
    expect((await runAsync(sb, ["distill", "run", ids[0]!], { env })).code).toBe(0);
    const sent = sentChars(server.requests[0]!.raw);
    expect(sent).toBeGreaterThan(SYSTEM_PROMPT.length);
    expect(ledgerLines(sb)[0]).toMatchObject({
      input_tokens: Math.ceil(sent / 4),
      output_tokens: Math.ceil(reply.length / 4),
      tokens_estimated: true,
    });
  });

  test("a malformed answer is still paid for: the failure records its tokens", async () => {
    placeClaude(sb, simpleClaudeSession(), { id: ids[0]!, cwd: repo });
    server = modelServer([{ text: "I cannot help with that.", usage: { input: 700, output: 9 } }]);
    writeModelConfig(sb, "openai", server.url);
    expect((await runAsync(sb, ["distill", "run", ids[0]!], { env })).code).toBe(1);
    expect(ledgerLines(sb)[0]).toMatchObject({
      outcome: "failed",
      error: "malformed",
      input_tokens: 700,
      output_tokens: 9,
    });
  });
});

describe("daily token budget", () => {
  const DAY1 = "2026-11-20T12:00:00Z";
  const DAY2 = "2026-11-21T12:00:00Z";

  function threeSessions(): void {
    // Oldest first: a1 (60 min idle), a2 (50), a3 (40); all settled.
    for (const [i, id] of ids.entries())
      placeClaude(sb, simpleClaudeSession(`Question ${i + 1}: how do we deploy?`), {
        id,
        cwd: repo,
        ageMinutes: 60 - i * 10,
      });
  }

  function config(extra: string): void {
    writeModelConfig(sb, "openai", server!.url);
    appendFileSync(join(sb.cofferHome, "config.toml"), extra);
  }

  test("a sweep stops at the limit, status says paused, the next day's sweep goes on", async () => {
    threeSessions();
    // Each call reports 1,000 + 200 tokens; a session is estimated at well under 1,300 before it
    // is sent (system prompt + a short conversation + 500 for the answer), so 2,500 fits two.
    server = modelServer([{ text: fenced(INSIGHT), usage: { input: 1000, output: 200 } }]);
    config("\n[distill]\ndaily_token_budget = 2500\n");

    const day1 = await runAsync(sb, ["distill", "sweep", "--json"], { env: { ...env, COFFER_NOW: DAY1 } });
    expect(day1.code).toBe(0);
    const out = day1.json();
    expect(out.results.map((r: { session: string; outcome: string }) => [r.session, r.outcome])).toEqual([
      [ids[0], "distilled"],
      [ids[1], "distilled"],
      [ids[2], "over_budget"],
    ]);
    expect(server.requests.length).toBe(2);
    expect(out.budget).toMatchObject({ budget: 2500, spent: 2400, paused: true });

    const status = await runAsync(sb, ["status", "--json"], { env: { ...env, COFFER_NOW: DAY1 } });
    expect(status.code).toBe(0);
    expect(status.json().distill).toMatchObject({
      budget: 2500,
      spent: 2400,
      remaining: 100,
      paused: true,
      model: "openai/test-model",
    });
    const text = await runAsync(sb, ["status"], { env: { ...env, COFFER_NOW: DAY1 } });
    expect(text.stdout).toMatch(/Distill: paused: 2,400 of 2,500 tokens spent today.*resumes tomorrow/);

    // Still day 1: a second sweep sends nothing.
    const again = await runAsync(sb, ["distill", "sweep", "--json"], { env: { ...env, COFFER_NOW: DAY1 } });
    expect(again.json().results.map((r: { outcome: string }) => r.outcome)).toEqual(["over_budget"]);
    expect(server.requests.length).toBe(2);

    // The next day: a fresh budget, the waiting session is distilled, status no longer paused.
    const day2 = await runAsync(sb, ["distill", "sweep", "--json"], { env: { ...env, COFFER_NOW: DAY2 } });
    expect(day2.json().results.map((r: { session: string; outcome: string }) => [r.session, r.outcome])).toEqual([
      [ids[2], "distilled"],
    ]);
    expect(server.requests.length).toBe(3);
    const s2 = (await runAsync(sb, ["status", "--json"], { env: { ...env, COFFER_NOW: DAY2 } })).json().distill;
    expect(s2).toMatchObject({ spent: 1200, paused: false });
    // The ledger's day-1 spend adds up to what status reported.
    const day1Tokens = ledgerLines(sb)
      .filter((r) => r.at.startsWith("2026-11-20"))
      .reduce((n, r) => n + r.input_tokens + r.output_tokens, 0);
    expect(day1Tokens).toBe(2400);
  });

  test("distill run over the budget refuses without --force and sends with it", async () => {
    threeSessions();
    server = modelServer([{ text: fenced(INSIGHT), usage: { input: 3000, output: 100 } }]);
    config("\n[distill]\ndaily_token_budget = 3000\n");
    const at = { ...env, COFFER_NOW: DAY1 };
    expect((await runAsync(sb, ["distill", "run", ids[0]!], { env: at })).code).toBe(0); // 3,100 spent
    const refused = await runAsync(sb, ["distill", "run", ids[1]!, "--json"], { env: at });
    expect(refused.code).toBe(1);
    expect(refused.json().results[0].outcome).toBe("over_budget");
    expect(refused.stderr).toContain("--force");
    expect(server.requests.length).toBe(1);
    const forced = await runAsync(sb, ["distill", "run", ids[1]!, "--force", "--json"], { env: at });
    expect(forced.code).toBe(0);
    expect(forced.json().results[0].outcome).toBe("distilled");
    expect(server.requests.length).toBe(2);
    expect(ledgerLines(sb).filter((r) => r.outcome === "distilled").length).toBe(2);
  });

  test("daily_token_budget = 0 means no limit; max_sessions_per_sweep caps a pass", async () => {
    threeSessions();
    server = modelServer([{ text: fenced(INSIGHT), usage: { input: 90000, output: 100 } }]);
    config("\n[distill]\ndaily_token_budget = 0\nmax_sessions_per_sweep = 2\n");
    const r = await runAsync(sb, ["distill", "sweep", "--json"], { env: { ...env, COFFER_NOW: DAY1 } });
    expect(r.json().results.map((x: { outcome: string }) => x.outcome)).toEqual(["distilled", "distilled"]);
    const s = (await runAsync(sb, ["status", "--json"], { env: { ...env, COFFER_NOW: DAY1 } })).json().distill;
    expect(s).toMatchObject({ budget: 0, spent: 180200, remaining: null, paused: false });
  });
});

test("the README's local-model config.toml works as written: no key sent, usage recorded, no budget", async () => {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  const block = /```toml\n# ~\/\.coffer\/config\.toml\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBeDefined();
  expect(block).toContain('base_url = "http://127.0.0.1:11434/v1"');
  placeClaude(sb, simpleClaudeSession(), { id: ids[0]!, cwd: repo });
  // Ollama's OpenAI-compatible answer reports usage in the OpenAI shape.
  server = modelServer([{ text: fenced(INSIGHT), usage: { input: 812, output: 64 } }]);
  mkdirSync(sb.cofferHome, { recursive: true });
  writeFileSync(join(sb.cofferHome, "config.toml"), block!.replace("http://127.0.0.1:11434", server.url));
  const r = await runAsync(sb, ["distill", "run", ids[0]!, "--json"], {
    env: { OPENAI_API_KEY: "sk-must-not-be-sent" },
  });
  expect(r.code).toBe(0);
  expect(r.json().results[0].outcome).toBe("distilled");
  const req = server.requests[0]!;
  expect(req.path).toBe("/v1/chat/completions");
  expect(req.headers.authorization).toBeUndefined();
  expect(req.body.model).toBe("qwen2.5:7b");
  expect(ledgerLines(sb)[0]).toMatchObject({ model: "openai/qwen2.5:7b", input_tokens: 812, output_tokens: 64 });
  const s = (await runAsync(sb, ["status", "--json"])).json().distill;
  expect(s).toMatchObject({ budget: 0, spent: 876, paused: false });
});
