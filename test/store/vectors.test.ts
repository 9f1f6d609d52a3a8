/**
 * Entry vectors in the index (store/vectors.ts): computed on write, packed into blocks of sign
 * codes, found again by `nearest` as the exact scan would, dropped with their entry, and made
 * again when the model changes (lazily on a CLI open, or by reindex).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embed, MODEL_ID } from "../../src/embed/embed";
import { dbOf } from "../../src/store/db";
import { forget, remember } from "../../src/store/entries";
import { rebuildIndex } from "../../src/store/indexer";
import { activeScopes, closeStore, openStore } from "../../src/store/store";
import { nearest, queryVector, refreshVectors, unpackVector, vectorsCurrent } from "../../src/store/vectors";

const root = mkdtempSync(join(tmpdir(), "coffer-vectors-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
process.env.COFFER_HOME = join(root, "coffer");
process.env.HOME = join(root, "home");
const repo = join(root, "work", "shop");
mkdirSync(join(repo, ".git"), { recursive: true });

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
