/**
 * Trains word vectors on the corpus corpus.ts wrote, with Debian's `fasttext` (apt-get install
 * fasttext): skipgram, a fixed seed and by default one thread, so a rerun on the same corpus gives
 * the same vectors (fastText is deterministic only with one thread; --threads 2 halves the time
 * and gives slightly different vectors). Runs under `nice -n 19`: the machine is shared.
 *
 * Subword n-grams are off (-maxn 0): the table only covers words seen 10+ times, where they add
 * little, they pull neighbours toward words spelled alike (deploy -> redeploy, deployable) rather
 * than words meant alike, and on this shared 2-core machine they made training 4x slower.
 * Frequent words are subsampled hard (-t 1e-5): faster, and better neighbours for rare words.
 *
 *   bun scripts/vectors/train.ts [--data DIR] [--threads N]
 *
 * Writes DIR/vectors.vec (and vectors.bin) and prints the time it took.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { dataDir, option } from "./common";

const dir = dataDir();
const threads = option("--threads") ?? "1";
const corpus = join(dir, "corpus.txt");
if (!existsSync(corpus)) throw new Error(`${corpus} is missing: run bun scripts/vectors/corpus.ts first`);

/** The training settings (SOURCES.md and the README describe them). */
const SETTINGS = [
  ["-dim", "64"],
  ["-ws", "5"],
  ["-epoch", "1"],
  ["-minCount", "10"],
  ["-neg", "5"],
  ["-maxn", "0"],
  ["-t", "0.00001"],
  ["-lr", "0.05"],
  ["-seed", "1"],
].flat();

const started = Date.now();
const r = Bun.spawnSync(
  [
    "nice",
    "-n",
    "19",
    "fasttext",
    "skipgram",
    "-input",
    corpus,
    "-output",
    join(dir, "vectors"),
    ...SETTINGS,
    "-thread",
    threads,
  ],
  { stdout: "inherit", stderr: "inherit" },
);
if (r.exitCode !== 0) throw new Error(`fasttext failed (${r.exitCode}); is it installed? apt-get install fasttext`);
console.log(`trained in ${((Date.now() - started) / 60000).toFixed(1)} min with ${threads} thread(s)`);
