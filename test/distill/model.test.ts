/**
 * `coffer distill run` against fake model servers on loopback (OpenAI-compatible and
 * Anthropic-shaped): entries and their fields, the ledger, malformed output, retries, timeouts,
 * no model configured.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  entryFiles,
  FIXTURES,
  fenced,
  type ModelServer,
  modelServer,
  placeClaude,
  placeCodex,
  runAsync,
  type Sandbox,
  sandbox,
  writeModelConfig,
} from "../kit";

const SESSION = "7c1f9a2e-4b1d-4e8a-9f3c-2d6b8e0a1c55";
const claudeFixture = readFileSync(join(FIXTURES, "claude", "coffer-context.jsonl"), "utf8");
const INSIGHTS = [
  {
    kind: "gotcha",
    title: "Empty cart made checkout return 500",
    body: "total() divided by cart.items.length; an empty cart gave NaN and the serializer threw. It returns 0 early now.",
  },
  {
    kind: "convention",
    title: "Money is integer cents",
    body: "Never divide money amounts; work in integer cents and round once at the end.",
  },
];

let sb: Sandbox;
let repo: string;
let server: ModelServer | undefined;
const env = { COFFER_TEST_KEY: "test-key-not-a-secret-123" };

beforeEach(() => {
  sb = sandbox("coffer-distill-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  placeClaude(sb, claudeFixture, { id: SESSION, cwd: repo, from: "/home/dev/work/shop-api" });
});
afterEach(() => {
  server?.stop();
  server = undefined;
  sb.cleanup();
});

const ledgerLines = () => {
  const f = join(sb.cofferHome, "state", "distilled.jsonl");
  return existsSync(f)
    ? readFileSync(f, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
};

describe("OpenAI-compatible endpoint", () => {
  test("insights become project entries with the right fields; the model got exactly `distill show`; a second run is a no-op", async () => {
    server = modelServer([{ text: fenced(INSIGHTS) }]);
    writeModelConfig(sb, "openai", server.url);
    const shown = await runAsync(sb, ["distill", "show", SESSION]);
    expect(shown.code).toBe(0);

    const first = await runAsync(sb, ["distill", "run", SESSION, "--json"], { env });
    expect(first.code).toBe(0);
    const [result] = first.json().results;
    expect(result.outcome).toBe("distilled");
    expect(result.entries.map((e: { status: string }) => e.status)).toEqual(["created", "created"]);

    expect(server.requests.length).toBe(1);
    const req = server.requests[0]!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe(`Bearer ${env.COFFER_TEST_KEY}`);
    const body = req.body;
    expect(body.model).toBe("test-model");
    expect(body.messages[0].role).toBe("system");
    expect(body.messages[1]).toEqual({ role: "user", content: shown.stdout });

    const files = entryFiles(sb);
    expect(files.length).toBe(2);
    const projectId = sb
      .run(["status", "--json"], { cwd: repo })
      .json()
      .scopes.find((s: { label: string }) => s.label === "shop").scope;
    for (const f of files) {
      expect(f.path).toContain(join("memory", "projects", projectId, "entries"));
      expect(f.text).toContain("actor: agent:claude");
      expect(f.text).toContain("source: distill");
      expect(f.text).toContain(`origin_session: ${SESSION}`);
    }
    const gotcha = files.find((f) => f.text.includes("kind: gotcha"))!;
    expect(gotcha.text).toContain("title: Empty cart made checkout return 500");
    expect(gotcha.text).toContain("It returns 0 early now.");
    // recall finds it from inside the project
    expect(sb.run(["recall", "serializer NaN", "--json"], { cwd: repo }).stdout).toContain(
      "Empty cart made checkout return 500",
    );

    const second = await runAsync(sb, ["distill", "run", SESSION], { env });
    expect(second.code).toBe(0);
    expect(second.stdout + second.stderr).toContain("already distilled");
    expect(server.requests.length).toBe(1);
    expect(entryFiles(sb).length).toBe(2);
    expect(ledgerLines()).toEqual([
      expect.objectContaining({
        host: "claude",
        session_id: SESSION,
        outcome: "distilled",
        entries: 2,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(sb.run(["distill", "list", "--json"]).json().sessions[0].status).toBe("done");
  });

  test("the same insights from a continued session are not written twice", async () => {
    server = modelServer([{ text: JSON.stringify(INSIGHTS) }]);
    writeModelConfig(sb, "openai", server.url);
    expect((await runAsync(sb, ["distill", "run", SESSION], { env })).code).toBe(0);
    // The session goes on: new content, a new hash, distilled again; the model repeats itself.
    const file = placeClaude(sb, `${claudeFixture}\n`, { id: SESSION, cwd: repo, from: "/home/dev/work/shop-api" });
    expect(existsSync(file)).toBe(true);
    const again = await runAsync(sb, ["distill", "run", SESSION, "--json"], { env });
    expect(again.json().results[0].entries.map((e: { status: string }) => e.status)).toEqual([
      "duplicate",
      "duplicate",
    ]);
    expect(entryFiles(sb).length).toBe(2);
  });

  test("invalid items are dropped, at most 8 are kept", async () => {
    const many = Array.from({ length: 10 }, (_, i) => ({
      kind: "todo",
      title: `Follow-up ${i}`,
      body: `Do follow-up number ${i} on the checkout.`,
    }));
    const junk = [
      { kind: "opinion", title: "x", body: "y" },
      { kind: "todo", title: "t".repeat(81), body: "too long a title" },
      { kind: "todo", title: "no body" },
      "text",
    ];
    server = modelServer([{ text: `Here you go:\n${JSON.stringify([...junk, ...many])}` }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION], { env });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain("8 entries");
    expect(r.stdout + r.stderr).toContain("6 invalid items dropped");
    expect(entryFiles(sb).length).toBe(8);
  });

  test("malformed model output: no entries, a clear message, not marked done", async () => {
    server = modelServer([{ text: "Sure! The session was about checkout bugs." }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION], { env });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain("not a JSON array of insights");
    expect(r.stdout + r.stderr).toContain("left for the next sweep");
    expect(entryFiles(sb).length).toBe(0);
    expect(ledgerLines().map((l) => l.outcome)).toEqual(["failed"]);
    expect(sb.run(["distill", "list", "--json"]).json().sessions[0].status).toBe("never");
  });

  test("429 then 200: retried and succeeds", async () => {
    server = modelServer([
      { status: 429, raw: '{"error":{"message":"rate limited"}}', headers: { "retry-after": "0" } },
      { status: 503, raw: "busy" },
      { text: JSON.stringify(INSIGHTS) },
    ]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION], { env });
    expect(r.code).toBe(0);
    expect(server.requests.length).toBe(3);
    expect(entryFiles(sb).length).toBe(2);
  });

  test("a 400 is not retried and says what the server said", async () => {
    server = modelServer([{ status: 400, raw: '{"error":{"message":"unknown model test-model"}}' }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION], { env });
    expect(r.code).toBe(1);
    expect(server.requests.length).toBe(1);
    expect(r.stdout + r.stderr).toContain("HTTP 400");
    expect(r.stdout + r.stderr).toContain("unknown model test-model");
    expect(r.stderr + r.stdout).not.toContain(env.COFFER_TEST_KEY);
  });

  test("timeout: a clear failure, nothing written, the session left for the next sweep", async () => {
    server = modelServer([{ text: JSON.stringify(INSIGHTS), delayMs: 3000 }]);
    writeModelConfig(sb, "openai", server.url, { timeout_ms: 1000 });
    placeClaude(sb, claudeFixture, { id: SESSION, cwd: repo, from: "/home/dev/work/shop-api", ageMinutes: 30 });
    const r = await runAsync(sb, ["distill", "run", SESSION], { env });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain("did not answer within 1000 ms");
    expect(r.stdout + r.stderr).toContain("left for the next sweep");
    expect(entryFiles(sb).length).toBe(0);
    const picked = (await runAsync(sb, ["distill", "sweep", "--dry-run", "--json"])).json().sessions;
    expect(picked.map((s: { session_id: string }) => s.session_id)).toEqual([SESSION]);
  });

  test("the key is never written anywhere Coffer owns", async () => {
    server = modelServer([{ status: 500, raw: `internal error for key ${env.COFFER_TEST_KEY}` }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION], { env });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain("HTTP 500");
    expect(r.stderr).not.toContain(env.COFFER_TEST_KEY);
    const { allFiles } = await import("../kit");
    for (const [path, text] of allFiles(sb.cofferHome))
      expect({ path, leaked: text.includes(env.COFFER_TEST_KEY) }).toEqual({ path, leaked: false });
  });
});

describe("Anthropic-shaped endpoint", () => {
  test("messages API: x-api-key, anthropic-version, system prompt; entries written", async () => {
    server = modelServer([{ text: fenced(INSIGHTS) }]);
    writeModelConfig(sb, "anthropic", server.url);
    const shown = await runAsync(sb, ["distill", "show", SESSION]);
    const r = await runAsync(sb, ["distill", "run", SESSION], { env });
    expect(r.code).toBe(0);
    const req = server.requests[0]!;
    expect(req.path).toBe("/v1/messages");
    expect(req.headers["x-api-key"]).toBe(env.COFFER_TEST_KEY);
    expect(req.headers["anthropic-version"]).toBe("2023-06-01");
    expect(req.headers.authorization).toBeUndefined();
    const body = req.body;
    expect(typeof body.system).toBe("string");
    expect(body.max_tokens).toBeGreaterThan(0);
    expect(body.messages).toEqual([{ role: "user", content: shown.stdout }]);
    expect(entryFiles(sb).length).toBe(2);
  });

  test("a missing key is a clear failure, nothing sent", async () => {
    server = modelServer([{ text: "[]" }]);
    writeModelConfig(sb, "anthropic", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain("$COFFER_TEST_KEY is not set");
    expect(server.requests.length).toBe(0);
  });
});

describe("no-ops that say why", () => {
  test("no model configured: nothing sent, says how to configure one", async () => {
    const r = await runAsync(sb, ["distill", "run", SESSION]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain("No model configured");
    expect(r.stdout + r.stderr).toContain("coffer config set model.provider openai");
    expect(entryFiles(sb).length).toBe(0);
    const sweep = await runAsync(sb, ["distill", "sweep"]);
    expect(sweep.code).toBe(0);
    expect(sweep.stdout + sweep.stderr).toContain("No model configured");
  });

  test("a session outside any git repository is skipped, with the reason", async () => {
    server = modelServer([{ text: JSON.stringify(INSIGHTS) }]);
    writeModelConfig(sb, "openai", server.url);
    const plain = join(sb.root, "work", "not-a-repo");
    require("node:fs").mkdirSync(plain, { recursive: true });
    placeClaude(sb, claudeFixture, {
      id: "11111111-2222-4333-8444-555555555555",
      cwd: plain,
      from: "/home/dev/work/shop-api",
    });
    const r = await runAsync(sb, ["distill", "run", "11111111"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain("not a git project");
    expect(server.requests.length).toBe(0);
  });

  test("--dry-run sends nothing and says how much would go", async () => {
    server = modelServer([{ text: JSON.stringify(INSIGHTS) }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", "--dry-run"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/dry run: would send \d+ characters \(7 turns/);
    expect(server.requests.length).toBe(0);
    expect(ledgerLines()).toEqual([]);
  });
});

test("a Codex session whose checkout is gone still lands in its project, found by origin", async () => {
  server = modelServer([{ text: JSON.stringify(INSIGHTS.slice(0, 1)) }]);
  writeModelConfig(sb, "openai", server.url);
  const rollout = readFileSync(join(FIXTURES, "codex", "preambles-and-duplicates.jsonl"), "utf8");
  const billing = sb.repo("billing", "https://github.com/acme/billing.git");
  const id = "01a2b3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b";
  placeCodex(sb, rollout, { id, cwd: join(sb.root, "gone", "billing"), from: "/home/dev/work/billing" });
  const r = await runAsync(sb, ["distill", "run", id, "--agent", "codex", "--json"], { env });
  expect(r.code).toBe(0);
  expect(r.json().results[0]).toEqual(expect.objectContaining({ outcome: "distilled", project: "billing" }));
  // the same project as a checkout of that origin
  expect(sb.run(["list", "--scope", "project", "--json"], { cwd: billing }).json().entries.length).toBe(1);
  expect(entryFiles(sb)[0]!.text).toContain("actor: agent:codex");
});
