/**
 * What retrieval (src/retrieval/) asks of the index, the ranking itself being retrieval's: which
 * entries hold a form in which field, with FTS5's BM25, and the rows recall reads back; for the
 * prompt hook, applies_to rows, rows and bodies by rowid, and session-start cards. Rowids stay
 * valid for the life of one open store (until a changed file is read again).
 */
import type { Database } from "bun:sqlite";
import { scopeToken } from "../retrieval/analysis/text";
import { dbOf } from "./db";
import type { rowToEntry } from "./entries";
import type { ScopeKey } from "./scope";
import { staleMark } from "./stale/anchors";
import type { Store } from "./store";

/** The searchable fields of an entry, best first. */
export type Field = "title" | "tags" | "keywords" | "body";

/** The same order as BM25 column weights (scope, title, tags, keywords, body): recall's BM25. */
const BM25_COLUMNS = "0.0, 4.0, 2.0, 1.5, 1.0";

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(",");

/** Whether `scopes` hold every entry of the index (scope_counts: one row per scope). */
function coversAll(db: Database, scopes: ScopeKey[]): boolean {
  const r = db
    .query(
      `SELECT (SELECT coalesce(sum(n), 0) FROM scope_counts) AS total,
              (SELECT coalesce(sum(n), 0) FROM scope_counts WHERE scope IN (${placeholders(scopes.length)})) AS mine`,
    )
    .get(...scopes) as { total: number; mine: number };
  return r.total === r.mine;
}

/** Entries in `scopes` (scope_counts, kept by triggers in db.ts: one row per scope at any size). */
export function scopesCount(store: Store, scopes: ScopeKey[]): number {
  return (
    dbOf(store)
      .query(`SELECT coalesce(sum(n), 0) AS n FROM scope_counts WHERE scope IN (${placeholders(scopes.length)})`)
      .get(...scopes) as { n: number }
  ).n;
}

/** An FTS5 query for one form in some columns (a single CJK character matches as a bigram's start). */
function phrase(text: string, columns: string, prefix: boolean): string {
  return `{${columns}} : "${text.replace(/"/g, '""')}"${prefix ? "*" : ""}`;
}

/**
 * A matcher for `scopes`: rowids holding a form in any field (up to a limit), and the best field
 * of each. When the scopes hold every entry (one project plus global, the usual case) the scope
 * filter is left out of MATCH: inside MATCH it costs more than the term itself on a large store.
 */
export function ftsMatcher(store: Store, scopes: ScopeKey[]) {
  const db = dbOf(store);
  const filter =
    scopes.length && !coversAll(db, scopes) ? `(${scopes.map((s) => `scope:${scopeToken(s)}`).join(" OR ")}) AND ` : "";
  const any = db.query("SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? LIMIT ?");
  // BM25 and, from column-weighted BM25s (non-zero only where the form is), the fields.
  const scored = db.query(
    `SELECT rowid, bm25(entries_fts, ${BM25_COLUMNS}) AS s, bm25(entries_fts, 0, 1, 0, 0, 0) AS t,
       bm25(entries_fts, 0, 0, 1, 0, 0) AS g, bm25(entries_fts, 0, 0, 0, 1, 0) AS k,
       bm25(entries_fts, 0, 0, 0, 0, 1) AS b
     FROM entries_fts WHERE entries_fts MATCH ? LIMIT ?`,
  );
  // Title, tags and keywords in one statement; a hit in none of them is a body hit.
  const headingSql = (range: string) =>
    [1, 2, 3]
      .map((f) => `SELECT rowid, ${f} AS f FROM entries_fts WHERE entries_fts MATCH ?${f}${range}`)
      .join(" UNION ALL ");
  const heading = db.query(headingSql(""));
  const HEADING: Field[] = ["body", "title", "tags", "keywords"];
  const ownText = db.query("SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1");
  // `from`: the fields of a form's newest hits only (rowids from there on; `newest`), in statements
  // of their own: a range on every look-up costs a prompt's a little (0.1-0.3 ms).
  const headingFrom = () => db.query(headingSql(" AND rowid >= ?4"));
  const ownTextFrom = () => db.query("SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 AND rowid >= ?2");
  // Only recall's fallback for words found everywhere asks for the newest hits: prepared on use.
  const last = () => db.query("SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rowid DESC LIMIT ?");
  return {
    hits(text: string, prefix: boolean, limit: number): number[] {
      return (any.all(filter + phrase(text, "title tags keywords body", prefix), limit) as { rowid: number }[]).map(
        (r) => r.rowid,
      );
    },
    /** The most recently indexed rowids holding a form (the highest rowids), up to a limit. */
    newest(text: string, prefix: boolean, limit: number): number[] {
      return (last().all(filter + phrase(text, "title tags keywords body", prefix), limit) as { rowid: number }[]).map(
        (r) => r.rowid,
      );
    },
    /**
     * The best field of each hit that holds the form in its title, tags or keywords (a hit it
     * leaves out is a body hit: for a common word, thousands), and the hits holding the form in
     * their keywords alone.
     */
    fields(text: string, prefix: boolean, from = 0): { field: Map<number, Field>; keywordsOnly: Set<number> } {
      const field = new Map<number, Field>();
      const q = (c: string) => filter + phrase(text, c, prefix);
      const best = new Map<number, number>();
      const at = from ? [from] : [];
      for (const r of (from ? headingFrom() : heading).all(q("title"), q("tags"), q("keywords"), ...at) as {
        rowid: number;
        f: number;
      }[])
        best.set(r.rowid, Math.min(best.get(r.rowid) ?? 9, r.f));
      for (const [rowid, f] of best) field.set(rowid, HEADING[f]!);
      const keywordsOnly = new Set<number>();
      // Only a form found in some keywords costs the look at the entries' own text.
      if ([...best.values()].includes(3)) {
        const own = new Set(
          ((from ? ownTextFrom() : ownText).all(q("title tags body"), ...at) as { rowid: number }[]).map(
            (r) => r.rowid,
          ),
        );
        for (const [rowid, f] of best) if (f === 3 && !own.has(rowid)) keywordsOnly.add(rowid);
      }
      return { field, keywordsOnly };
    },
    /** Rowids with their BM25 and best field, or undefined when more than `limit` hold the form. */
    scored(
      text: string,
      prefix: boolean,
      limit: number,
    ): { hits: number[]; bm25: Map<number, number>; field: Map<number, Field>; keywordsOnly: Set<number> } | undefined {
      const rows = scored.all(filter + phrase(text, "title tags keywords body", prefix), limit + 1) as {
        rowid: number;
        s: number;
        t: number;
        g: number;
        k: number;
        b: number;
      }[];
      if (rows.length > limit) return undefined;
      const bm25 = new Map<number, number>();
      const field = new Map<number, Field>();
      const keywordsOnly = new Set<number>();
      for (const r of rows) {
        bm25.set(r.rowid, -r.s);
        field.set(r.rowid, r.t < 0 ? "title" : r.g < 0 ? "tags" : r.k < 0 ? "keywords" : "body");
        if (r.k < 0 && !(r.t < 0 || r.g < 0 || r.b < 0)) keywordsOnly.add(r.rowid);
      }
      return { hits: rows.map((r) => r.rowid), bm25, field, keywordsOnly };
    },
  };
}

/** An entry row with its rowid, as recall reads it back. */
export type EntryRow = Parameters<typeof rowToEntry>[0] & { rowid: number };

/** The rows of these rowids (any order; missing ones left out). */
export function entryRowsByRowid(store: Store, rowids: number[]): EntryRow[] {
  return dbOf(store)
    .query("SELECT e.rowid AS rowid, e.* FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value")
    .all(JSON.stringify(rowids)) as EntryRow[];
}

/** Of these rowids, those whose row meets an SQL condition on `entries e` (the web UI's filters). */
export function rowidsWhere(
  store: Store,
  rowids: number[],
  where: { sql: string; params: (string | number)[] },
): Set<number> {
  return new Set(
    (
      dbOf(store)
        .query(
          `SELECT e.rowid AS rowid FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value WHERE 1${where.sql}`,
        )
        .all(JSON.stringify(rowids), ...where.params) as { rowid: number }[]
    ).map((x) => x.rowid),
  );
}

/** The current entry written next in `row`'s scope after it, up to `until` (ISO time): the answer to a question. */
export function writtenNext(store: Store): (row: EntryRow, until: string) => EntryRow | null {
  const next = dbOf(store).query(
    `SELECT rowid, * FROM entries INDEXED BY entries_created
     WHERE scope = ?1 AND status = '' AND (created > ?2 OR (created = ?2 AND id > ?3)) AND created <= ?4
     ORDER BY created, id LIMIT 1`,
  );
  return (row, until) => next.get(row.scope, row.created, row.id, until) as EntryRow | null;
}

/** Current entries of a scope, newest first: id, title and body (grep reads them line by line). */
export function currentBodies(store: Store, scope: ScopeKey): Iterable<{ id: string; title: string; body: string }> {
  // Superseded entries are kept for `list --all`, never searched.
  return dbOf(store)
    .query("SELECT id, title, body FROM entries WHERE scope = ? AND status = '' ORDER BY updated DESC, id DESC")
    .iterate(scope) as Iterable<{ id: string; title: string; body: string }>;
}

// ---------------------------------------------------------------------------------------------
// Routing queries

export type RouteRow = {
  rowid: number;
  id: string;
  scope: ScopeKey;
  title: string;
  /** JSON array text. */
  tags: string;
  updated: string;
  /** Normalized-body hash: a changed body counts as undelivered again. */
  norm_hash: string;
  /** JSON array text; only from appliesToRows. */
  applies_to?: string;
  /** The last staleness check's reasons (JSON), '' when fresh or unchecked (store/stale/stale.ts). */
  stale: string;
};

/** Entries of `scopes` that carry applies_to globs. */
export function appliesToRows(store: Store, scopes: ScopeKey[]): RouteRow[] {
  return dbOf(store)
    .query(
      `SELECT rowid, id, scope, title, tags, updated, norm_hash, applies_to, stale FROM entries
       WHERE applies_to != '[]' AND status = '' AND scope IN (${placeholders(scopes.length)})`,
    )
    .all(...scopes) as RouteRow[];
}

/** The subset of `rowids` whose entries are in `scopes` (json_each drives the join: no scan). */
export function rowidsInScopes(store: Store, rowids: number[], scopes: ScopeKey[]): number[] {
  return (
    dbOf(store)
      .query(
        `SELECT e.rowid AS rowid FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value WHERE e.status = '' AND e.scope IN (${placeholders(scopes.length)})`,
      )
      .all(JSON.stringify(rowids), ...scopes) as { rowid: number }[]
  ).map((r) => r.rowid);
}

/** Routing rows by rowid. */
export function rowsByRowid(store: Store, rowids: number[]): RouteRow[] {
  return dbOf(store)
    .query(
      "SELECT e.rowid AS rowid, e.id AS id, e.scope AS scope, e.title AS title, e.tags AS tags, e.updated AS updated, e.norm_hash AS norm_hash, e.stale AS stale FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value",
    )
    .all(JSON.stringify(rowids)) as RouteRow[];
}

/** Routing rows by entry id within `scopes` (one per scope that has the id). */
export function rowsByIds(store: Store, ids: string[], scopes: ScopeKey[]): RouteRow[] {
  return dbOf(store)
    .query(
      `SELECT rowid, id, scope, title, tags, updated, norm_hash, stale FROM entries
       WHERE id IN (SELECT value FROM json_each(?)) AND status = '' AND scope IN (${placeholders(scopes.length)})`,
    )
    .all(JSON.stringify(ids), ...scopes) as RouteRow[];
}

/** Bodies by rowid, a stale one marked with its reasons (`(may be stale: src/x.ts is gone)`). */
export function bodiesByRowid(store: Store, rowids: number[]): Map<number, string> {
  const out = new Map<number, string>();
  if (!rowids.length) return out;
  const rows = dbOf(store)
    .query(
      "SELECT e.rowid AS rowid, e.body AS body, e.stale AS stale FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value",
    )
    .all(JSON.stringify(rowids)) as { rowid: number; body: string; stale: string }[];
  for (const r of rows) {
    const mark = r.stale ? staleMark(r.stale) : "";
    out.set(r.rowid, mark ? `${r.body.trimEnd()}\n${mark}` : r.body);
  }
  return out;
}

/**
 * A session-start card; `head` is the body's opening when the title was cut from it (ends with
 * "…"); `rowid` checks it against its file before it is shown.
 */
export type Card = {
  id: string;
  title: string;
  head?: string;
  rowid?: number;
  /** The entry's file as indexed (session start checks it without a second look-up). */
  scope?: ScopeKey;
  file?: string;
  size?: number;
  mtime_ms?: number;
  /** `(may be stale: …)` when the last staleness check found an anchor gone (store/stale/stale.ts). */
  stale?: string;
};

/**
 * Cards with their staleness: a stale card marked with its reasons (as the prompt hook marks a
 * body) and placed after every fresh one, the order otherwise kept. One look-up by rowid for the
 * few cards read; the card queries stay on their covering indexes.
 */
export function freshFirst(store: Store, cards: Card[]): Card[] {
  const rowids = cards.flatMap((c) => (c.rowid === undefined ? [] : [c.rowid]));
  if (!rowids.length) return cards;
  const marks = new Map<number, string>();
  for (const r of dbOf(store)
    .query(
      "SELECT e.rowid AS rowid, e.stale AS stale FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value WHERE e.stale != ''",
    )
    .all(JSON.stringify(rowids)) as { rowid: number; stale: string }[]) {
    const mark = staleMark(r.stale);
    if (mark) marks.set(r.rowid, mark);
  }
  if (!marks.size) return cards;
  const isStale = (c: Card) => c.rowid !== undefined && marks.has(c.rowid);
  return [
    ...cards.filter((c) => !isStale(c)),
    ...cards.filter(isStale).map((c) => ({ ...c, stale: marks.get(c.rowid as number) })),
  ];
}

/** Give cards whose title was cut ("…") the opening of their body, so the card can carry more of it. */
export function withHeads(store: Store, cards: Card[]): Card[] {
  const cut = cards.filter((c) => c.title.endsWith("…")).map((c) => c.id);
  if (!cut.length) return cards;
  const heads = new Map(
    (
      dbOf(store)
        .query("SELECT id, substr(body, 1, 600) AS head FROM entries WHERE id IN (SELECT value FROM json_each(?))")
        .all(JSON.stringify(cut)) as { id: string; head: string }[]
    ).map((r) => [r.id, r.head]),
  );
  return cards.map((c) => (heads.has(c.id) ? { ...c, head: heads.get(c.id) } : c));
}

/**
 * Of a scope's newest `recent` entries, the best `limit` by kind (`kinds` in order, other kinds
 * after), then newest. Read from the entries_cards index alone and ranked inside SQLite, so a
 * session start costs the same at 100,000 entries as at 100.
 */
export function rankedRecentCards(
  store: Store,
  scope: ScopeKey,
  opts: { recent: number; kinds: readonly string[]; limit: number },
): Card[] {
  return dbOf(store)
    .query(
      `SELECT rowid, id, title, scope, file, size, mtime_ms FROM (
         SELECT rowid, id, title, kind, updated, scope, file, size, mtime_ms FROM entries INDEXED BY entries_cards
         WHERE scope = ? AND status = '' ORDER BY updated DESC, id DESC LIMIT ?)
       ORDER BY coalesce(nullif(instr(?, ',' || kind || ','), 0), 1e9), updated DESC, id DESC LIMIT ?`,
    )
    .all(scope, opts.recent, `,${opts.kinds.join(",")},`, opts.limit) as Card[];
}

/**
 * A scope's newest conventions and preferences (the kinds that apply in every session), through
 * the partial covering index the cache schema declares: bounded at any store size, however old the entry.
 */
export function newestEverywhere(store: Store, scope: ScopeKey, limit: number): Card[] {
  return dbOf(store)
    .query(
      `SELECT rowid, id, title, scope, file, size, mtime_ms FROM entries INDEXED BY entries_everywhere
       WHERE scope = ? AND kind IN ('convention', 'preference') AND status = '' ORDER BY updated DESC LIMIT ?`,
    )
    .all(scope, limit) as Card[];
}
