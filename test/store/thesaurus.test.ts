/**
 * The learned thesaurus (src/store/thesaurus.bin, built by scripts/vectors/): it loads, reads only
 * the rows asked for, and holds the known neighbour pairs of test/fixtures/thesaurus-pairs.txt.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeThesaurus, loadNeighbours, neighbours } from "../../src/store/thesaurus";

const TABLE = join(import.meta.dir, "../../src/store/thesaurus.bin");
const pairs = readFileSync(join(import.meta.dir, "../fixtures/thesaurus-pairs.txt"), "utf8")
  .split("\n")
  .filter((l) => l.trim() && !l.startsWith("#"))
  .map((l) => l.trim().split(/\s+/) as [string, string]);

test("the shipped table loads, within the size budget, and holds the known pairs", async () => {
  const size = statSync(TABLE).size;
  expect(size).toBeGreaterThan(100_000);
  expect(size).toBeLessThan(10_000_000);
  await loadNeighbours(pairs.map(([w]) => w));
  const missing = pairs.filter(([w, n]) => !neighbours(w)?.some((x) => x.word === n));
  expect(missing).toEqual([]);
  for (const [w] of pairs) {
    const list = neighbours(w)!;
    // Best first, similarities within (0, 1].
    expect(list.map((x) => x.similarity)).toEqual([...list.map((x) => x.similarity)].sort((a, b) => b - a));
    expect(list.every((x) => x.similarity > 0 && x.similarity <= 1)).toBe(true);
  }
});

test("a word the table lacks has no neighbours; one not read yet is unknown", async () => {
  await loadNeighbours(["zzqxjunkword"]);
  expect(neighbours("zzqxjunkword")).toEqual([]);
  expect(neighbours("neverreadword")).toBeUndefined();
});

test("the layout round-trips: every row is found in its bucket, only rows asked for are read", async () => {
  const dir = mkdtempSync(join(tmpdir(), "coffer-thesaurus-"));
  try {
    const rows = new Map([
      [
        "deploy",
        [
          { word: "rollout", similarity: 0.71 },
          { word: "release", similarity: 0.66 },
        ],
      ],
      ["icon", [{ word: "glyph", similarity: 0.69 }]],
      ...Array.from({ length: 50 }, (_, i) => [`word${i}`, [{ word: `other${i}`, similarity: 0.6 }]] as const),
    ] as [string, { word: string; similarity: number }[]][]);
    const path = join(dir, "t.bin");
    writeFileSync(path, encodeThesaurus(rows, 8));
    await loadNeighbours(["word7", "icon", "absent"], path);
    expect(neighbours("word7", path)).toEqual([{ word: "other7", similarity: 0.6 }]);
    expect(neighbours("icon", path)).toEqual([{ word: "glyph", similarity: 0.69 }]);
    expect(neighbours("absent", path)).toEqual([]);
    expect(neighbours("word8", path)).toBeUndefined();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
