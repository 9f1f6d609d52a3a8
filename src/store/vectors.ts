/**
 * Entry vectors in the index: each current entry's sentence vector (src/retrieval/embed/: title, tags,
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
 *
 * A scan of a whole scope (`recall`) reads its blocks from a copy beside the index,
 * `state/vectors/<scope>.codes`, mapped: SQLite reads a 128 KB block row through 32 overflow
 * pages, 3.7 ms for 100,000 codes, where the mapped copy costs 0.1 ms. Every change of a scope's
 * blocks gives it a new random token in `meta` (inside the writer's transaction); a copy holds the
 * token of the blocks it was made from, and their rows' rowids and counts (which an older binary's
 * pack changes too), and is used only while both are current, else made again by the next whole
 * scan. The prompt hook scans only the newest blocks, from SQLite.
 */
import type { Database } from "bun:sqlite";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { sha256 } from "../lib/hash";
import { paths } from "../lib/paths";
import { DIMS, embed, MODEL_ID } from "../retrieval/embed/embed";
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
    blocksChanged(db, scope);
    db.query("DELETE FROM vector_blocks WHERE scope = ?").run(scope);
    db.query("UPDATE entry_vectors SET packed = 0 WHERE scope = ? AND packed = 1").run(scope);
    blocks.length = 0;
  }
  const pending = db
    .query("SELECT rowid, vec FROM entry_vectors INDEXED BY entry_vectors_pending WHERE scope = ? AND packed = 0")
    .all(scope) as { rowid: number; vec: Uint8Array }[];
  if (!pending.length) return;
  blocksChanged(db, scope);
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

/** A new token for a scope's blocks (inside the writer's transaction): their copies are stale now. */
function blocksChanged(db: Database, scope: ScopeKey): void {
  db.query("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)").run(`${TOKEN}${scope}`, crypto.randomUUID());
}
const TOKEN = "vector_blocks:";

/**
 * Every scope's blocks gone (a rebuild, a new model): no copy is current any more, and they are
 * removed (so a scope that is gone leaves none behind; a copy in use elsewhere stays readable).
 */
export function dropBlocks(db: Database): void {
  try {
    rmSync(copiesDir(), { recursive: true, force: true });
  } catch {}
  db.run("DELETE FROM vector_blocks");
  // Every `vector_blocks:<scope>` key (";" sorts right after ":").
  db.query("DELETE FROM meta WHERE key >= ? AND key < ?").run(TOKEN, `${TOKEN.slice(0, -1)};`);
}

type Block = { rowids: Uint32Array; codes: Uint32Array };
/** A block row as SQLite has it: its rowid (a rewritten row gets a new one) and its count of codes. */
type BlockRow = { rowid: number; n: number };

/**
 * Copy layout, u32 little-endian: magic, token bytes, the token (padded to 4), block count, each
 * block row's rowid and n, then per block its rowids and codes.
 */
const MAGIC = 0x32425643; // "CVB2"
/** Where a copy's blocks start (in words) and its whole length, for this token and these rows. */
function copyLayout(token: Buffer, rows: BlockRow[]): { head: number; data: number; words: number } {
  const head = 2 + Math.ceil(token.length / 4);
  const data = head + 1 + 2 * rows.length;
  return { head, data, words: data + rows.reduce((s, r) => s + r.n * (1 + CODE_WORDS), 0) };
}
const copiesDir = () => join(paths.state(), "vectors");
const copyFile = (scope: ScopeKey) => join(copiesDir(), `${sha256(scope).slice(0, 24)}.codes`);

/**
 * A scope's blocks from its copy, when the copy holds the blocks of `token` and of these rows
 * whole; else undefined. (The rows catch a pack by a binary older than the tokens.)
 */
function readCopy(file: string, token: string, rows: BlockRow[]): Block[] | undefined {
  let buf: Uint8Array;
  try {
    // Mapped: a copy is replaced by rename, never truncated in place.
    buf = Bun.mmap(file);
  } catch {
    try {
      buf = new Uint8Array(readFileSync(file));
    } catch {
      return undefined;
    }
  }
  const tokenBytes = Buffer.from(token);
  const { head, data, words } = copyLayout(tokenBytes, rows);
  if (buf.byteLength !== 4 * words) return undefined;
  const w = new Uint32Array(buf.buffer, buf.byteOffset, words);
  if (w[0] !== MAGIC || w[1] !== tokenBytes.length || !tokenBytes.equals(buf.subarray(8, 8 + tokenBytes.length)))
    return undefined;
  if (w[head] !== rows.length) return undefined;
  for (const [i, r] of rows.entries())
    if (w[head + 1 + 2 * i] !== r.rowid || w[head + 2 + 2 * i] !== r.n) return undefined;
  let at = data;
  const out: Block[] = [];
  for (const { n } of rows) {
    out.push({ rowids: w.subarray(at, at + n), codes: w.subarray(at + n, at + n + n * CODE_WORDS) });
    at += n * (1 + CODE_WORDS);
  }
  return out;
}

/** Write a scope's copy (best effort: an unwritable state/ leaves the scan reading SQLite). */
function writeCopy(file: string, token: string, rows: BlockRow[], blocks: Block[]): void {
  const tokenBytes = Buffer.from(token);
  const { head, data, words } = copyLayout(tokenBytes, rows);
  const w = new Uint32Array(words);
  w[0] = MAGIC;
  w[1] = tokenBytes.length;
  new Uint8Array(w.buffer, 8, tokenBytes.length).set(tokenBytes);
  w[head] = rows.length;
  let at = data;
  for (const [i, b] of blocks.entries()) {
    const { rowid, n } = rows[i]!;
    w[head + 1 + 2 * i] = rowid;
    w[head + 2 + 2 * i] = n;
    w.set(b.rowids.subarray(0, n), at);
    w.set(b.codes.subarray(0, n * CODE_WORDS), at + n);
    at += n * (1 + CODE_WORDS);
  }
  try {
    writeFileAtomic(file, new Uint8Array(w.buffer), 0o600, false);
  } catch {}
}

/** Every block of a scope, in block order: from its copy when that is current, else from SQLite (and copied). */
function scopeBlocks(db: Database, scope: ScopeKey): Block[] {
  const file = copyFile(scope);
  const tokenNow = () =>
    (db.query("SELECT value FROM meta WHERE key = ?").get(`${TOKEN}${scope}`) as { value: string } | null)?.value;
  const rowsNow = () =>
    db.query("SELECT rowid, n FROM vector_blocks WHERE scope = ? ORDER BY block").all(scope) as BlockRow[];
  // Each time the token, the rows and what is read of them are of one moment (one read transaction).
  const seen = db.transaction(() => ({ token: tokenNow(), rows: rowsNow() }))();
  const copied = seen.token ? readCopy(file, seen.token, seen.rows) : undefined;
  if (copied) return copied;
  const { now, rows, blocks } = db.transaction(() => {
    const read = db
      .query("SELECT rowid, n, rowids, codes FROM vector_blocks WHERE scope = ? ORDER BY block")
      .all(scope) as (BlockRow & { rowids: Uint8Array; codes: Uint8Array })[];
    return {
      now: tokenNow(),
      rows: read.map((r) => ({ rowid: r.rowid, n: r.n })),
      blocks: read.map((r) => ({ rowids: u32(r.rowids), codes: u32(r.codes) })),
    };
  })();
  let token = now;
  if (!token && blocks.length) {
    // Blocks packed before tokens existed (an older binary's index) get one, unless a writer gave
    // them one since they were read (any change does): then they are not the blocks read here.
    try {
      token = db
        .transaction(() => {
          if (tokenNow()) return undefined;
          blocksChanged(db, scope);
          return tokenNow();
        })
        .immediate();
    } catch {} // a store that cannot be written: no copy
  }
  if (token && blocks.length) writeCopy(file, token, rows, blocks);
  return blocks;
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
    dropBlocks(db);
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
export function vectorBlocks(
  store: object,
  scopes: ScopeKey[],
  newest?: number,
): { rowids: Uint32Array; codes: Uint32Array }[] {
  if (!newest) return scopes.flatMap((scope) => scopeBlocks(dbOf(store), scope));
  const query = dbOf(store).query(
    "SELECT rowids, codes FROM vector_blocks WHERE scope = ? ORDER BY block DESC LIMIT ?",
  );
  const rows = scopes.flatMap(
    (scope) => query.all(scope, Math.ceil(newest / BLOCK)) as { rowids: Uint8Array; codes: Uint8Array }[],
  );
  return rows.map((r) => ({ rowids: u32(r.rowids), codes: u32(r.codes) }));
}

/** Pending (not yet packed) vectors of `scopes`, as stored. */
export function pendingStored(store: object, scopes: ScopeKey[]): { rowid: number; vec: Uint8Array }[] {
  return dbOf(store)
    .query(
      "SELECT rowid, vec FROM entry_vectors INDEXED BY entry_vectors_pending WHERE scope IN (SELECT value FROM json_each(?)) AND packed = 0",
    )
    .all(JSON.stringify(scopes)) as { rowid: number; vec: Uint8Array }[];
}

/** The stored vectors of `rowids` that are live in `scopes` and of this model. */
export function storedVectors(
  store: object,
  rowids: number[],
  scopes: ScopeKey[],
): { rowid: number; vec: Uint8Array }[] {
  if (!rowids.length) return [];
  return dbOf(store)
    .query(
      `SELECT v.rowid AS rowid, v.vec AS vec FROM json_each(?1) AS j CROSS JOIN entry_vectors AS v ON v.rowid = j.value
       WHERE v.scope IN (SELECT value FROM json_each(?2)) AND v.model = ?3`,
    )
    .all(JSON.stringify(rowids), JSON.stringify(scopes), MODEL_ID) as { rowid: number; vec: Uint8Array }[];
}

/** Current entries of these rowids, for a list of neighbours (superseded ones left out). */
export function nearRows(
  store: object,
  rowids: number[],
): { rowid: number; id: string; scope: ScopeKey; kind: string; title: string; body: string }[] {
  return dbOf(store)
    .query(
      `SELECT e.rowid AS rowid, e.id AS id, e.scope AS scope, e.kind AS kind, e.title AS title, e.body AS body
       FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value WHERE e.status = ''`,
    )
    .all(JSON.stringify(rowids)) as {
    rowid: number;
    id: string;
    scope: ScopeKey;
    kind: string;
    title: string;
    body: string;
  }[];
}

/** The vector the index holds for an entry (by id), made by the current model, if any. */
export function storedVectorOf(store: object, id: string): Float32Array | undefined {
  const row = dbOf(store)
    .query(
      "SELECT v.vec AS vec FROM entries e JOIN entry_vectors v ON v.rowid = e.rowid WHERE e.id = ? AND v.model = ? LIMIT 1",
    )
    .get(id, MODEL_ID) as { vec: Uint8Array } | null;
  return row ? unpackVector(row.vec) : undefined;
}
