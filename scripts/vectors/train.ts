/**
 * Trains word vectors on the corpus corpus.ts wrote, with Debian's `fasttext` (apt-get install
 * fasttext): skipgram, a fixed seed and by default one thread, so a rerun on the same corpus gives
 * the same vectors (fastText is deterministic only with one thread; --threads 2 halves the time
 * and gives slightly different vectors). Runs under `nice -n 19`: the machine is shared.
 *
 * Subword n-grams are off (-maxn 0): the table only covers words seen 5+ times, where they add
 * little, they pull neighbours toward words spelled alike (deploy -> redeploy, deployable) rather
 * than words meant alike, and on this shared 2-core machine they made training 4x slower.
 * Frequent words are subsampled hard (-t 1e-5): faster, and better neighbours for rare words.
 *
 * By default on the whole corpus (50.8 million words), 100 dimensions, five epochs, words seen
 * five times or more (a vocabulary of about 80,000): 17 minutes with --threads 2 on this 2-core
 * machine (one thread, not timed: about twice that). --sample N trains on every Nth line of the corpus (the
 * first table was built from --sample 6, one epoch, 64 dimensions, words seen 10+ times: its
 * neighbours past the 9,000th word were chance). --min-count N keeps words seen N+ times.
 *
 *   bun scripts/vectors/train.ts [--data DIR] [--threads N] [--sample N] [--min-count N]
 *
 * Writes DIR/vectors.vec (and vectors.bin) and prints the time it took.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataDir, option } from "./common";

const dir = dataDir();
const threads = option("--threads") ?? "1";
const sample = Number(option("--sample") ?? 1);
const minCount = option("--min-count") ?? "5";
const full = join(dir, "corpus.txt");
if (!existsSync(full)) throw new Error(`${full} is missing: run bun scripts/vectors/corpus.ts first`);
let corpus = full;
if (sample > 1) {
  // Every Nth paragraph: all sources keep their share.
  corpus = join(dir, `corpus-sample-${sample}.txt`);
  const lines = readFileSync(full, "utf8").split("\n");
  writeFileSync(corpus, `${lines.filter((l, i) => l && (i + 1) % sample === 0).join("\n")}\n`);
}

/** The training settings (SOURCES.md and the README describe them). */
const SETTINGS = [
  ["-dim", "100"],
  ["-ws", "5"],
  ["-epoch", "5"],
  ["-minCount", minCount],
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
console.log(`trained on ${corpus} in ${((Date.now() - started) / 60000).toFixed(1)} min with ${threads} thread(s)`);
