/**
 * `coffer stats`: its figures add up against the ledger (distillation tokens by model, sessions)
 * and against what the hooks actually injected (characters per host and event, deliveries), and
 * entries are counted by source.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { sparkline } from "../../src/commands/stats";
import {
  BIN,
  claudePrompt,
  claudeStart,
  contextOf,
  fenced,
  hook,
  ledgerLines,
  type ModelServer,
  modelServer,
  placeClaude,
  runAsync,
  type Sandbox,
  sandbox,
  simpleClaudeSession,
  writeEntries,
  writeModelConfig,
} from "../kit";

const env = { COFFER_TEST_KEY: "test-key-not-a-secret-123" };
const ids = {
  a: "cccccccc-0000-4000-8000-0000000000a1",
  b: "cccccccc-0000-4000-8000-0000000000a2",
  c: "cccccccc-0000-4000-8000-0000000000a3",
  pending: "cccccccc-0000-4000-8000-0000000000a4",
  failing: "cccccccc-0000-4000-8000-0000000000a5",
};

let sb: Sandbox;
let repo: string;
const servers: ModelServer[] = [];

beforeAll(async () => {
  sb = sandbox("coffer-stats-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  for (const [k, id] of Object.entries(ids))
    placeClaude(sb, simpleClaudeSession(`Session ${k}: how do we deploy?`, `Answer ${k}: with make release.`), {
      id,
      cwd: repo,
      ageMinutes: 30,
    });
  // Three sessions, three different conventions (distillation folds one that restates another).
  const rules: Record<string, string> = {
    a: "Deploys go through make release.",
    b: "Database migrations are written with sqlx and never edited after merge.",
    c: "Every pull request needs one approval from the payments team.",
  };
  const insights = (k: string) => [{ kind: "convention", title: `Deploy rule ${k}`, body: rules[k] ?? `Rule ${k}.` }];
  // Two calls reporting usage (OpenAI shape), one without (estimated), one malformed answer.
  const openai = modelServer([
    { text: fenced(insights("a")), usage: { input: 1500, output: 120 } },
    { text: fenced(insights("b")), usage: { input: 1700, output: 80 } },
  ]);
  servers.push(openai);
  writeModelConfig(sb, "openai", openai.url);
  expect((await runAsync(sb, ["distill", "run", ids.a, ids.b], { env })).code).toBe(0);
  const anthropic = modelServer([{ text: JSON.stringify(insights("c")) }]);
  servers.push(anthropic);
  writeModelConfig(sb, "anthropic", anthropic.url);
  expect((await runAsync(sb, ["distill", "run", ids.c], { env })).code).toBe(0);
  const broken = modelServer([{ text: "no idea", usage: { input: 900, output: 3 } }]);
  servers.push(broken);
  writeModelConfig(sb, "openai", broken.url);
  expect((await runAsync(sb, ["distill", "run", ids.failing], { env })).code).toBe(1);
  // Two entries by hand.
  expect(sb.run(["remember", "Staging is reset every Monday"], { cwd: repo }).code).toBe(0);
  expect(sb.run(["remember", "--scope", "global", "I prefer short answers"]).code).toBe(0);
});
afterAll(() => {
  for (const s of servers) s.stop();
  sb.cleanup();
});

describe("distillation figures", () => {
  test("tokens by model add up against the ledger; sessions distilled, failed, pending", async () => {
    const r = await runAsync(sb, ["stats", "--json"]);
    expect(r.code).toBe(0);
    const s = r.json();
    const ledger = ledgerLines(sb).filter((x) => x.model);
    const sum = (rows: Record<string, any>[], k: string) => rows.reduce((n, x) => n + (x[k] ?? 0), 0);
    expect(s.distill.calls).toBe(ledger.length);
    expect(s.distill.calls).toBe(4);
    expect(s.distill.input_tokens).toBe(sum(ledger, "input_tokens"));
    expect(s.distill.output_tokens).toBe(sum(ledger, "output_tokens"));
    expect(s.distill.tokens).toBe(s.distill.input_tokens + s.distill.output_tokens);
    const byModel = Object.fromEntries(s.distill.by_model.map((m: Record<string, any>) => [m.model, m])) as Record<
      string,
      Record<string, number>
    >;
    expect(byModel["openai/test-model"]).toMatchObject({
      calls: 3,
      input_tokens: 1500 + 1700 + 900,
      output_tokens: 203,
    });
    const est = ledger.find((x) => x.model === "anthropic/test-model")!;
    expect(est.tokens_estimated).toBe(true);
    expect(byModel["anthropic/test-model"]).toMatchObject({
      calls: 1,
      input_tokens: est.input_tokens,
      estimated_tokens: est.input_tokens + est.output_tokens,
    });
    expect(s.distill.estimated_tokens).toBe(est.input_tokens + est.output_tokens);
    // Every token of the window falls on some day of the series.
    expect(s.distill.per_day.reduce((a: number, b: number) => a + b, 0)).toBe(s.distill.tokens);
    expect(s.distill.per_day.length).toBe(s.days.length);
    expect(s.days.length).toBe(7);
    expect(s.sessions).toEqual({ distilled: 3, failed: 1, pending: 2 });
  });

  test("entries added by source; the series adds up", async () => {
    const s = (await runAsync(sb, ["stats", "--json"])).json();
    expect(s.entries.added).toEqual({ cli: 2, distill: 3 });
    expect(s.entries.added_total).toBe(5);
    expect(s.entries.per_day.reduce((a: number, b: number) => a + b, 0)).toBe(5);
  });

  test("--since outside the window: nothing counted; a bad --since exits 2", async () => {
    // Records dated long ago fall outside a one-hour window.
    appendFileSync(
      join(sb.cofferHome, "state", "distilled.jsonl"),
      `${JSON.stringify({ at: "2020-01-01T00:00:00Z", host: "claude", session_id: "old", sha256: "x", size: 1, mtime_ms: 1, outcome: "distilled", entries: 0, model: "openai/old", input_tokens: 5, output_tokens: 5 })}\n`,
    );
    const s = (await runAsync(sb, ["stats", "--since", "30d", "--json"])).json();
    expect(s.distill.by_model.map((m: { model: string }) => m.model)).not.toContain("openai/old");
    expect(s.days.length).toBe(30);
    const bad = await runAsync(sb, ["stats", "--since", "lots"]);
    expect(bad.code).toBe(2);
  });

  test("the text report names models and budget; sparklines only on a terminal", async () => {
    const r = await runAsync(sb, ["stats"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("openai/test-model");
    expect(r.stdout).toContain("anthropic/test-model");
    expect(r.stdout).toMatch(/^ {2}budget: [\d,]+ of 200,000 tokens spent today/m);
    expect(r.stdout.match(/today/g)?.length).toBe(1);
    expect(r.stdout).toContain("Sessions: 3 distilled, 2 pending, 1 failed");
    expect(r.stdout).not.toMatch(/[▁▂▃▄▅▆▇█]/);
  });
});

describe("hook figures", () => {
  test("characters and deliveries per host and event add up against what the hooks injected and the delivery log", async () => {
    const contexts: { host: string; event: string; chars: number }[] = [];
    const run = (host: "claude" | "codex", event: "session-start" | "prompt", payload: unknown) => {
      const r = hook(sb, host, event, payload, { cwd: repo });
      expect(r.code).toBe(0);
      const text = contextOf(r);
      if (text) contexts.push({ host, event, chars: text.length });
    };
    run("claude", "session-start", claudeStart("s-claude-1", repo));
    run("claude", "prompt", claudePrompt("s-claude-1", repo, "How do we deploy with make release?"));
    run("codex", "session-start", { ...claudeStart("s-codex-1", repo), hook_event_name: "SessionStart" });
    run("codex", "prompt", {
      ...claudePrompt("s-codex-1", repo, "Which deploy rule applies with make release?"),
      model: "gpt-5",
    });
    expect(contexts.some((c) => c.event === "prompt")).toBe(true);

    const s = (await runAsync(sb, ["stats", "--json"])).json();
    const total = contexts.reduce((n, c) => n + c.chars, 0);
    expect(s.hooks.chars).toBe(total);
    expect(s.hooks.events).toBe(contexts.length);
    expect(s.hooks.tokens).toBe(Math.ceil(total / 4));
    const byHost = Object.fromEntries(s.hooks.by_host.map((h: { host: string; chars: number }) => [h.host, h.chars]));
    for (const host of ["claude", "codex"])
      expect(byHost[host]).toBe(contexts.filter((c) => c.host === host).reduce((n, c) => n + c.chars, 0));
    const byEvent = Object.fromEntries(
      s.hooks.by_event.map((e: { event: string; chars: number }) => [e.event, e.chars]),
    );
    for (const event of ["session-start", "prompt"])
      expect(byEvent[event] ?? 0).toBe(contexts.filter((c) => c.event === event).reduce((n, c) => n + c.chars, 0));
    expect(s.hooks.per_day.at(-1)).toBe(s.hooks.tokens);

    // The delivery log (index.db, what the web UI's Sessions page shows) agrees.
    const db = new Database(join(sb.cofferHome, "state", "index.db"), { readonly: true });
    try {
      const log = db
        .query("SELECT coalesce(sum(chars), 0) AS chars, coalesce(sum(entries), 0) AS entries FROM hook_events")
        .get() as {
        chars: number;
        entries: number;
      };
      expect(s.hooks.chars).toBe(log.chars);
      expect(s.hooks.deliveries).toBe(log.entries);
      expect(log.entries).toBeGreaterThan(0);
    } finally {
      db.close();
    }
    // The deploy rules were delivered; the most delivered entry is one of them.
    expect(s.entries.most_delivered.length).toBeGreaterThan(0);
    expect(s.entries.most_delivered[0].title).toMatch(/Deploy rule|Staging/);
    expect(s.entries.most_delivered.reduce((n: number, e: { deliveries: number }) => n + e.deliveries, 0)).toBe(
      s.hooks.deliveries,
    );
  });

  test("entries not delivered in 90 days: old ones never delivered are listed, delivered or young ones are not", async () => {
    const pid = sb.run(["status", "--json"], { cwd: repo }).json().project.id as string;
    writeEntries(sb, pid, [
      {
        id: "01J0000000000000000000OLD1",
        title: "Old forgotten note",
        body: "Nobody asks about the fax gateway.",
        updated: "2025-01-01T00:00:00Z",
      },
    ]);
    const s = (await runAsync(sb, ["stats", "--json"], { cwd: repo })).json();
    const ids = s.entries.never_delivered.entries.map((e: { id: string }) => e.id);
    expect(ids).toContain("01J0000000000000000000OLD1");
    expect(s.entries.never_delivered.days).toBe(90);
    // Entries created today are too young to be candidates.
    expect(s.entries.never_delivered.total).toBe(ids.length);
    expect(ids.every((id: string) => id.startsWith("01J0000000000000000000OLD"))).toBe(true);
  });
});

test.skipIf(!Bun.which("script"))("on a terminal each daily series gets a sparkline, today's bar the tallest", () => {
  // script(1) gives the binary a pseudo-terminal as stdout.
  const p = Bun.spawnSync(["script", "-qc", `${BIN} stats`, "/dev/null"], { env: sb.env, cwd: repo });
  const out = p.stdout.toString();
  const line = out.split("\n").find((l) => l.startsWith("Distilling:"))!;
  expect(line).toMatch(/ {2}[▁▂▃▄▅▆▇█]{7}\s*$/);
  expect(line.trim().slice(-1)).toBe("█"); // every call of this test happened today
});

test("sparkline: one bar per value scaled to the largest, zeros on the baseline", () => {
  expect(sparkline([0, 1, 2, 4, 8])).toBe("▁▂▃▅█");
  expect(sparkline([0, 0, 0])).toBe("▁▁▁");
  expect(sparkline([5])).toBe("█");
  expect(sparkline([3, 3])).toBe("██");
});
