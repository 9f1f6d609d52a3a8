/**
 * The hook reads the stored staleness result (issue 30): a stale entry is still routed, its body is
 * marked with the reason, and it comes after the fresh ones. The hook itself checks nothing.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudePrompt, claudeStart, contextOf, hook, sandbox } from "../kit";

const sb = sandbox("coffer-hook-stale-");
afterAll(() => sb.cleanup());

test("a stale body is marked with its reason and ranks below a fresh one", () => {
  const repo = sb.repo("billing");
  mkdirSync(join(repo, "src/billing"), { recursive: true });
  for (const f of ["src/billing/tax.ts", "src/billing/rates.ts"]) writeFileSync(join(repo, f), "x\n");
  const remember = (title: string, text: string) => {
    const r = sb.run(["remember", text, "--title", title, "--json"], { cwd: repo });
    expect(r.code).toBe(0);
    return r.json().id as string;
  };
  // the stale one would rank first on its own: its title holds every word of the prompt
  const stale = remember("Invoice tax rounding", "Invoice tax is rounded per line in src/billing/tax.ts.");
  const fresh = remember("Rates table", "Invoice tax rates come from src/billing/rates.ts, refreshed nightly.");
  const ask = (session: string) =>
    contextOf(hook(sb, "claude", "prompt", claudePrompt(session, repo, "How is invoice tax handled?"), { cwd: repo }));

  const before = ask("s1");
  expect(before).not.toContain("may be stale");
  expect(before.indexOf(stale.slice(-8))).toBeLessThan(before.indexOf(fresh.slice(-8)));

  unlinkSync(join(repo, "src/billing/tax.ts"));
  // until a check runs, the hook knows nothing (it never looks at the working tree itself)
  expect(ask("s2")).not.toContain("may be stale");
  expect(sb.run(["stale"], { cwd: repo }).code).toBe(0);

  const after = ask("s3");
  expect(after).toContain(
    "Invoice tax is rounded per line in src/billing/tax.ts.\n(may be stale: src/billing/tax.ts is gone)",
  );
  expect(after.indexOf(fresh.slice(-8))).toBeGreaterThan(-1);
  expect(after.indexOf(fresh.slice(-8))).toBeLessThan(after.indexOf(stale.slice(-8)));
  expect(after.match(/may be stale/g)?.length).toBe(1);
});

test("session start: a stale card is marked and comes after the fresh ones, the cached text renewed (issue 37)", () => {
  const repo = sb.repo("ledger");
  mkdirSync(join(repo, "src/ledger"), { recursive: true });
  for (const f of ["src/ledger/post.ts", "src/ledger/close.ts"]) writeFileSync(join(repo, f), "x\n");
  const remember = (text: string) => {
    const r = sb.run(["remember", text, "--kind", "convention", "--json"], { cwd: repo });
    expect(r.code).toBe(0);
    return r.json().id as string;
  };
  // the stale one is the newer: on recency alone it would come first
  const fresh = remember("Month-end close runs from src/ledger/close.ts");
  const stale = remember("Ledger postings go through src/ledger/post.ts");
  const start = (session: string) =>
    contextOf(hook(sb, "claude", "session-start", claudeStart(session, repo), { cwd: repo }));

  const before = start("t1");
  expect(before).not.toContain("may be stale");
  expect(before.indexOf(stale.slice(-8))).toBeLessThan(before.indexOf(fresh.slice(-8)));
  expect(start("t2")).toBe(before); // served from the cache

  unlinkSync(join(repo, "src/ledger/post.ts"));
  expect(sb.run(["stale"], { cwd: repo }).code).toBe(0);
  const after = start("t3");
  const line = after.split("\n").find((l) => l.includes(stale.slice(-8)));
  expect(line).toContain("(may be stale: src/ledger/post.ts is gone)");
  expect(after.indexOf(fresh.slice(-8))).toBeGreaterThan(-1);
  expect(after.indexOf(fresh.slice(-8))).toBeLessThan(after.indexOf(stale.slice(-8)));
  expect(after.match(/may be stale/g)?.length).toBe(1);

  // the file back and checked again: the mark goes, the cache follows
  writeFileSync(join(repo, "src/ledger/post.ts"), "x\n");
  expect(sb.run(["stale"], { cwd: repo }).code).toBe(0);
  expect(start("t4")).not.toContain("may be stale");
});
