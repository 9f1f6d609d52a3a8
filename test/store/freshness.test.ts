/**
 * Freshness on a large store (issue 15): commands no longer stat every entry file, yet a file
 * added, deleted or replaced by hand is seen by the next command, an in-place edit of a recent
 * entry too, and an in-place edit of any entry by the next full walk (doctor, reindex, serve).
 * The store holds more entries than one quick check stats (RECENT + SLICE in freshness.ts).
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SLICE } from "../../src/store/freshness";
import { claudePrompt, claudeStart, contextOf, hook, sandbox, startServe } from "../kit";

const N = 3000;
const sb = sandbox();
afterAll(() => sb.cleanup());
const dir = () => join(sb.cofferHome, "memory/global/entries");
const idOf = (i: number) => `01FRESH${String(i).padStart(19, "0")}`;
const fileOf = (i: number) => join(dir(), `${idOf(i)}.md`);
// Entry i was updated at minute i: the last ones are the newest.
const stamp = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
const entryText = (i: number, word: string) =>
  `---\nkind: note\ntitle: Fresh note ${i}\nactor: user\nsource: cli\ncreated: ${stamp(i)}\nupdated: ${stamp(i)}\n---\nThe ${word} service keeps note number ${i}.\n`;
const recallIds = (q: string) =>
  sb
    .run(["recall", q, "--json", "--limit", "10"])
    .json()
    .hits.map((h: { id: string }) => h.id);

beforeAll(() => {
  mkdirSync(dir(), { recursive: true });
  for (let i = 0; i < N; i++) writeFileSync(fileOf(i), entryText(i, `word${i}x`));
  const r = sb.run(["reindex"]);
  expect(r.code).toBe(0);
  expect(sb.run(["list", "--json", "--limit", "1"]).json().total).toBe(N);
}, 120_000);

describe("a large store stays in step with hand edits", () => {
  test("a file added by hand is seen by the next command", () => {
    writeFileSync(fileOf(N), entryText(N, "addedbyhand"));
    expect(recallIds("addedbyhand")).toEqual([idOf(N)]);
  });

  test("a file deleted by hand is gone for the next command", () => {
    expect(recallIds("word17x")).toEqual([idOf(17)]);
    unlinkSync(fileOf(17));
    expect(recallIds("word17x")).toEqual([]);
    expect(sb.run(["show", idOf(17)]).code).not.toBe(0);
  });

  test("an old entry replaced by rename (how many editors save) is seen by the next command", () => {
    const tmp = join(dir(), ".edit.tmp");
    writeFileSync(tmp, entryText(5, "renamedsave"));
    renameSync(tmp, fileOf(5));
    expect(recallIds("renamedsave")).toEqual([idOf(5)]);
    expect(recallIds("word5x")).toEqual([]);
  });

  test("a recent entry edited in place, same size, is seen by the next command", () => {
    const i = N - 3;
    const before = readFileSync(fileOf(i), "utf8");
    const after = before.replace(`word${i}x`, `edit${i}z`); // same length
    expect(after.length).toBe(before.length);
    writeFileSync(fileOf(i), after); // in place: the folder's mtime does not move
    expect(recallIds(`edit${i}z`)).toEqual([idOf(i)]);
    expect(recallIds(`word${i}x`)).toEqual([]);
  });

  test("a hand add followed by a write through Coffer: both are in the index", () => {
    writeFileSync(fileOf(N + 1), entryText(N + 1, "beforewrite"));
    // The folder changed by hand; a write through Coffer must not mark it as walked.
    expect(sb.run(["remember", "A note written through coffer itself", "--scope", "global"]).code).toBe(0);
    expect(recallIds("beforewrite")).toEqual([idOf(N + 1)]);
  });

  test("an old entry edited in place is searchable within ceil(entries / SLICE) searches (the rotating slice)", () => {
    const i = 1500;
    writeFileSync(fileOf(i), readFileSync(fileOf(i), "utf8").replace(`word${i}x`, `rotated${i}r`));
    for (let k = 0; k < Math.ceil((N + 10) / SLICE); k++)
      expect(sb.run(["recall", "unrelated", "--limit", "1"]).code).toBe(0);
    expect(recallIds(`rotated${i}r`)).toEqual([idOf(i)]);
  });

  test("an old entry edited in place is seen after doctor's full walk", () => {
    const i = 40;
    writeFileSync(fileOf(i), readFileSync(fileOf(i), "utf8").replace(`word${i}x`, `walk${i}zz`));
    sb.run(["doctor"]); // exit code reports host links; the walk is what matters here
    expect(recallIds(`walk${i}zz`)).toEqual([idOf(i)]);
  });

  test("an old entry edited in place is seen after reindex", () => {
    const i = 41;
    writeFileSync(fileOf(i), readFileSync(fileOf(i), "utf8").replace(`word${i}x`, `rebuilt${i}q`));
    expect(sb.run(["reindex"]).code).toBe(0);
    expect(recallIds(`rebuilt${i}q`)).toEqual([idOf(i)]);
  });

  test("an old entry edited in place is never shown with its old text: recall re-reads what it would show", () => {
    // Three old entries further apart than one quick check's slice: at most one of them is statted by it.
    for (const i of [43, 1243, 2443]) {
      writeFileSync(fileOf(i), readFileSync(fileOf(i), "utf8").replace(`word${i}x service`, `word${i}x daemon`));
      const hits = sb.run(["recall", `word${i}x`, "--json"]).json().hits;
      expect(hits.map((h: { id: string }) => h.id)).toEqual([idOf(i)]);
      expect(hits[0].text).toContain("daemon");
    }
    // Its old words are no longer found either: the hit was checked against the file and the question asked again.
    for (const j of [44, 1244, 2444]) {
      writeFileSync(fileOf(j), readFileSync(fileOf(j), "utf8").replace(`word${j}x`, `gone${j}v`));
      expect(recallIds(`word${j}x`)).toEqual([]);
    }
  });

  test("the prompt hook never injects an old body, and session start never shows an old title", () => {
    const repo = sb.repo("hooked");
    const i = 45;
    const prompt = (n: number) =>
      contextOf(hook(sb, "claude", "prompt", claudePrompt(`fresh-${n}`, repo, `word${i}x`)));
    expect(prompt(1)).toContain(`word${i}x service`);
    writeFileSync(fileOf(i), readFileSync(fileOf(i), "utf8").replace(`word${i}x service`, `word${i}x daemon`));
    const after = prompt(2);
    expect(after).toContain(`word${i}x daemon`);
    expect(after).not.toContain(`word${i}x service`);
    // A global convention is a session-start card; its title edited in place by hand.
    const conv = join(dir(), `${idOf(N + 50)}.md`);
    writeFileSync(conv, entryText(N + 50, "carded").replace("kind: note", "kind: convention"));
    expect(sb.run(["list", "--json", "--limit", "1"]).code).toBe(0); // indexed (a new file)
    const start = (n: number) => contextOf(hook(sb, "claude", "session-start", claudeStart(`fresh-start-${n}`, repo)));
    expect(start(1)).toContain(`Fresh note ${N + 50}`);
    writeFileSync(conv, readFileSync(conv, "utf8").replace(`title: Fresh note ${N + 50}`, "title: Retitled by hand"));
    const card = start(2);
    expect(card).toContain("Retitled by hand");
    expect(card).not.toContain(`Fresh note ${N + 50}`);
  });

  test("remember takes a text as known only when the entry's file still holds it", () => {
    // Old entries edited in place, further apart than one quick check's slice: the index still
    // holds their old text, which remember is then given again. It is new: written, and the
    // edited files are left as they are.
    for (const i of [46, 1246, 2446]) {
      const edited = readFileSync(fileOf(i), "utf8").replace(`word${i}x service`, `word${i}x daemon`);
      writeFileSync(fileOf(i), edited);
      const r = sb.run(["remember", `The word${i}x service keeps note number ${i}.`, "--scope", "global", "--json"]);
      expect(r.code).toBe(0);
      expect(r.json().status).toBe("created");
      expect(r.json().id).not.toBe(idOf(i));
      expect(readFileSync(fileOf(i), "utf8")).toBe(edited);
    }
    // A text an entry's file does hold is still known.
    const known = sb.run(["remember", "The word47x service keeps note number 47.", "--scope", "global", "--json"]);
    expect(known.json()).toMatchObject({ id: idOf(47), status: "duplicate" });
  });

  test("show reads the file itself, so it shows an in-place edit of any entry", () => {
    const i = 42;
    writeFileSync(fileOf(i), readFileSync(fileOf(i), "utf8").replace(`word${i}x`, `shown${i}y`));
    expect(sb.run(["show", idOf(i), "--json"]).json().body).toContain(`shown${i}y`);
  });
});

test("the per-scope counts and bytes kept by triggers agree with the rows after adds, edits, deletes and a reindex", () => {
  const counts = () => {
    const db = new Database(join(sb.cofferHome, "state/index.db"), { readonly: true });
    try {
      const kept = db.query("SELECT scope, n, bytes FROM scope_counts WHERE n > 0 ORDER BY scope").all();
      const real = db
        .query("SELECT scope, count(*) AS n, sum(size) AS bytes FROM entries GROUP BY scope ORDER BY scope")
        .all();
      return { kept, real };
    } finally {
      db.close();
    }
  };
  const id = sb.run(["remember", "A counted note about zebras", "--scope", "global", "--json"]).json().id;
  unlinkSync(fileOf(100));
  // An edit in place that changes a file's size (the check reads it again and updates its row).
  const newest = fileOf(N - 1);
  writeFileSync(newest, `${readFileSync(newest, "utf8")}\nA longer body now.\n`);
  expect(sb.run(["list", "--json", "--limit", "1"]).code).toBe(0);
  let c = counts();
  expect(c.kept).toEqual(c.real);
  expect(sb.run(["forget", id]).code).toBe(0);
  expect(sb.run(["reindex"]).code).toBe(0);
  c = counts();
  expect(c.kept).toEqual(c.real);
});

test("coffer serve's background pass walks memory/: an old entry edited in place reaches the index", async () => {
  const i = 60;
  writeFileSync(fileOf(i), readFileSync(fileOf(i), "utf8").replace(`word${i}x`, `served${i}w`));
  // Read the index directly: any command would run its own check first.
  const body = () => {
    const db = new Database(join(sb.cofferHome, "state/index.db"), { readonly: true });
    try {
      // The worker may be writing: wait for its lock as Coffer's own readers do.
      db.run("PRAGMA busy_timeout = 5000");
      return (db.query("SELECT body FROM entries WHERE id = ?").get(idOf(i)) as { body: string } | null)?.body ?? "";
    } finally {
      db.close();
    }
  };
  expect(body()).toContain(`word${i}x`);
  const s = await startServe(sb, sb.repo("served"));
  try {
    const until = Date.now() + 20_000; // the worker's first pass runs 2 s after start
    while (!body().includes(`served${i}w`) && Date.now() < until) await Bun.sleep(200);
    expect(body()).toContain(`served${i}w`);
  } finally {
    await s.stop();
  }
}, 40_000);
