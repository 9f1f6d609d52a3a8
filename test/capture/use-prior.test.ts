/**
 * Using the use signal, carefully (issue 41): with `ranking.use_prior = on` an entry the agents used
 * rises a little and one they never used sinks a little, within USE_PRIOR_BOUND (an entry far ahead
 * stays ahead); off (the default) the order is the word match's alone. Entries delivered
 * `inbox.unused_after` times and never used are offered in the inbox, never rules, and keeping one
 * puts its offer off until as many more deliveries.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { USE_PRIOR_BOUND, usePriorFactor } from "../../src/store/delivery/usage";
import {
  bodyIds,
  claudePrompt,
  claudeStart,
  contextOf,
  hook,
  projectId,
  type Sandbox,
  sandbox,
  writeEntries,
  writeRules,
} from "../kit";

// All four words of the prompt in the title (Y), three (X: the fourth in its body), two (W).
const Y = "01JV5EH00000000000000000Y1"; // first on words, never used
const X = "01JV5EH00000000000000000X1"; // a close second on words, always used
const W = "01JV5EH00000000000000000W1"; // far behind on words, always used
const prompt = "invoice export billing bucket";

let sb: Sandbox;
let repo: string;
let session = 0;

/** The order of the bodies the prompt hook delivers in a fresh session. */
function order(): string[] {
  const s = `eeeeeeee-0000-4000-8000-00000000${String(++session).padStart(4, "0")}`;
  hook(sb, "claude", "session-start", claudeStart(s, repo), { cwd: repo });
  const ids = bodyIds(contextOf(hook(sb, "claude", "prompt", claudePrompt(s, repo, prompt), { cwd: repo })));
  return ids.map((h) => [W, X, Y].find((id) => id.endsWith(h)) ?? h);
}

/** Set an entry's judged use as the use pass records it. */
function setUse(id: string, judged: number, used: number): void {
  const db = new Database(join(sb.cofferHome, "state", "index.db"));
  try {
    db.run(`CREATE TABLE IF NOT EXISTS entry_use(entry_id TEXT PRIMARY KEY, judged INTEGER NOT NULL, used INTEGER NOT NULL,
      unknown INTEGER NOT NULL, last_ms INTEGER NOT NULL, kept INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID`);
    db.query(
      `INSERT INTO entry_use(entry_id, judged, used, unknown, last_ms) VALUES(?1, ?2, ?3, 0, 0)
       ON CONFLICT(entry_id) DO UPDATE SET judged = ?2, used = ?3`,
    ).run(id, judged, used);
  } finally {
    db.close();
  }
}

beforeAll(() => {
  sb = sandbox("coffer-prior-");
  repo = sb.repo("billing");
  writeEntries(sb, projectId(repo), [
    { id: Y, title: "Invoice export billing bucket", body: "Runs nightly at two." },
    { id: X, title: "Invoice export billing", body: "Writes one file per customer to the bucket." },
    { id: W, title: "Invoice export", body: "Goes to the billing bucket." },
  ]);
  // Word matches alone: the sentence model's boost is not what this test is about.
  sb.run(["config", "set", "routing.similarity", "off"]);
  writeRules(sb, projectId(repo), "- Never upload invoices by hand.\n");
});

afterAll(() => sb.cleanup());

describe("use prior", () => {
  test("the factor stays within its bound and needs a few judged deliveries", () => {
    expect(usePriorFactor(2, 0)).toBe(1);
    for (const [judged, used] of [
      [3, 0],
      [10, 0],
      [500, 0],
      [10, 10],
      [500, 500],
      [40, 20],
    ] as const) {
      const f = usePriorFactor(judged, used);
      expect(f).toBeGreaterThanOrEqual(1 - USE_PRIOR_BOUND);
      expect(f).toBeLessThanOrEqual(1 + USE_PRIOR_BOUND);
    }
    expect(usePriorFactor(10, 0)).toBeCloseTo(1 - USE_PRIOR_BOUND);
    expect(usePriorFactor(10, 10)).toBeCloseTo(1 + USE_PRIOR_BOUND);
    expect(usePriorFactor(40, 20)).toBe(1);
  });

  test("off (the default): use does not change the order", () => {
    const before = order();
    expect(before).toEqual([Y, X, W]);
    setUse(W, 20, 20);
    setUse(X, 20, 20);
    setUse(Y, 20, 0);
    expect(order()).toEqual(before);
  });

  test("on: the used entry passes a close one never used; one far behind stays behind", () => {
    expect(sb.run(["config", "set", "ranking.use_prior", "on"]).code).toBe(0);
    expect(order()).toEqual([X, Y, W]);
    // Use alone never carries an entry past one far ahead of it on words (W stays last).
    setUse(Y, 20, 20);
    expect(order()).toEqual([Y, X, W]);
    setUse(Y, 20, 0);
    expect(sb.run(["config", "set", "ranking.use_prior", "off"]).code).toBe(0);
    expect(order()).toEqual([Y, X, W]);
  });
});

describe("inbox offer", () => {
  const offered = () =>
    (sb.run(["inbox", "list", "--json"], { cwd: repo }).json().unused as { id: string }[]).map((u) => u.id).sort();

  test("after the threshold, never used: offered; used or under it: not; rules: never", () => {
    expect(sb.run(["config", "set", "inbox.unused_after", "20"]).code).toBe(0);
    setUse(Y, 19, 0);
    expect(offered()).toEqual([]);
    setUse(Y, 20, 0);
    expect(offered()).toEqual([Y]); // X and W were used: never offered
    const text = sb.run(["inbox", "list"], { cwd: repo }).stdout;
    expect(text).toContain("delivered 20 times, never used");
    // The rules bundle went out with every session start above and was never used: it is not an entry.
    expect(text).not.toContain("upload invoices by hand");
  });

  test("keeping an offered entry puts it off until as many more deliveries; nothing is deleted", () => {
    expect(sb.run(["inbox", "reject", Y.slice(-8)], { cwd: repo }).code).toBe(0);
    expect(offered()).toEqual([]);
    setUse(Y, 39, 0);
    expect(offered()).toEqual([]);
    setUse(Y, 40, 0);
    expect(offered()).toEqual([Y]);
    expect(sb.run(["show", Y, "--json"], { cwd: repo }).code).toBe(0);
  });
});
