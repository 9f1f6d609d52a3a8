/**
 * Entry vectors in the index: each current entry's sentence vector (src/embed/: title, tags,
 * keywords and body), computed on write and on reindex, stored with the model that made it. Like
 * the rest of index.db they are a cache of the files: a new model re-embeds (reindex, or
 * `refreshVectors` lazily), a lost one is computed again.
 *
 * Layout, for a scan that fits a hook at 100,000 entries: `entry_vectors` holds each vector
 * (f32 scale + int8 components, 260 bytes); `vector_blocks` holds, per scope, the sign bits of
 * up to BLOCK vectors packed in one row (rowids u32[n], codes u32[n x DIMS/32]). A query reads
 * its scopes' blocks (3.6 MB at 100,000), ranks every code by Hamming distance, and scores
 * exactly the best few (`nearest`). A write adds its vector as pending (the scan reads
 * pending vectors directly); PACK_AT pending vectors of a scope are packed into its blocks at
 * once. A deleted entry's code stays in its block until the scope is repacked (the exact scores
 * read only live vectors), which happens when dead codes outnumber live ones.
 */
import type { Database } from "bun:sqlite";
import { DIMS, embed, MODEL_ID, readsText } from "../embed/embed";
import { dbOf } from "./db";
import type { ScopeKey } from "./scope";

/** Codes per block row, and pending vectors of a scope that trigger packing. */
const BLOCK = 4096;
const PACK_AT = 256;
/** Tokens of an entry embedded, at most: its title, tags, keywords and the start of its body say what it is about. */
const ENTRY_TOKENS = 256;
export const CODE_WORDS = DIMS / 32;
if (CODE_WORDS !== 8) throw new Error(`the scan is written for 256-bit codes, not ${DIMS}`);

/** What an entry is embedded from: its title first (a long body is cut at the model's limit). */
export function vectorText(e: { title: string; tags: string[]; keywords?: string[]; body: string }): string {
  const tags = e.tags.length ? `\n${e.tags.join(", ")}` : "";
  const kw = e.keywords?.length ? `\n${e.keywords.join(", ")}` : "";
  return `${e.title}.${tags}${kw}\n${e.body}`;
}

/** A unit vector as stored: f32 scale, then int8 components (value = int8 x scale). */
export function packVector(v: Float32Array): Uint8Array {
  let peak = 0;
  for (const x of v) peak = Math.max(peak, Math.abs(x));
  const out = new Uint8Array(4 + v.length);
  const scale = peak > 0 ? peak / 127 : 1;
  new DataView(out.buffer).setFloat32(0, scale, true);
  const q = new Int8Array(out.buffer, 4);
  for (let i = 0; i < v.length; i++) q[i] = Math.round(v[i]! / scale);
  return out;
}

/** A stored vector back as floats (not renormalised: quantisation keeps it within 1e-3 of unit length). */
export function unpackVector(blob: Uint8Array): Float32Array {
  const scale = new DataView(blob.buffer, blob.byteOffset, 4).getFloat32(0, true);
  const q = new Int8Array(blob.buffer, blob.byteOffset + 4, blob.byteLength - 4);
  const out = new Float32Array(q.length);
  for (let i = 0; i < q.length; i++) out[i] = q[i]! * scale;
  return out;
}

/** The sign bits of a vector (one bit per component, set when positive) into `out` at word `at`. */
export function signCode(v: ArrayLike<number>, out: Uint32Array, at = 0): void {
  for (let w = 0; w < CODE_WORDS; w++) {
    let bits = 0;
    for (let b = 0; b < 32; b++) if (v[w * 32 + b]! > 0) bits |= 1 << b;
    out[at + w] = bits >>> 0;
  }
}

/** Whether a vector is all zeros (a text of no known token: nothing to compare). */
const isZero = (v: Float32Array) => v.every((x) => x === 0);

/**
 * Store the vector of an entry row (inside the caller's transaction); a text with no known token
 * (or a model that cannot be read) stores none and marks the store's vectors incomplete.
 */
export function putVector(
  db: Database,
  rowid: number,
  scope: ScopeKey,
  e: { title: string; tags: string[]; keywords?: string[]; body: string },
): void {
  const v = embed(vectorText(e), ENTRY_TOKENS);
  if (isZero(v)) {
    db.query("DELETE FROM entry_vectors WHERE rowid = ?").run(rowid);
    return;
  }
  db.query("INSERT OR REPLACE INTO entry_vectors(rowid, scope, model, vec, packed) VALUES(?, ?, ?, ?, 0)").run(
    rowid,
    scope,
    MODEL_ID,
    packVector(v),
  );
  // Counted at every 16th row (a reindex writes thousands): a scope holds at most PACK_AT + 15 pending.
  if (rowid % 16 !== 0) return;
  const pending = db
    .query("SELECT count(*) AS n FROM entry_vectors INDEXED BY entry_vectors_pending WHERE scope = ? AND packed = 0")
    .get(scope) as { n: number };
  if (pending.n >= PACK_AT) packScope(db, scope);
}

/**
 * Move a scope's pending vectors into its blocks (filling the last one first); when the blocks
 * hold more dead codes than live ones, or `all`, every code of the scope is packed again.
 */
export function packScope(db: Database, scope: ScopeKey, all = false): void {
  const blocks = db.query("SELECT block, n FROM vector_blocks WHERE scope = ? ORDER BY block").all(scope) as {
    block: number;
    n: number;
  }[];
  const coded = blocks.reduce((s, b) => s + b.n, 0);
  const live = (db.query("SELECT count(*) AS n FROM entry_vectors WHERE scope = ?").get(scope) as { n: number }).n;
  if (all || coded > 2 * live + BLOCK) {
    db.query("DELETE FROM vector_blocks WHERE scope = ?").run(scope);
    db.query("UPDATE entry_vectors SET packed = 0 WHERE scope = ? AND packed = 1").run(scope);
    blocks.length = 0;
  }
  const pending = db
    .query("SELECT rowid, vec FROM entry_vectors INDEXED BY entry_vectors_pending WHERE scope = ? AND packed = 0")
    .all(scope) as { rowid: number; vec: Uint8Array }[];
  if (!pending.length) return;
  let last = blocks.at(-1);
  let rowids: number[] = [];
  let codes: Uint32Array = new Uint32Array(0);
  let block = last ? last.block : -1;
  if (last && last.n < BLOCK) {
    const row = db.query("SELECT rowids, codes FROM vector_blocks WHERE scope = ? AND block = ?").get(scope, block) as {
      rowids: Uint8Array;
      codes: Uint8Array;
    };
    rowids = [...u32(row.rowids)];
    codes = new Uint32Array(u32(row.codes));
  } else {
    block++;
    last = undefined;
  }
  const write = db.query("INSERT OR REPLACE INTO vector_blocks(scope, block, n, rowids, codes) VALUES(?, ?, ?, ?, ?)");
  const flush = () => {
    if (rowids.length)
      write.run(scope, block, rowids.length, new Uint8Array(new Uint32Array(rowids).buffer), bytes(codes));
  };
  let i = 0;
  while (i < pending.length) {
    const room = BLOCK - rowids.length;
    const take = pending.slice(i, i + room);
    const grown = new Uint32Array((rowids.length + take.length) * CODE_WORDS);
    grown.set(codes);
    for (const [k, p] of take.entries()) {
      signCode(unpackVector(p.vec), grown, (rowids.length + k) * CODE_WORDS);
    }
    rowids.push(...take.map((p) => p.rowid));
    codes = grown;
    i += take.length;
    flush();
    if (i < pending.length) {
      block++;
      rowids = [];
      codes = new Uint32Array(0);
    }
  }
  db.query("UPDATE entry_vectors SET packed = 1 WHERE rowid IN (SELECT value FROM json_each(?))").run(
    JSON.stringify(pending.map((p) => p.rowid)),
  );
}

/** A blob's words: a view when it is aligned (bun:sqlite's are), else a copy. */
const u32 = (b: Uint8Array) =>
  b.byteOffset % 4 === 0
    ? new Uint32Array(b.buffer, b.byteOffset, b.byteLength >> 2)
    : new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const bytes = (w: Uint32Array) => new Uint8Array(w.buffer, w.byteOffset, w.byteLength);

/** Whether the index's vectors were all made by this binary's model (else similarity waits for `refreshVectors`). */
export function vectorsCurrent(store: object): boolean {
  const row = dbOf(store).query("SELECT value FROM meta WHERE key = 'vector_model'").get() as { value: string } | null;
  return row?.value === MODEL_ID;
}

/**
 * Embed the current entries whose vector is missing or from another model, for at most
 * `budgetMs` (0: all of them); returns how many were embedded. Once none is left the index is
 * marked as holding this model's vectors.
 */
export function refreshVectors(store: object, budgetMs = 0): number {
  const db = dbOf(store);
  if (vectorsCurrent(store)) return 0;
  const started = performance.now();
  let done = 0;
  const stale = db.query(
    `SELECT e.rowid AS rowid, e.scope AS scope, e.title AS title, e.tags AS tags, e.keywords AS keywords, e.body AS body
     FROM entries e LEFT JOIN entry_vectors v ON v.rowid = e.rowid
     WHERE e.status = '' AND (v.model IS NULL OR v.model != ?) AND e.rowid > ? ORDER BY e.rowid LIMIT 500`,
  );
  let after = 0;
  for (;;) {
    const rows = stale.all(MODEL_ID, after) as {
      rowid: number;
      scope: ScopeKey;
      title: string;
      tags: string;
      keywords: string;
      body: string;
    }[];
    if (!rows.length) break;
    db.transaction(() => {
      for (const r of rows)
        putVector(db, r.rowid, r.scope, {
          title: r.title,
          tags: parseList(r.tags),
          keywords: parseList(r.keywords),
          body: r.body,
        });
    }).immediate();
    done += rows.length;
    after = rows.at(-1)!.rowid;
    if (budgetMs && performance.now() - started > budgetMs) return done;
  }
  db.transaction(() => {
    // Codes of another model's vectors are meaningless: every scope is packed again.
    const scopes = db.query("SELECT DISTINCT scope FROM entry_vectors").all() as { scope: ScopeKey }[];
    db.run("DELETE FROM vector_blocks");
    for (const { scope } of scopes) packScope(db, scope, true);
    db.query("INSERT OR REPLACE INTO meta(key, value) VALUES('vector_model', ?)").run(MODEL_ID);
  }).immediate();
  return done;
}

function parseList(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

/**
 * The packed codes of `scopes` (one entry per block row); with `newest`, only each scope's last
 * blocks holding at least that many codes (blocks fill in the order entries were indexed).
 */
function vectorBlocks(
  store: object,
  scopes: ScopeKey[],
  newest?: number,
): { rowids: Uint32Array; codes: Uint32Array }[] {
  const query = newest
    ? dbOf(store).query("SELECT rowids, codes FROM vector_blocks WHERE scope = ? ORDER BY block DESC LIMIT ?")
    : undefined;
  const rows = query
    ? scopes.flatMap(
        (scope) => query.all(scope, Math.ceil(newest! / BLOCK)) as { rowids: Uint8Array; codes: Uint8Array }[],
      )
    : (dbOf(store)
        .query("SELECT rowids, codes FROM vector_blocks WHERE scope IN (SELECT value FROM json_each(?))")
        .all(JSON.stringify(scopes)) as { rowids: Uint8Array; codes: Uint8Array }[]);
  return rows.map((r) => ({ rowids: u32(r.rowids), codes: u32(r.codes) }));
}

/** Pending (not yet packed) vectors of `scopes`, as stored. */
function pendingStored(store: object, scopes: ScopeKey[]): { rowid: number; vec: Uint8Array }[] {
  return dbOf(store)
    .query(
      "SELECT rowid, vec FROM entry_vectors INDEXED BY entry_vectors_pending WHERE scope IN (SELECT value FROM json_each(?)) AND packed = 0",
    )
    .all(JSON.stringify(scopes)) as { rowid: number; vec: Uint8Array }[];
}

/** The stored vectors of `rowids` that are live in `scopes` and of this model. */
function storedVectors(store: object, rowids: number[], scopes: ScopeKey[]): { rowid: number; vec: Uint8Array }[] {
  if (!rowids.length) return [];
  return dbOf(store)
    .query(
      `SELECT v.rowid AS rowid, v.vec AS vec FROM json_each(?1) AS j CROSS JOIN entry_vectors AS v ON v.rowid = j.value
       WHERE v.scope IN (SELECT value FROM json_each(?2)) AND v.model = ?3`,
    )
    .all(JSON.stringify(rowids), JSON.stringify(scopes), MODEL_ID) as { rowid: number; vec: Uint8Array }[];
}

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
const hammingWasm = (): Hamming =>
  (hammingModule ??= new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(HAMMING_WASM, "base64")))
    .exports as unknown as Hamming);

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
  // Memory: codes, query, distances (u16, padded to 4 bytes), histogram (257 u32), picked (u32).
  const query = total * 32;
  const dist = query + 32;
  const hist = dist + 4 * Math.ceil(total / 2);
  const out = hist + 4 * (CODE_WORDS * 32 + 1);
  const end = out + 4 * Math.min(keep, total);
  const mem = wasmMemory(w, end);
  let at = 0;
  for (const b of blocks) {
    const words = b.rowids.length * CODE_WORDS;
    new Uint32Array(mem, at, words).set(b.codes.subarray(0, words));
    at += words * 4;
  }
  new Uint32Array(mem, query, CODE_WORDS).set(code);
  const counts = new Uint32Array(mem, hist, CODE_WORDS * 32 + 1);
  counts.fill(0);
  w.hamming(0, total, query, dist, hist);
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
  const rows = dbOf(store)
    .query(
      `SELECT e.rowid AS rowid, e.id AS id, e.scope AS scope, e.kind AS kind, e.title AS title, e.body AS body
       FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value WHERE e.status = ''`,
    )
    .all(JSON.stringify(near.map((n) => n.rowid))) as (Omit<NearEntry, "sim"> & { rowid: number })[];
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
  const row = dbOf(store)
    .query(
      "SELECT v.vec AS vec FROM entries e JOIN entry_vectors v ON v.rowid = e.rowid WHERE e.id = ? AND v.model = ? LIMIT 1",
    )
    .get(e.id, MODEL_ID) as { vec: Uint8Array } | null;
  const query = row ? unpackVector(row.vec) : undefined;
  return nearestEntries(store, vectorText(e), scopes, k + 1, query)
    .filter((n) => n.id !== e.id && n.sim >= RELATED_MIN)
    .slice(0, k);
}

/** Similarity at which another entry is listed as related (what a prompt that states an entry reaches). */
const RELATED_MIN = 0.5;
