/**
 * The use signal (issue 41): a delivery counts as used when the agent then did something with the
 * entry's distinctive content, fetched it through Coffer's MCP tools or cited its id; words that
 * only echo the user's prompt do not count. Read from real-format transcripts of every host.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { measureUseSignal } from "../../scripts/bench/use-signal";
import { distinctTerms, judgeDelivery } from "../../src/capture/use";
import { claudeActivity } from "../../src/transcripts/claude";
import { codexActivity } from "../../src/transcripts/codex";
import { geminiActivity } from "../../src/transcripts/gemini";

const fixture = (p: string) => readFileSync(join(import.meta.dir, "..", "fixtures", p), "utf8");
const ids = JSON.parse(fixture("usage/ids.json")) as Record<string, string>;
const entry = (title: string, body: string, id = "01JUSE0000000000000TEST001") => ({ id, title, body });

describe("use signal", () => {
  const work = claudeActivity(fixture("usage/claude-work.jsonl"));
  const at = (hms: string) => Date.parse(`2026-11-30T${hms}Z`);

  test("a delivery whose file path the agent then edits counts as used", () => {
    const e = entry("Health route", "src/routes/health.ts pings the database and Redis.");
    expect(judgeDelivery(e, at("10:00:00"), work)).toEqual({ verdict: "used", why: "content" });
  });

  test("the same entry delivered after the agent was done with the file is not used", () => {
    const e = entry("Health route", "src/routes/health.ts pings the database and Redis.");
    expect(judgeDelivery(e, at("10:05:00"), work).verdict).toBe("unused");
  });

  test("an entry whose words only echo the user's prompt is not used", () => {
    // The prompt asked about "the /health endpoint" timing out in staging; the agent says so too.
    const e = entry("Health endpoint in staging", "The /health endpoint times out in staging.");
    expect(judgeDelivery(e, at("10:00:00"), work)).toEqual({ verdict: "unused", why: "none" });
  });

  test("a term a later prompt brings up counts only where the agent used it first", () => {
    const e = entry("Money", "Amounts are stored in the amount_cents column.");
    const acts = (agentFirst: boolean) => [
      { kind: "prompt" as const, text: "Why do the totals drift by a cent?", at: at("09:00:00") },
      { kind: "say" as const, text: agentFirst ? "Sum amount_cents, not floats." : "Looking.", at: at("09:00:05") },
      { kind: "prompt" as const, text: "OK, use amount_cents everywhere.", at: at("09:01:00") },
      { kind: "say" as const, text: "Done: amount_cents everywhere.", at: at("09:01:05") },
    ];
    expect(judgeDelivery(e, at("09:00:00"), acts(true)).verdict).toBe("used");
    expect(judgeDelivery(e, at("09:00:00"), acts(false)).verdict).toBe("unused");
  });

  test("a command the agent runs counts, up to the placeholder it fills in", () => {
    const e = entry("One test file", "Run one test file with `pnpm vitest run <file>`.");
    expect(judgeDelivery(e, at("10:00:00"), work).verdict).toBe("used");
  });

  test("coffer__recall that returns the entry counts as used, for Claude, Codex and Gemini", () => {
    const claude = claudeActivity(fixture("usage/claude-recall.jsonl"));
    const codex = codexActivity(fixture("usage/codex-recall.jsonl"));
    const gemini = geminiActivity(fixture("usage/gemini-recall.jsonl"));
    // Bodies with nothing distinctive the agent repeats: only the MCP answer can tell.
    const plain = (id: string) => entry("a memory", "nothing the agent repeats", id);
    expect(judgeDelivery(plain(ids.P2!), at("15:00:00"), claude)).toEqual({ verdict: "used", why: "mcp" });
    expect(judgeDelivery(plain(ids.K2!), at("12:00:00"), codex)).toEqual({ verdict: "used", why: "mcp" });
    expect(judgeDelivery(plain(ids.F1!), at("09:00:00"), gemini)).toEqual({ verdict: "used", why: "mcp" });
    // Not returned by the recall: not used.
    expect(judgeDelivery(plain("01JUSE0000000000000TEST009"), at("12:00:00"), codex).verdict).toBe("unused");
  });

  test("an id the agent cites by its handle counts as used", () => {
    const codex = codexActivity(fixture("usage/codex-recall.jsonl"));
    const acts = codex.filter((a) => a.kind !== "result"); // without the recall's answer
    expect(judgeDelivery(entry("x", "y", ids.K1!), at("12:00:00"), acts)).toEqual({ verdict: "used", why: "id" });
  });

  test("no agent activity after the delivery is unknown, not unused", () => {
    expect(judgeDelivery(entry("x", "src/a.ts"), at("11:00:00"), work)).toEqual({
      verdict: "unknown",
      why: "no_activity",
    });
  });

  test("distinctive terms: paths, identifiers, flags, numbers; not everyday words", () => {
    const terms = distinctTerms(
      entry("Timeouts", "Use withTimeout() from src/lib/timeout.ts with --max-wait 4500 for the request."),
    );
    const strong = terms.filter((t) => t.strong).map((t) => t.text);
    expect(strong).toEqual(expect.arrayContaining(["src/lib/timeout.ts", "withtimeout", "--max-wait", "4500"]));
    expect(terms.map((t) => t.text)).not.toContain("with");
    // A year is not distinctive: any date in a session repeats it.
    expect(distinctTerms(entry("Decided", "Decided in 2026 to keep port 5173.")).map((t) => t.text)).toEqual(
      expect.not.arrayContaining(["2026"]),
    );
    expect(terms.map((t) => t.text)).not.toContain("from");
  });

  test("the labelled set: precision at least 80% (the prior's condition), recall at least 60%", () => {
    const r = measureUseSignal();
    expect(r.deliveries).toBeGreaterThanOrEqual(100);
    expect(r.precision).toBeGreaterThanOrEqual(0.8);
    expect(r.recall).toBeGreaterThanOrEqual(0.6);
  });
});
