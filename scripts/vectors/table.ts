/**
 * The neighbour table the binary embeds (src/store/thesaurus.bin), from the neighbours
 * neighbours.py found:
 *
 *   bun scripts/vectors/table.ts [--data DIR] [--out FILE]
 *
 * Per word, its neighbours above FLOOR, at most MAX, minus inflections of the word itself (the
 * router already matches stems) and English function words. Prints the table's size.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stem } from "../../src/store/text";
import { encodeThesaurus, type Neighbour } from "../../src/store/thesaurus";
import { dataDir, option } from "./common";

/**
 * Neighbours under this cosine similarity (of centred vectors) are more often related than
 * interchangeable. With the default training (whole corpus, 100 dimensions, five epochs) 0.65;
 * the first table's vectors (a sixth of the corpus, one epoch) crowded together: 0.85 there.
 */
const FLOOR = Number(option("--floor") ?? 0.65);
/** Neighbours kept per word, at most. */
const MAX = Number(option("--max") ?? 6);
/** The most frequent words considered (60,000: about 51,000 of them have a neighbour over the floor). */
const WORDS = Number(option("--words") ?? 60000);
const BUCKETS = 16_384;

const out = option("--out") ?? join(import.meta.dir, "../../src/store/thesaurus.bin");
const rows = new Map<string, Neighbour[]>();
let pairs = 0;
for (const line of readFileSync(join(dataDir(), "neighbours.tsv"), "utf8").split("\n")) {
  if (!line) continue;
  const [word, rank, ...cells] = line.split("\t");
  if (!word || Number(rank) >= WORDS) continue;
  const own = stem(word);
  const list: Neighbour[] = [];
  for (const cell of cells) {
    const i = cell.lastIndexOf(":");
    const other = cell.slice(0, i);
    const similarity = Number(cell.slice(i + 1));
    if (similarity < FLOOR || list.length >= MAX) break;
    // deploy -> deploys, deployed: the router's stems already match these.
    if (stem(other) === own || list.some((n) => stem(n.word) === stem(other))) continue;
    list.push({ word: other, similarity });
  }
  if (list.length) {
    rows.set(word, list);
    pairs += list.length;
  }
}
const table = encodeThesaurus(rows, BUCKETS);
writeFileSync(out, table);
console.log(
  `${rows.size.toLocaleString("en")} words, ${pairs.toLocaleString("en")} neighbours (floor ${FLOOR}, at most ${MAX}): ${(table.length / 1e6).toFixed(2)} MB -> ${out}`,
);
