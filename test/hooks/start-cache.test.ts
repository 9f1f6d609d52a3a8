/**
 * Session start reuses the text it rendered while nothing it depends on changed (run.ts
 * cachedStartText): each change below must show in the very next session start's text.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeStart, contextOf, hook, projectId, type Sandbox, sandbox, writeEntries, writeRules } from "../kit";

let sb: Sandbox;
let repo: string;
let pid: string;
let n = 0;

beforeAll(() => {
  sb = sandbox("coffer-hook-start-cache-");
  repo = sb.repo("svc");
  pid = projectId(repo);
  writeRules(sb, pid, "- Keep commits small\n");
  writeEntries(sb, pid, [
    {
      id: "A01START",
      title: "Quokka deploys use blue/green",
      body: "Blue/green through the pipeline.",
      kind: "convention",
    },
    { id: "B01START", title: "Wombat cache warms at boot", body: "Warmed by the init job." },
  ]);
});
afterAll(() => sb.cleanup());

const start = () => contextOf(hook(sb, "claude", "session-start", claudeStart(`start-cache-${++n}`, repo)));
const setRead = (mode: string) => expect(sb.run(["set-read", mode]).code).toBe(0);
const entryFile = (id: string) => join(sb.cofferHome, "memory", "projects", pid, "entries", `${id}.md`);
const cacheRows = () => {
  const db = new Database(join(sb.cofferHome, "state", "index.db"), { readonly: true });
  try {
    // (rows under `scrubbed:` hold rules texts scrubbed once per content, not session-start texts)
    return (db.query("SELECT count(*) AS n FROM start_cache WHERE ckey NOT LIKE 'scrubbed:%'").get() as { n: number })
      .n;
  } finally {
    db.close();
  }
};

describe("session-start text cache", () => {
  test("a second start in the same state gives the same text, from the cache", () => {
    const first = start();
    expect(first).toContain("Quokka deploys use blue/green");
    expect(cacheRows()).toBe(1);
    expect(start()).toBe(first);
    expect(cacheRows()).toBe(1);
  });

  test("a card's file edited by hand (same size, new mtime) shows its new title at once", () => {
    start();
    const file = entryFile("B01START");
    const text = readFileSync(file, "utf8");
    // Same length: only the mtime tells the file changed.
    writeFileSync(file, text.replace("Wombat cache warms at boot", "Wombat cache heats at boot"));
    const later = new Date(Date.now() + 5000);
    utimesSync(file, later, later);
    const after = start();
    expect(after).toContain("Wombat cache heats at boot");
    expect(after).not.toContain("Wombat cache warms at boot");
  });

  test("an entry remembered through the CLI appears in the next start", () => {
    start();
    const r = sb.run(["remember", "Numbat migrations run before deploys", "--kind", "convention"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(start()).toContain("Numbat migrations run before deploys");
  });

  test("a forgotten entry leaves the next start", () => {
    expect(start()).toContain("Quokka deploys use blue/green");
    expect(sb.run(["forget", "A01START", "--yes"], { cwd: repo }).code).toBe(0);
    expect(start()).not.toContain("Quokka deploys use blue/green");
  });

  test("changed rules and a changed read mode are new texts, not the cached one", () => {
    const before = start();
    writeRules(sb, pid, "- Keep commits small\n- Squash before merging\n");
    const after = start();
    expect(after).toContain("Squash before merging");
    expect(after).not.toBe(before);
    setRead("manual");
    const manual = start();
    setRead("auto");
    expect(manual).toContain("Squash before merging");
    expect(manual).not.toContain("Wombat cache heats at boot");
    expect(start()).toBe(after);
  });

  test("a card file deleted by hand is gone from the next start", () => {
    expect(start()).toContain("Wombat cache heats at boot");
    rmSync(entryFile("B01START"));
    expect(start()).not.toContain("Wombat cache heats at boot");
  });
});

describe("a start without cards", () => {
  test("rules that fill the cap: the text depends on no entry, so a write keeps it; a card-showing text does not", () => {
    const full = sandbox("coffer-hook-start-full-");
    try {
      const repo2 = full.repo("rules");
      const pid2 = projectId(repo2);
      // 100 rules of ~150 characters: more than Claude's 9,500, so no card can be shown.
      const rules = Array.from(
        { length: 100 },
        (_, i) => `- Rule ${i}: ${"check the migration plan twice ".repeat(4).trim()}`,
      );
      writeRules(full, pid2, `${rules.join("\n")}\n`);
      writeEntries(full, pid2, [
        { id: "C01START", title: "Echidna jobs retry", body: "Three times.", kind: "convention" },
      ]);
      const startFull = () => contextOf(hook(full, "claude", "session-start", claudeStart(`full-${++n}`, repo2)));
      const first = startFull();
      expect(first).toMatch(/more rules did not fit/);
      expect(first).not.toContain("Echidna jobs retry");
      // Mark the cached text: a start that reuses it shows the mark.
      const mark = (home: string) => {
        const db = new Database(join(home, "state", "index.db"));
        try {
          db.run("UPDATE start_cache SET text = text || '\n(reused)' WHERE ckey NOT LIKE 'scrubbed:%'");
        } finally {
          db.close();
        }
      };
      mark(full.cofferHome);
      expect(full.run(["remember", "Platypus builds need the arm64 runner"], { cwd: repo2 }).code).toBe(0);
      expect(startFull()).toBe(`${first}\n(reused)`);
      // With room for cards, the same write makes the next start render again (and show the entry).
      const before = start();
      mark(sb.cofferHome);
      expect(
        sb.run(["remember", "Bilby releases are tagged on Fridays", "--kind", "convention"], { cwd: repo }).code,
      ).toBe(0);
      const after = start();
      expect(after).not.toContain("(reused)");
      expect(after).toContain("Bilby releases are tagged on Fridays");
      expect(before).not.toContain("Bilby releases");
    } finally {
      full.cleanup();
    }
  });
});
