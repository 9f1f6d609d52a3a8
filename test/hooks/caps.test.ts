/** Payload caps per host: bodies are never cut, the rest degrade to cards, bytes are stable. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  alreadyLoaded,
  bodyIds,
  cardIds,
  claudePrompt,
  claudeStart,
  contextOf,
  type EntrySpec,
  hook,
  projectId,
  type Sandbox,
  sandbox,
  writeEntries,
  writeRules,
} from "../kit";

let sb: Sandbox;
let repo: string;
const big: EntrySpec[] = [];

const pad = (n: number) => String(n).padStart(2, "0");

beforeAll(() => {
  sb = sandbox("coffer-hook-caps-");
  repo = sb.repo("big");
  const pid = projectId(repo);
  for (let i = 0; i < 40; i++) {
    // ~1,500 chars each, with multi-byte text so Codex's byte measure differs from chars.
    const para = `Capybara telemetry item ${i}: the exporter batches spans every ${i + 1} seconds — déjà vu, naïve café, 遥测数据. `;
    big.push({
      id: `BIG${pad(i)}`,
      title: `Capybara telemetry note ${i}`,
      body: para.repeat(Math.ceil(1500 / para.length)).trim(),
      updated: `2026-01-${pad(1 + (i % 28))}T00:00:00Z`,
    });
  }
  const filler: EntrySpec[] = [];
  for (let i = 0; i < 80; i++)
    filler.push({ id: `FIL${pad(i)}`, title: `Filler ${i}`, body: `Unrelated note number ${i} about lint settings.` });
  writeEntries(sb, pid, [...big, ...filler]);
  // These tests are about the host caps: lift the per-prompt budget above them.
  expect(sb.run(["config", "set", "load.prompt_max_chars", "50000"]).code).toBe(0);
});
afterAll(() => sb.cleanup());

const PROMPT = "what do we know about capybara telemetry?";

function checkPlan(ctx: string) {
  const bodies = bodyIds(ctx);
  const cards = cardIds(ctx);
  expect(bodies.length).toBeGreaterThan(0);
  expect(bodies.length).toBeLessThan(40);
  // Every included body is complete.
  for (const id of bodies)
    expect(ctx).toContain(`## [${id}] ${big.find((b) => b.id === id)!.title}\n${big.find((b) => b.id === id)!.body}`);
  // Cards for the rest (all forty accounted for). Forty equal word matches are ordered by meaning
  // (each differs in its numbers), then by id: the same order on every run (checked by the callers).
  expect([...bodies, ...cards].sort()).toEqual(big.map((b) => b.id));
  return { bodies, cards };
}

describe("40 large entries routed", () => {
  test("Claude: <= 9,500 chars, complete bodies, cards for the rest, identical bytes on a second run", () => {
    const r1 = hook(sb, "claude", "prompt", claudePrompt("cap-claude-1", repo, PROMPT));
    const ctx = contextOf(r1);
    expect(ctx.length).toBeLessThanOrEqual(9500);
    expect(ctx.length).toBeGreaterThan(8000); // the budget is used, not wasted
    checkPlan(ctx);
    const r2 = hook(sb, "claude", "prompt", claudePrompt("cap-claude-2", repo, PROMPT));
    expect(r2.stdout).toBe(r1.stdout);
  });

  test("Codex: <= 2,400 tokens as UTF-8 bytes / 4, complete bodies, identical bytes on a second run", () => {
    const payload = (s: string) => ({ session_id: s, cwd: repo, hook_event_name: "UserPromptSubmit", prompt: PROMPT });
    const r1 = hook(sb, "codex", "prompt", payload("cap-codex-1"));
    const ctx = contextOf(r1);
    expect(Math.ceil(Buffer.byteLength(ctx, "utf8") / 4)).toBeLessThanOrEqual(2400);
    expect(Buffer.byteLength(ctx, "utf8")).toBeGreaterThan(ctx.length); // multi-byte: bytes, not chars, were the limit
    checkPlan(ctx);
    expect(hook(sb, "codex", "prompt", payload("cap-codex-2")).stdout).toBe(r1.stdout);
  });

  test("others: load.max_tokens * 4 chars", () => {
    sb.run(["config", "set", "load.max_tokens", "1000"]);
    try {
      const ctx = contextOf(
        hook(sb, "gemini", "prompt", {
          session_id: "cap-gem",
          cwd: repo,
          hook_event_name: "BeforeAgent",
          prompt: PROMPT,
        }),
      );
      expect(ctx.length).toBeLessThanOrEqual(4000);
      checkPlan(ctx);
    } finally {
      sb.run(["config", "set", "load.max_tokens", "1600"]);
    }
  });

  test("only bodies actually sent count as delivered: the next turn sends the carded ones", () => {
    const first = contextOf(hook(sb, "claude", "prompt", claudePrompt("cap-delta", repo, PROMPT)));
    const sent = bodyIds(first);
    const second = contextOf(hook(sb, "claude", "prompt", claudePrompt("cap-delta", repo, PROMPT)));
    const next = bodyIds(second);
    expect(next.length).toBeGreaterThan(0);
    for (const id of next) expect(sent).not.toContain(id);
    expect(alreadyLoaded(second)).toEqual([...sent].sort());
  });
});

describe("session start under the cap", () => {
  test("user rules are cut at bullet boundaries; the built-in rules always survive", () => {
    const sb2 = sandbox("coffer-hook-caps2-");
    try {
      const repo2 = sb2.repo("rules");
      const rules = Array.from(
        { length: 100 },
        (_, i) => `- Rule ${i}: ${"always double-check the migration plan before merging ".repeat(3).trim()}`,
      );
      writeRules(sb2, projectId(repo2), `${rules.slice(0, 60).join("\n")}\n`);
      writeRules(sb2, "global", `${rules.slice(60).join("\n")}\n`);
      const ctx = contextOf(hook(sb2, "claude", "session-start", claudeStart("many-rules", repo2)));
      expect(ctx.length).toBeLessThanOrEqual(9500);
      expect(ctx).toContain("## Coffer built-in\n- When the user asks to continue");
      expect(ctx).toContain("coffer__remember");
      expect(ctx).toMatch(/more rules did not fit/);
      // Whole bullets only: every rule line present is complete.
      for (const line of ctx.split("\n").filter((l) => l.startsWith("- Rule "))) expect(rules).toContain(line);
      // Project rules come first and are kept before global ones.
      expect(ctx).toContain(rules[0]!);
      const codex = contextOf(
        hook(sb2, "codex", "session-start", {
          session_id: "many-rules",
          cwd: repo2,
          hook_event_name: "SessionStart",
          source: "startup",
        }),
      );
      expect(Math.ceil(Buffer.byteLength(codex) / 4)).toBeLessThanOrEqual(2400);
      expect(codex).toContain("## Coffer built-in");
    } finally {
      sb2.cleanup();
    }
  });

  test("memory cards fill the remaining budget, newest first", () => {
    const ctx = contextOf(hook(sb, "claude", "session-start", claudeStart("cards", repo)));
    expect(ctx).toContain("## Project memory\n- [");
    expect(ctx.length).toBeLessThanOrEqual(9500);
  });
});
