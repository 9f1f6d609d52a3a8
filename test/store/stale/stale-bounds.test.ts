/**
 * Staleness at scale (issue 36, item 11): a check's work is bounded. Each distinct glob is matched
 * once and only against the files that could match it (the answers are the ones a match against
 * every file gives), a check stops at its time budget and the next one goes on where it stopped,
 * and `coffer serve` checks in a child process, off its request path. No timing assertions: the
 * figures for a 30,000-file tree are in the commit that brought this.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkStale, treeIndex } from "../../../src/store/stale/stale";
import { closeStore, openStore } from "../../../src/store/store";
import { sandbox, startServe } from "../../kit";

const sb = sandbox("coffer-stale-bounds-");
afterAll(() => sb.cleanup());

/** A tree of `n` files in 60 x 50 folders, five extensions. */
function treeFiles(n: number): string[] {
  const exts = ["ts", "md", "json", "go", "py"];
  return Array.from({ length: n }, (_, i) => `src/pkg${i % 60}/mod${Math.floor(i / 60) % 50}/file${i}.${exts[i % 5]}`);
}

/** 400 entries x 64 globs, each distinct, of the shapes people (and attackers) write. */
function entryGlobs(entries: number, perEntry: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < entries; i++)
    for (let j = 0; j < perEntry; j++) {
      const k = i * perEntry + j;
      out.push(
        [
          `src/pkg${k % 60}/mod${k % 50}/**/*.ts`,
          `**/gone-${k}/*.ts`,
          `src/**/nomatch${k}*.md`,
          `**/*-${k}-*.{ts,go}`,
          `src/pkg${k % 61}/**/file${k}.*`,
          `**/mod${k % 53}/*.json`,
        ][j % 6]!,
      );
    }
  return out;
}

describe("glob anchors against a 30,000-file tree", () => {
  const files = treeFiles(30_000);
  const globs = entryGlobs(400, 64);

  test("each distinct glob is matched once, against the files that could match it, with the answer of a full match", () => {
    const index = treeIndex(files);
    const answers = globs.map((g) => index.holds(g));
    // 25,600 globs x 30,000 files is 768 million matches; a glob that is asked again costs none
    const afterOnce = index.tests;
    expect(afterOnce).toBeLessThan(globs.length * 10);
    for (const g of globs) index.holds(g);
    expect(index.tests).toBe(afterOnce);
    // the narrowing never changes an answer: a sample against every file
    for (let i = 0; i < globs.length; i += 97) {
      const glob = new Bun.Glob(globs[i]!);
      expect({ glob: globs[i], holds: answers[i] }).toEqual({
        glob: globs[i],
        holds: files.some((f) => glob.match(f)),
      });
    }
    expect(answers.filter(Boolean).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a === false).length).toBeGreaterThan(0);
  });

  test("globs with nothing literal to narrow by are still answered right", () => {
    const small = files.slice(0, 3000);
    const index = treeIndex(small);
    for (const g of [
      "**/*",
      "src/*/mod1/*.{md,ts}",
      "**/file1?.md",
      "**/[f]ile2*",
      "!src/**",
      "src/{pkg1,pkg2/mod2}/*",
    ]) {
      const glob = new Bun.Glob(g);
      expect({ g, holds: index.holds(g) }).toEqual({ g, holds: small.some((f) => glob.match(f)) });
    }
  });
});

describe("a check stops at its time budget and the next one goes on from there", () => {
  test("with no time left, each check does one entry; every entry is reached in turn", () => {
    const repo = sb.repo("budget", "https://github.com/acme/budget.git");
    mkdirSync(join(repo, "src"), { recursive: true });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = sb.run(["remember", `Module ${i} lives in src/gone${i}.ts`, "--json"], { cwd: repo });
      expect(r.code).toBe(0);
      ids.push(r.json().id);
    }
    process.env.COFFER_HOME = sb.cofferHome;
    process.env.HOME = sb.home;
    const store = openStore({ cwd: repo, freshness: "none", notice: () => {} });
    try {
      const scope = store.project!.id;
      const seen = new Set<string>();
      for (let pass = 0; pass < 5; pass++) {
        const report = checkStale(store, scope, repo, { deadline: 0 });
        expect({ checked: report.checked, unchecked: report.unchecked }).toEqual({ checked: 1, unchecked: 4 });
        for (const s of report.stale) seen.add(s.id);
      }
      expect([...seen].sort()).toEqual([...ids].sort());
      // with time, one check does them all
      const whole = checkStale(store, scope, repo);
      expect({ checked: whole.checked, unchecked: whole.unchecked, stale: whole.stale.length }).toEqual({
        checked: 5,
        unchecked: 0,
        stale: 5,
      });
    } finally {
      closeStore(store);
    }
  });
});

test("coffer serve's background pass flags stale entries (the check runs in a child process)", async () => {
  const sb = sandbox("coffer-stale-serve-");
  const repo = sb.repo("served", "https://github.com/acme/served.git");
  const write = (rel: string) => {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), "export {};\n");
  };
  write("src/a.ts");
  write("src/b.ts");
  const r = sb.run(["remember", "Parsing lives in src/a.ts", "--json"], { cwd: repo });
  const id = r.json().id as string;
  sb.run(["remember", "Printing lives in src/b.ts"], { cwd: repo });
  expect(sb.run(["stale", "--json"], { cwd: repo }).json().stale).toEqual([]);
  unlinkSync(join(repo, "src/a.ts"));
  const served = await startServe(sb, sb.home);
  try {
    const deadline = Date.now() + 30_000;
    let flagged: { id: string }[] = [];
    while (Date.now() < deadline) {
      const res = await served.api("/api/v1/ui/stale");
      if (res.status === 200) flagged = ((await res.json()) as { entries: { id: string }[] }).entries;
      if (flagged.length) break;
      await Bun.sleep(200);
    }
    expect(flagged.map((e) => e.id)).toEqual([id]);
    expect(served.stdout() + served.stderr()).toContain("worker: 1 stale entry");
  } finally {
    await served.stop();
    sb.cleanup();
  }
}, 60_000);
