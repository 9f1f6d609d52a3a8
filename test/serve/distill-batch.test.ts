/**
 * `coffer serve`'s batch distil (POST /api/transcripts/<host>/distill, src/serve/sessions.ts) stops
 * where the CLI's does (src/distill/batch.ts): at the daily token budget, and once the model itself
 * failed; the sessions left are reported as not tried and nothing is sent for them (issue 39).
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { appendFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as api from "../../src/serve/sessions";
import {
  ledgerLines,
  type ModelServer,
  modelServer,
  placeClaude,
  type Sandbox,
  sandbox,
  simpleClaudeSession,
  writeModelConfig,
} from "../kit";

let sb: Sandbox;
let repo: string;
let server: ModelServer | undefined;
const saved = { HOME: process.env.HOME, COFFER_HOME: process.env.COFFER_HOME, KEY: process.env.COFFER_TEST_KEY };
const NOW = process.env.COFFER_NOW;
const INSIGHT = [{ kind: "convention", title: "Releases go through make release", body: "Never push tags by hand." }];
const id = (n: number) => `eeeeeeee-0000-4000-8000-${String(n).padStart(12, "0")}`;

beforeAll(() => {
  sb = sandbox("coffer-batch-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  process.env.HOME = sb.home;
  process.env.COFFER_HOME = sb.cofferHome;
  process.env.COFFER_TEST_KEY = "k";
  process.env.COFFER_NOW = "2026-11-20T12:00:00Z";
});
afterEach(() => {
  server?.stop();
  server = undefined;
  rmSync(join(sb.cofferHome, "state", "distilled.jsonl"), { force: true }); // the ledger
});
afterAll(() => {
  for (const [k, v] of Object.entries({
    HOME: saved.HOME,
    COFFER_HOME: saved.COFFER_HOME,
    COFFER_TEST_KEY: saved.KEY,
    COFFER_NOW: NOW,
  })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  sb.cleanup();
});

/** Four settled sessions, oldest first. */
function fourSessions(first: number): string[] {
  return [0, 1, 2, 3].map((i) => {
    placeClaude(sb, simpleClaudeSession(`Question ${first + i}: how do we deploy?`), {
      id: id(first + i),
      cwd: repo,
      ageMinutes: 60 - i,
    });
    return id(first + i);
  });
}

test("a batch stops at the daily token budget: the rest are not tried and nothing is sent for them", async () => {
  const ids = fourSessions(1);
  // 1,200 tokens a call; a session is estimated well under 1,300 before it is sent: 2,500 fits two.
  server = modelServer([{ text: JSON.stringify(INSIGHT), usage: { input: 1000, output: 200 } }]);
  writeModelConfig(sb, "openai", server.url);
  appendFileSync(join(sb.cofferHome, "config.toml"), "\n[distill]\ndaily_token_budget = 2500\n");
  const out = await api.distillTranscripts("claude", ids);
  expect(out.map((r) => r.outcome)).toEqual(["distilled", "distilled", "over_budget", "skipped"]);
  expect(out[3]!.message).toContain("daily token budget");
  expect(server.requests.length).toBe(2);
});

test("a batch stops when the model is down (logged out): one request, one ledger line, the rest not tried", async () => {
  const ids = fourSessions(11);
  server = modelServer([{ status: 401, raw: JSON.stringify({ error: { message: "invalid api key" } }) }]);
  writeModelConfig(sb, "openai", server.url);
  const out = await api.distillTranscripts("claude", [...ids, "no-such-session"]);
  expect(out.map((r) => r.outcome)).toEqual(["failed", "skipped", "skipped", "skipped", "not_found"]);
  expect(out[1]!.message).toContain("model failed");
  expect(server.requests.length).toBe(1);
  const ledger = ledgerLines(sb);
  expect(ledger.length).toBe(1);
  expect(ledger[0]).toMatchObject({ outcome: "failed", error: "auth" });
});
