/**
 * Entry vectors in the index (store/vectors.ts): computed on write, packed into blocks of sign
 * codes, found again by `nearest` as the exact scan would, dropped with their entry, and made
 * again when the model changes (lazily on a CLI open, or by reindex).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { embed, MODEL_ID } from "../../src/retrieval/embed/embed";
import { hammingNearest, nearest, queryVector } from "../../src/retrieval/similarity";
import { dbOf } from "../../src/store/db";
import { forget, remember } from "../../src/store/entries";
import { rebuildIndex } from "../../src/store/indexer";
import { activeScopes, closeStore, openStore } from "../../src/store/store";
import { refreshVectors, unpackVector, vectorBlocks, vectorsCurrent } from "../../src/store/vectors";
import { inProcessHome } from "../kit";

const { root, repo } = inProcessHome("coffer-vectors-");

const TOPICS = ["deploy", "payments", "database", "tests", "mobile", "auth", "search", "billing", "email", "logging"];
const texts = Array.from(
  { length: 600 },
  (_, i) =>
    `${TOPICS[i % TOPICS.length]} note ${i}: the ${["first", "second", "third"][i % 3]} rule of ${TOPICS[(i * 7) % 10]} work number ${i * 13}`,
);

const open = () => openStore({ cwd: repo, freshness: "none", notice: () => {} });
const count = (sql: string) => (dbOf(store).query(sql).get() as { n: number }).n;
const store = open();
const ids: string[] = [];

describe("the Hamming pass (WebAssembly)", () => {
  /** Bits set in a 32-bit word, the slow and obvious way. */
  const bits = (x: number) => {
    let n = 0;
    for (let v = x >>> 0; v; v >>>= 1) n += v & 1;
    return n;
  };
  let seed = 7;
  const rand32 = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed ^ (seed >>> 13) ^ Math.imul(seed, 2654435761)) >>> 0;
  };
  const block = (n: number) => ({
    rowids: Array.from({ length: n }, (_, i) => i),
    codes: Uint32Array.from({ length: n * 8 }, rand32),
  });

  test.each([
    [[40], 128],
    [[4096, 4096, 1000], 512],
    [[3000, 20], 160],
  ])("blocks of %p codes, best %p: the same codes as counting bits one by one, in order", (sizes, keep) => {
    const blocks = sizes.map(block);
    // A longer block row than its codes use (a block is read as stored): only rowids.length codes count.
    blocks[0]!.codes = Uint32Array.from([...blocks[0]!.codes, 0xffffffff, 0, 1, 2, 3, 4, 5, 6]);
    const code = Uint32Array.from({ length: 8 }, rand32);
    const dist: number[] = [];
    for (const b of blocks)
      for (let i = 0; i < b.rowids.length; i++) {
        let d = 0;
        for (let w = 0; w < 8; w++) d += bits(b.codes[i * 8 + w]! ^ code[w]!);
        dist.push(d);
      }
    // The reference: by distance, ties by position; the answer is in position order.
    const want = dist
      .map((d, i) => ({ d, i }))
      .sort((a, b) => a.d - b.d || a.i - b.i)
      .slice(0, keep)
      .map((x) => x.i)
      .sort((a, b) => a - b);
    expect(hammingNearest(blocks, code, keep)).toEqual(want);
  });
});

describe("entry vectors", () => {
  test("every write stores its entry's vector and packs codes in blocks", () => {
    for (const text of texts) ids.push(remember(store, { text, actor: "test", source: "cli" }).id);
    ids.push(
      remember(store, { text: "Never log card data: PAN and CVV stay out of logs", actor: "test", source: "cli" }).id,
    );
    expect(count("SELECT count(*) AS n FROM entry_vectors")).toBe(texts.length + 1);
    expect(count(`SELECT count(*) AS n FROM entry_vectors WHERE model = '${MODEL_ID}'`)).toBe(texts.length + 1);
    // 601 writes: two packs of 256 happened, the rest is pending.
    expect(count("SELECT sum(n) AS n FROM vector_blocks")).toBe(512);
    expect(vectorsCurrent(store)).toBe(true);
  });

  test("nearest finds what the exact scan finds", () => {
    const rows = dbOf(store).query("SELECT rowid, vec FROM entry_vectors").all() as {
      rowid: number;
      vec: Uint8Array;
    }[];
    for (const q of ["payments rule number", "mobile work", "may I print the card number while debugging?"]) {
      const v = queryVector(store, q)!;
      const exact = rows
        .map((r) => ({ rowid: r.rowid, sim: unpackVector(r.vec).reduce((s, x, i) => s + x * v[i]!, 0) }))
        .sort((a, b) => b.sim - a.sim)
        .slice(0, 5);
      const found = nearest(store, activeScopes(store), v, 5);
      expect(found.map((f) => f.rowid)).toEqual(exact.map((e) => e.rowid));
      expect(found[0]!.sim).toBeCloseTo(exact[0]!.sim, 6);
    }
  });

  test("a forgotten entry is never found again", () => {
    const target = ids.at(-1)!;
    const v = queryVector(store, "Never log card data: PAN and CVV stay out of logs")!;
    const before = nearest(store, activeScopes(store), v, 1)[0]!;
    expect(before.sim).toBeGreaterThan(0.99);
    forget(store, target, "test");
    const after = nearest(store, activeScopes(store), v, 3);
    expect(after.every((a) => a.rowid !== before.rowid)).toBe(true);
  });

  test("vectors of another model are not used until they are made again", () => {
    dbOf(store).run("UPDATE entry_vectors SET model = 'old-model'");
    dbOf(store).run("UPDATE meta SET value = 'old-model' WHERE key = 'vector_model'");
    expect(vectorsCurrent(store)).toBe(false);
    expect(queryVector(store, "payments rule")).toBeUndefined();
    // Lazily, within a budget: a CLI open does this.
    expect(refreshVectors(store, 0)).toBe(texts.length);
    expect(vectorsCurrent(store)).toBe(true);
    expect(count(`SELECT count(*) AS n FROM entry_vectors WHERE model = '${MODEL_ID}'`)).toBe(texts.length);
    expect(count("SELECT sum(n) AS n FROM vector_blocks")).toBe(texts.length);
  });

  test("reindex makes every vector with this model", () => {
    dbOf(store).run("UPDATE entry_vectors SET model = 'old-model'");
    dbOf(store).run("UPDATE meta SET value = 'old-model' WHERE key = 'vector_model'");
    rebuildIndex(dbOf(store));
    expect(vectorsCurrent(store)).toBe(true);
    expect(count(`SELECT count(*) AS n FROM entry_vectors WHERE model = '${MODEL_ID}'`)).toBe(texts.length);
    const v = embed("payments rule");
    expect(nearest(store, activeScopes(store), v, 3)).toHaveLength(3);
    closeStore(store);
  });
});

describe("the blocks' copy beside the index", () => {
  test("a whole scan reads the blocks from their copy while it is current", () => {
    const store = open();
    const scopes = activeScopes(store);
    const fromDb = () =>
      (
        dbOf(store).query("SELECT rowids, codes FROM vector_blocks ORDER BY scope, block").all() as {
          rowids: Uint8Array;
          codes: Uint8Array;
        }[]
      ).map((r) => [...new Uint32Array(r.rowids.buffer, r.rowids.byteOffset, r.rowids.byteLength / 4)]);
    const dir = join(root, "coffer", "state", "vectors");
    rmSync(dir, { recursive: true, force: true });
    const first = vectorBlocks(store, scopes);
    expect(first.map((b) => [...b.rowids])).toEqual(fromDb());
    const [name] = readdirSync(dir);
    const file = join(dir, name!);
    // The copy is what the next scan reads: a code changed in it (same token, same size) shows.
    const bytes = new Uint8Array(readFileSync(file));
    const words = new Uint32Array(bytes.buffer);
    const lastCode = words.length - 1;
    words[lastCode] = ~words[lastCode]! >>> 0;
    writeFileSync(file, bytes);
    const second = vectorBlocks(store, scopes);
    expect(second.at(-1)!.codes.at(-1)).toBe(words[lastCode]!);
    // A copy cut short is not used, and is made again.
    writeFileSync(file, bytes.subarray(0, bytes.length - 4));
    expect(vectorBlocks(store, scopes).at(-1)!.codes.at(-1)).toBe(first.at(-1)!.codes.at(-1)!);
    expect(readFileSync(file).length).toBe(bytes.length);
    // A binary older than the tokens packs without changing the token: the block's row changed.
    const db = dbOf(store);
    const last = db
      .query("SELECT scope, block, n, rowids, codes FROM vector_blocks ORDER BY scope, block DESC LIMIT 1")
      .get() as { scope: string; block: number; n: number; rowids: Uint8Array; codes: Uint8Array };
    const tokensBefore = db.query("SELECT value FROM meta WHERE key LIKE 'vector_blocks:%'").all();
    db.query("INSERT OR REPLACE INTO vector_blocks(scope, block, n, rowids, codes) VALUES(?, ?, ?, ?, ?)").run(
      last.scope,
      last.block,
      last.n - 1,
      last.rowids.subarray(0, 4 * (last.n - 1)),
      last.codes.subarray(0, 32 * (last.n - 1)),
    );
    expect(db.query("SELECT value FROM meta WHERE key LIKE 'vector_blocks:%'").all()).toEqual(tokensBefore);
    expect(vectorBlocks(store, scopes).map((b) => [...b.rowids])).toEqual(fromDb());
    expect(vectorBlocks(store, scopes).at(-1)!.rowids.length).toBe(last.n - 1);
    // A pack changes the blocks and their token: the old copy is stale, the scan reads SQLite.
    writeFileSync(file, bytes); // the doctored copy, under the old token
    for (let i = 0; i < 300; i++)
      remember(store, { text: `search note ${i}: the index ${i * 7} of shard ${i % 5}`, actor: "test", source: "cli" });
    const after = vectorBlocks(store, scopes);
    expect(after.map((b) => [...b.rowids])).toEqual(fromDb());
    expect(after.reduce((n, b) => n + b.rowids.length, 0)).toBeGreaterThan(
      first.reduce((n, b) => n + b.rowids.length, 0),
    );
    expect(after.some((b) => b.codes.includes(words[lastCode]!) && b.codes.at(-1) === words[lastCode])).toBe(false);
    // A rebuilt index packs every scope anew, under new tokens: the copy is made again.
    const tokens = () =>
      dbOf(store).query("SELECT key, value FROM meta WHERE key LIKE 'vector_blocks:%' ORDER BY key").all();
    const before = tokens();
    expect(before.length).toBeGreaterThan(0);
    const orphan = join(dir, "0123456789abcdef01234567.codes"); // a scope that is gone
    writeFileSync(orphan, bytes);
    rebuildIndex(dbOf(store));
    expect(existsSync(orphan)).toBe(false);
    const rebuilt = tokens();
    expect(rebuilt.length).toBe(before.length);
    expect(rebuilt).not.toEqual(before);
    expect(vectorBlocks(store, scopes).map((b) => [...b.rowids])).toEqual(fromDb());
    expect(readFileSync(file).includes(Buffer.from((rebuilt[0] as { value: string }).value))).toBe(true);
    // An index an older binary packed holds no token: the first whole scan gives it one.
    dbOf(store).run("DELETE FROM meta WHERE key LIKE 'vector_blocks:%'");
    rmSync(dir, { recursive: true, force: true });
    expect(vectorBlocks(store, scopes).map((b) => [...b.rowids])).toEqual(fromDb());
    const given = tokens();
    expect(given.length).toBe(1); // the one scope with blocks
    expect(readFileSync(file).includes(Buffer.from((given[0] as { value: string }).value))).toBe(true);
    closeStore(store);
  });
});
