/**
 * The TypeScript tokenizer and embedding against the Python ones: scripts/embed/export.py wrote
 * 1,000 strings (edge cases, the routing sets' sentences, random mixtures of their words) with
 * model2vec's token ids and float vectors. Ids must be identical; vectors (read from the int8
 * table) within 1e-3 cosine.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DIMS, embed, loadTable, tokenize, vocabOf } from "../../src/retrieval/embed/embed";

type Fixture = { text: string; ids: number[]; vec: number[] };
const fixtures: Fixture[] = readFileSync(join(import.meta.dir, "../fixtures/embed/strings.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : na === nb ? 1 : 0;
};

describe("static embedding", () => {
  test("the table loads", () => {
    expect(loadTable()).not.toBeNull();
    expect(fixtures.length).toBeGreaterThanOrEqual(1000);
  });

  test("token ids equal the Python tokenizer's on every fixture", () => {
    const wrong = fixtures.filter((f) => JSON.stringify(tokenize(f.text)) !== JSON.stringify(f.ids));
    expect(wrong.map((f) => ({ text: f.text, want: f.ids, got: tokenize(f.text) })).slice(0, 3)).toEqual([]);
  });

  test("vectors within 1e-3 cosine of the float model's", () => {
    let worst = 1;
    for (const f of fixtures) {
      const v = embed(f.text);
      expect(v.length).toBe(DIMS);
      if (!f.ids.length) {
        expect(v.every((x) => x === 0)).toBe(true);
        continue;
      }
      worst = Math.min(worst, cosine(v, f.vec));
    }
    expect(1 - worst).toBeLessThan(1e-3);
  });

  test("the vocabulary is mapped, or read where mapping fails: the same bytes", () => {
    const file = join(import.meta.dir, "../../src/retrieval/embed/model.bin");
    const fd = openSync(file, "r");
    try {
      const bytes = 700_000;
      const mapped = vocabOf(file, fd, bytes);
      expect(mapped.start).toBe(64); // the mapping holds the header too
      const read = vocabOf(join(import.meta.dir, "no-such-table.bin"), fd, bytes); // cannot be mapped
      expect(read.start).toBe(0);
      expect(Buffer.compare(mapped.vocab.subarray(64), read.vocab)).toBe(0);
      expect(Buffer.compare(read.vocab, readFileSync(file).subarray(64, 64 + bytes))).toBe(0);
    } finally {
      closeSync(fd);
    }
  });

  test("a paraphrase is nearer its meaning than an unrelated sentence", () => {
    const a = embed("Deploys use ArgoCD");
    const b = embed("We ship through Argo");
    const c = embed("The cat sat on the mat");
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c));
  });
});

describe("what the model reads", () => {
  test("Latin-script text yes, mostly Chinese, Japanese, Korean, Cyrillic no", async () => {
    const { readsText } = await import("../../src/retrieval/embed/embed");
    expect(readsText("Deploys use ArgoCD")).toBe(true);
    expect(readsText("Déploiement via ArgoCD, façade naïve")).toBe(true);
    expect(readsText("数据库连接池用的是什么")).toBe(false);
    expect(readsText("数据库连接池为什么用 PostgreSQL")).toBe(false);
    expect(readsText("the pool in 数据库 uses PostgreSQL 16")).toBe(true);
    expect(readsText("Как мы деплоим?")).toBe(false);
    expect(readsText("1234 !!!")).toBe(false);
  });
});

describe("the table's copy under state/ (compiled binary)", () => {
  test("made on first use, read after; another model's copy is removed", async () => {
    const { sandbox } = await import("../kit");
    const { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } = await import("node:fs");
    const meta = (await import("../../src/retrieval/embed/model.json")).default;
    const sb = sandbox("coffer-embed-table-");
    try {
      const repo = sb.repo("shop");
      const dir = join(sb.cofferHome, "state", "model");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "minilm-l6-static-older.bin"), "an older model's table");
      expect(sb.run(["remember", "Deploys use ArgoCD"], { cwd: repo }).code).toBe(0);
      expect(readdirSync(dir)).toEqual([`${meta.id}.bin`]);
      expect(statSync(join(dir, `${meta.id}.bin`)).size).toBe(meta.bytes);
      // a second process maps the copy (nothing written again) and finds the entry by meaning
      const hits = sb.run(["recall", "how do we ship to production servers", "--json"], { cwd: repo }).json().hits;
      expect(hits.length).toBe(1);
      expect(existsSync(join(dir, "minilm-l6-static-older.bin"))).toBe(false);
    } finally {
      sb.cleanup();
    }
  });
});
