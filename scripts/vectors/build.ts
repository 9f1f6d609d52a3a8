/**
 * Rebuilds the learned thesaurus end to end: corpus -> vectors -> neighbours -> table.
 *
 *   bun scripts/vectors/build.ts [--data DIR] [--threads N]
 *
 * Needs git, Debian's fasttext and python3 with numpy. See README.md beside this file.
 */
import { dataDir, option } from "./common";

const dir = dataDir();
const threads = option("--threads") ?? "1";
const steps: string[][] = [
  ["bun", `${import.meta.dir}/corpus.ts`, "--data", dir],
  ["bun", `${import.meta.dir}/train.ts`, "--data", dir, "--threads", threads],
  ["nice", "-n", "19", "python3", `${import.meta.dir}/neighbours.py`, dir],
  ["bun", `${import.meta.dir}/table.ts`, "--data", dir],
];
const started = Date.now();
for (const step of steps) {
  const t = Date.now();
  const r = Bun.spawnSync(step[0] === "bun" ? ["nice", "-n", "19", ...step] : step, {
    stdout: "inherit",
    stderr: "inherit",
  });
  if (r.exitCode !== 0) throw new Error(`${step.join(" ")} failed (${r.exitCode})`);
  console.log(`-- ${step[1]?.split("/").pop()}: ${((Date.now() - t) / 60000).toFixed(1)} min`);
}
console.log(`thesaurus rebuilt in ${((Date.now() - started) / 60000).toFixed(1)} min`);
