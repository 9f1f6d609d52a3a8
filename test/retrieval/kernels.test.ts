/**
 * The WebAssembly kernels of similarity.ts, compiled ahead on another thread (the prompt hook and
 * `recall` start it before opening the store) or on first use: either way the Hamming pass picks
 * the codes a plain popcount picks. Each way runs in a fresh process (the module is made once).
 */
import { expect, test } from "bun:test";
import { resolve } from "node:path";

const similarity = resolve(import.meta.dir, "..", "..", "src", "retrieval", "similarity.ts");

/** 2,000 deterministic 256-bit codes and a query. */
function codes(): { all: number[]; query: number[] } {
  let seed = 12345;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  return { all: Array.from({ length: 2000 * 8 }, next), query: Array.from({ length: 8 }, next) };
}

/** The indexes of the `keep` nearest codes by plain popcount (ties: the first ones), ascending. */
function reference(keep: number): number[] {
  const { all, query } = codes();
  const pop = (x: number) => {
    let n = 0;
    for (let v = x >>> 0; v; v &= v - 1) n++;
    return n;
  };
  const dist = Array.from({ length: 2000 }, (_, i) =>
    query.reduce((d, q, w) => d + pop((all[i * 8 + w]! ^ q) >>> 0), 0),
  );
  return dist
    .map((d, i) => [d, i] as const)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .slice(0, keep)
    .map(([, i]) => i)
    .sort((a, b) => a - b);
}

function picked(ahead: boolean, keep: number): number[] {
  const script = `
    const { compileKernels, hammingNearest } = await import(${JSON.stringify(similarity)});
    ${ahead ? "await compileKernels();" : ""}
    let seed = 12345;
    const next = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed; };
    const all = Uint32Array.from({ length: 2000 * 8 }, next);
    const query = Uint32Array.from({ length: 8 }, next);
    const rowids = Uint32Array.from({ length: 2000 }, (_, i) => i + 1);
    console.log(JSON.stringify(hammingNearest([{ rowids, codes: all }], query, ${keep})));
  `;
  const r = Bun.spawnSync([process.execPath, "--eval", script], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  return JSON.parse(r.stdout.toString());
}

test("kernels compiled ahead and on first use pick the codes a plain popcount picks", () => {
  const want = reference(64);
  expect(picked(true, 64)).toEqual(want);
  expect(picked(false, 64)).toEqual(want);
});
