/**
 * The index queries hook routing makes (the routing policy itself lives in hooks/route.ts):
 * term frequencies and hits through FTS column filters, applies_to rows, rows and bodies by
 * rowid. Rows come back as RouteRow; rowids stay valid for the life of one open store.
 */
import { dbOf } from "./db";
import type { ScopeKey } from "./scope";
import type { Store } from "./store";

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
};

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(",");

/** An FTS5 phrase for one term, limited to title and tags, or to title, tags and body (never scope). */
function columnMatch(term: string, titleOnly: boolean): string {
  return `{title tags${titleOnly ? "" : " body"}} : "${term.replace(/"/g, '""')}"`;
}

/** Entries (any scope) containing `term` in title, tags or body, counted up to `cap`. */
export function termFrequency(store: Store, term: string, cap: number): number {
  return (
    dbOf(store)
      .query("SELECT count(*) AS n FROM (SELECT 1 FROM entries_fts WHERE entries_fts MATCH ? LIMIT ?)")
      .get(columnMatch(term, false), cap) as { n: number }
  ).n;
}

/** Rowids of entries (any scope) containing `term` in title or tags (`titleOnly`), or anywhere. */
export function termHits(store: Store, term: string, titleOnly: boolean): number[] {
  return (
    dbOf(store).query("SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?").all(columnMatch(term, titleOnly)) as {
      rowid: number;
    }[]
  ).map((r) => r.rowid);
}

/** Entries of `scopes` that carry applies_to globs. */
export function appliesToRows(store: Store, scopes: ScopeKey[]): RouteRow[] {
  return dbOf(store)
    .query(
      `SELECT rowid, id, scope, title, tags, updated, norm_hash, applies_to FROM entries
       WHERE applies_to != '[]' AND scope IN (${placeholders(scopes.length)})`,
    )
    .all(...scopes) as RouteRow[];
}

/** The subset of `rowids` whose entries are in `scopes` (json_each drives the join: no scan). */
export function rowidsInScopes(store: Store, rowids: number[], scopes: ScopeKey[]): number[] {
  return (
    dbOf(store)
      .query(
        `SELECT e.rowid AS rowid FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value WHERE e.scope IN (${placeholders(scopes.length)})`,
      )
      .all(JSON.stringify(rowids), ...scopes) as { rowid: number }[]
  ).map((r) => r.rowid);
}

/** Routing rows by rowid. */
export function rowsByRowid(store: Store, rowids: number[]): RouteRow[] {
  return dbOf(store)
    .query(
      "SELECT e.rowid AS rowid, e.id AS id, e.scope AS scope, e.title AS title, e.tags AS tags, e.updated AS updated, e.norm_hash AS norm_hash FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value",
    )
    .all(JSON.stringify(rowids)) as RouteRow[];
}

/** Routing rows by entry id within `scopes` (one per scope that has the id). */
export function rowsByIds(store: Store, ids: string[], scopes: ScopeKey[]): RouteRow[] {
  return dbOf(store)
    .query(
      `SELECT rowid, id, scope, title, tags, updated, norm_hash FROM entries
       WHERE id IN (SELECT value FROM json_each(?)) AND scope IN (${placeholders(scopes.length)})`,
    )
    .all(JSON.stringify(ids), ...scopes) as RouteRow[];
}

/** Bodies by rowid. */
export function bodiesByRowid(store: Store, rowids: number[]): Map<number, string> {
  const out = new Map<number, string>();
  if (!rowids.length) return out;
  const rows = dbOf(store)
    .query(
      "SELECT e.rowid AS rowid, e.body AS body FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value",
    )
    .all(JSON.stringify(rowids)) as { rowid: number; body: string }[];
  for (const r of rows) out.set(r.rowid, r.body);
  return out;
}

/** A scope's newest entries as cards (the (scope, updated) index order, rowid as tie-break: no sort). */
export function newestCards(store: Store, scope: ScopeKey, limit: number): { id: string; title: string }[] {
  return dbOf(store)
    .query("SELECT id, title FROM entries WHERE scope = ? ORDER BY updated DESC, rowid DESC LIMIT ?")
    .all(scope, limit) as { id: string; title: string }[];
}
