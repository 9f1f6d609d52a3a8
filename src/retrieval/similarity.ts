/**
 * Similarity: the entries nearest a text in meaning, from the vectors the index keeps
 * (src/store/vectors.ts has their layout). A query's sign bits are compared with every stored code
 * by Hamming distance, and exactly scored only for the best few (`nearest`).
 */
import {
  CODE_WORDS,
  nearRows,
  pendingStored,
  type ScopeKey,
  signCode,
  storedVectorOf,
  storedVectors,
  vectorBlocks,
  vectorsCurrent,
  vectorText,
} from "../store";
import { embed, readsText } from "./embed/embed";

/**
 * Codes scored exactly after the Hamming pass. On 40,000 passages of documentation queried with
 * the routing sets' prompts, the best 512 by Hamming distance of the 256 sign bits hold about 95%
 * of the exact best five (256: 93%, 1,024: 97%); fewer bits first lose too many (64 bits: 82% of
 * them in the best 2,048).
 */
const SHORTLIST = 512;
/** A caller that wants few (the prompt hook: its best 20) scores 8 per wanted, at least this many. */
const SHORTLIST_MIN = 128;

export type Similar = { rowid: number; sim: number };

/**
 * The similarity of `query` (a unit vector) to each stored vector (f32 scale, int8 components), by
 * rowid: the dot products in WebAssembly, the same numbers JavaScript's loop would give (f64, same
 * order), without a cold loop of 256 multiplications per vector.
 */
function dotsStored(query: Float32Array, stored: { rowid: number; vec: Uint8Array }[]): Map<number, number> {
  const out = new Map<number, number>();
  if (!stored.length) return out;
  const w = hammingWasm();
  const stride = 4 + query.length;
  const q = stored.length * stride;
  const results = q + 4 * query.length + 8 - ((q + 4 * query.length) % 8);
  const mem = wasmMemory(w, results + 8 * stored.length);
  const bytes = new Uint8Array(mem);
  for (const [i, v] of stored.entries()) bytes.set(v.vec.subarray(0, stride), i * stride);
  new Float32Array(mem, q, query.length).set(query);
  w.dots(0, stored.length, stride, query.length, q, results);
  const sims = new Float64Array(mem, results, stored.length);
  for (const [i, v] of stored.entries()) out.set(v.rowid, sims[i]!);
  return out;
}

/**
 * The Hamming pass in WebAssembly (scripts/vectors/hamming.wat): i64.popcnt per 64 bits, where
 * JavaScript needs table lookups, and it runs at full speed in a fresh process (the loop is
 * 100,000 codes long and the JIT would still be warming up). Measured in a compiled binary: 0.4 ms
 * for 10,000 codes and 2.6 ms for 100,000 (copy included), against 3-5 ms and 8-34 ms in JavaScript.
 */
const HAMMING_WASM =
  "AGFzbQEAAAABGwNgBX9/f39/AGAFf39/f38Bf2AGf39/f39/AAMEAwABAgUDAQABByQEBm1lbW9yeQIAB2hhbW1pbmcAAAZzZWxlY3QAAQRkb3RzAAIK8AIDkQECBH4DfyACKQMAIQUgAikDCCEGIAIpAxAhByACKQMYIQggACABQQV0aiEJAkADQCAAIAlPDQEgACkDACAFhXsgACkDCCAGhXt8IAApAxAgB4V7IAApAxggCIV7fHynIQogAyAKOwEAIAQgCkECdGohCyALIAsoAgBBAWo2AgAgAEEgaiEAIANBAmohAwwACwsLYAEDfwJAA0AgBSABTw0BIAAgBUEBdGovAQAhBiAGIAJJIAYgAkYgA0EASnFyBEAgBiACRgRAIANBAWshAwsgBCAHQQJ0aiAFNgIAIAdBAWohBwsgBUEBaiEFDAALCyAHC3oCA38BfAJAA0AgBiABTw0BIAAgBiACbGohCEQAAAAAAAAAACEJQQAhBwJAA0AgByADTw0BIAkgBCAHQQJ0aioCALsgCCAHaiwABLeioCEJIAdBAWohBwwACwsgBSAGQQN0aiAJIAgqAgC7ojkDACAGQQFqIQYMAAsLCw==";
type Hamming = {
  memory: WebAssembly.Memory;
  hamming: (codes: number, n: number, query: number, dist: number, hist: number) => void;
  select: (dist: number, n: number, cut: number, ties: number, out: number) => number;
  dots: (vecs: number, n: number, stride: number, dims: number, query: number, out: number) => void;
};
let hammingModule: Hamming | undefined;
let compiledModule: WebAssembly.Module | undefined;
const wasmBytes = () => Buffer.from(HAMMING_WASM, "base64");
const hammingWasm = (): Hamming =>
  (hammingModule ??= new WebAssembly.Instance(compiledModule ?? new WebAssembly.Module(wasmBytes()))
    .exports as unknown as Hamming);

/**
 * Compile the module on another thread, ahead of its first use: the prompt hook starts it before
 * it reads stdin and opens the store, and awaits it before routing. Compiled on the spot, it cost
 * a hook 0.8-1.4 ms; started 5 ms ahead, 0.2 ms (compiled probe). Without it, the first use
 * compiles as before.
 */
export function compileKernels(): Promise<void> {
  return WebAssembly.compile(wasmBytes()).then((m) => {
    compiledModule ??= m;
  });
}

/** The module's memory, grown to hold at least `bytes` (it is scratch space: every call lays out its own). */
function wasmMemory(w: Hamming, bytes: number): ArrayBuffer {
  const pages = Math.ceil(bytes / 65536) - w.memory.buffer.byteLength / 65536;
  if (pages > 0) w.memory.grow(pages);
  return w.memory.buffer;
}

/**
 * Indexes into the concatenated codes of `blocks` (ascending) of the `keep` codes nearest to
 * `code` by Hamming distance (ties at the edge: the first ones).
 */
export function hammingNearest(
  blocks: { rowids: ArrayLike<number>; codes: Uint32Array }[],
  code: Uint32Array,
  keep: number,
): number[] {
  const w = hammingWasm();
  const total = blocks.reduce((n, b) => n + b.rowids.length, 0);
  if (!total) return [];
  // Memory: one block's codes at a time (its pages reused: copying 100,000 codes into fresh pages
  // cost 2.5-4 ms of page faults), the query, every distance (u16, padded to 4 bytes), the
  // histogram (257 u32), picked (u32).
  const query = 32 * blocks.reduce((n, b) => Math.max(n, b.rowids.length), 0);
  const dist = query + 32;
  const hist = dist + 4 * Math.ceil(total / 2);
  const out = hist + 4 * (CODE_WORDS * 32 + 1);
  const end = out + 4 * Math.min(keep, total);
  const mem = wasmMemory(w, end);
  new Uint32Array(mem, query, CODE_WORDS).set(code);
  const counts = new Uint32Array(mem, hist, CODE_WORDS * 32 + 1);
  counts.fill(0);
  let done = 0;
  for (const b of blocks) {
    const n = b.rowids.length;
    new Uint32Array(mem, 0, n * CODE_WORDS).set(b.codes.subarray(0, n * CODE_WORDS));
    w.hamming(0, n, query, dist + 2 * done, hist);
    done += n;
  }
  if (total <= keep) return Array.from({ length: total }, (_, i) => i);
  // The distance at which `keep` is reached, and how many codes at exactly that distance still fit.
  let cut = 0;
  let seen = 0;
  for (; cut < counts.length && seen + counts[cut]! <= keep; cut++) seen += counts[cut]!;
  const n = w.select(dist, total, cut, keep - seen, out);
  return Array.from(new Uint32Array(mem, out, n));
}

/**
 * The query's vector, or undefined when the model cannot read it (another script: the word match
 * decides alone), it holds no known token, or the index has no current vectors.
 */
export function queryVector(store: object, text: string): Float32Array | undefined {
  if (!readsText(text) || !vectorsCurrent(store)) return undefined;
  const v = embed(text);
  return v.some((x) => x !== 0) ? v : undefined;
}

/**
 * The `k` entries of `scopes` most similar to `query` (a unit vector), best first, each with its
 * cosine similarity.
 */
export function nearest(
  store: object,
  scopes: ScopeKey[],
  query: Float32Array,
  k: number,
  opts: { newest?: number } = {},
): Similar[] {
  const code = new Uint32Array(CODE_WORDS);
  signCode(query, code);
  const blocks = vectorBlocks(store, scopes, opts.newest);
  const rowids: number[] = [];
  const picked = hammingNearest(blocks, code, Math.min(SHORTLIST, Math.max(SHORTLIST_MIN, 8 * k)));
  // `picked` is in flat order: walk the blocks once to name each code's row.
  let block = 0;
  let base = 0;
  for (const i of picked) {
    while (i >= base + blocks[block]!.rowids.length) base += blocks[block++]!.rowids.length;
    rowids.push(blocks[block]!.rowids[i - base]!);
  }
  const scored = dotsStored(query, [...storedVectors(store, rowids, scopes), ...pendingStored(store, scopes)]);
  return [...scored]
    .map(([rowid, sim]) => ({ rowid, sim }))
    .sort((a, b) => b.sim - a.sim || a.rowid - b.rowid)
    .slice(0, k);
}

/** The similarity of `query` to each of `rowids` that has a current vector in `scopes`. */
export function similarities(
  store: object,
  rowids: number[],
  scopes: ScopeKey[],
  query: Float32Array,
): Map<number, number> {
  return dotsStored(query, storedVectors(store, rowids, scopes));
}

export type NearEntry = { id: string; scope: ScopeKey; kind: string; title: string; body: string; sim: number };

/** The `k` current entries of `scopes` nearest in meaning to `text` (none when vectors are not current). */
export function nearestEntries(
  store: object,
  text: string,
  scopes: ScopeKey[],
  k: number,
  vector?: Float32Array,
): NearEntry[] {
  const q = vector ?? queryVector(store, text);
  if (!q) return [];
  const near = nearest(store, scopes, q, k);
  if (!near.length) return [];
  const rows = nearRows(
    store,
    near.map((n) => n.rowid),
  );
  const byRow = new Map(rows.map((r) => [r.rowid, r]));
  return near.flatMap((n) => {
    const r = byRow.get(n.rowid);
    return r ? [{ id: r.id, scope: r.scope, kind: r.kind, title: r.title, body: r.body, sim: n.sim }] : [];
  });
}

/** An entry's neighbours in meaning: at most `k` others of its scope and `scopes`, each at least RELATED_MIN. */
export function relatedTo(
  store: object,
  e: { id: string; title: string; tags: string[]; keywords?: string[]; body: string },
  scopes: ScopeKey[],
  k = 5,
): NearEntry[] {
  // The vector the index holds for it (no embedding of a long body); a text of its own only if it has none yet.
  const query = storedVectorOf(store, e.id);
  return nearestEntries(store, vectorText(e), scopes, k + 1, query)
    .filter((n) => n.id !== e.id && n.sim >= RELATED_MIN)
    .slice(0, k);
}

/** Similarity at which another entry is listed as related (what a prompt that states an entry reaches). */
const RELATED_MIN = 0.5;
