import { CofferError } from "../lib/errors";
import { lineMatcher } from "../lib/grep";
import { dbOf } from "./db";
import type { rowToEntry } from "./entries";
import type { ScopeKey } from "./scope";
import { checkedAgainstFiles, type Store, withHealing } from "./store";

type Row = Parameters<typeof rowToEntry>[0];

export type BrowseFilter = {
  scopes: ScopeKey[];
  q?: string;
  mode?: "keyword" | "grep";
  kind?: string;
  tag?: string;
  source?: string;
  /** `user`, `agent` (any agent) or an exact actor such as `agent:claude`. */
  actor?: string;
  /** Inclusive dates (YYYY-MM-DD) on `updated`. */
  since?: string;
  until?: string;
  /** Include superseded entries (left out by default, like `coffer list` without --all). */
  superseded?: boolean;
  limit: number;
  offset: number;
};

export type BrowseRow = {
  id: string;
  scope: ScopeKey;
  kind: string;
  title: string;
  tags: string[];
  actor: string;
  source: string;
  created: string;
  updated: string;
  chars: number;
  snippet: string;
  /** grep mode: the matching lines (at most 3), numbered from 1. */
  lines?: { line: number; text: string }[];
  /** Set for an entry a newer one replaced (never routed or injected). */
  status?: "superseded";
  superseded_by?: string | null;
};

/** A row of the index as the web UI lists it. */
export function toBrowseRow(r: Row): BrowseRow {
  const body = r.body;
  return {
    id: r.id,
    scope: r.scope,
    kind: r.kind,
    title: r.title,
    tags: JSON.parse(r.tags),
    actor: r.actor,
    source: r.source,
    created: r.created,
    updated: r.updated,
    chars: body.length,
    snippet: body.length > 240 ? `${body.slice(0, 240)}…` : body,
    ...(r.status === "superseded" ? { status: "superseded" as const, superseded_by: r.superseded_by ?? null } : {}),
  };
}

/** The filters as a condition on `entries e` (recall's ranking reads it through the store's `rowidsWhere`). */
export function browseWhere(f: BrowseFilter): { sql: string; params: (string | number)[] } {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  if (!f.superseded) parts.push("e.status = ''");
  if (f.kind) {
    parts.push("e.kind = ?");
    params.push(f.kind);
  }
  if (f.tag) {
    parts.push("EXISTS (SELECT 1 FROM json_each(e.tags) WHERE value = ?)");
    params.push(f.tag);
  }
  if (f.source) {
    parts.push("e.source = ?");
    params.push(f.source);
  }
  if (f.actor) {
    if (f.actor === "agent") parts.push("e.actor LIKE 'agent:%'");
    else {
      parts.push("e.actor = ?");
      params.push(f.actor);
    }
  }
  if (f.since) {
    parts.push("substr(e.updated, 1, 10) >= ?");
    params.push(f.since);
  }
  if (f.until) {
    parts.push("substr(e.updated, 1, 10) <= ?");
    params.push(f.until);
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(""), params };
}

type PageRow = Row & { rowid: number; lines?: { line: number; text: string }[] };

/** One page of the newest entries of the given scopes: one indexed (scope, updated) walk per scope, merged here. */
function newestPage(store: Store, f: BrowseFilter, filters: ReturnType<typeof browseWhere>) {
  let total = 0;
  const merged: PageRow[] = [];
  const count = dbOf(store).query(`SELECT count(*) AS n FROM entries e WHERE e.scope = ?${filters.sql}`);
  const page = dbOf(store).query(
    `SELECT e.* FROM entries e WHERE e.scope = ?${filters.sql} ORDER BY e.updated DESC, e.id DESC LIMIT ?`,
  );
  for (const scope of f.scopes) {
    total += (count.get(scope, ...filters.params) as { n: number }).n;
    merged.push(...(page.all(scope, ...filters.params, f.offset + f.limit) as PageRow[]));
  }
  merged.sort((a, b) => (a.updated === b.updated ? (a.id < b.id ? 1 : -1) : a.updated < b.updated ? 1 : -1));
  return { total, rows: merged.slice(f.offset, f.offset + f.limit) };
}

/** One page of entries with a line matching `q` (grep mode), newest first, with up to 3 lines each. */
function grepPage(store: Store, f: BrowseFilter, q: string, inScopes: string, filters: ReturnType<typeof browseWhere>) {
  const test = lineMatcher(q);
  const matched: PageRow[] = [];
  // A plain ASCII needle lets SQLite skip bodies without it (LIKE folds ASCII case, like the line test).
  const literal = !/^\/.+\/[a-z]*$/s.test(q) && /^[\x20-\x7e]+$/.test(q);
  const pre = literal ? " AND e.body LIKE ? ESCAPE '\\'" : "";
  const like = literal ? [`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`] : [];
  const it = dbOf(store)
    .query(`SELECT e.* FROM entries e WHERE ${inScopes}${filters.sql}${pre} ORDER BY e.updated DESC, e.id DESC`)
    .iterate(...f.scopes, ...filters.params, ...like) as Iterable<PageRow>;
  for (const r of it) {
    const lines: { line: number; text: string }[] = [];
    let n = 0;
    for (const [i, line] of r.body.split("\n").entries()) {
      if (!test(line)) continue;
      n++;
      if (lines.length < 3) lines.push({ line: i + 1, text: line.length > 300 ? `${line.slice(0, 300)}…` : line });
    }
    if (n) matched.push({ ...r, lines });
  }
  return { total: matched.length, rows: matched.slice(f.offset, f.offset + f.limit) };
}

/**
 * Entries of the given scopes, filtered, newest first (or those holding a line, in grep mode, or an
 * id typed whole or in part), one page; undefined for a keyword query, which recall's ranking
 * answers (src/retrieval/search.ts `browseEntries`).
 */
export function browsePage(store: Store, f: BrowseFilter): { total: number; entries: BrowseRow[] } | undefined {
  if (!f.scopes.length) return { total: 0, entries: [] };
  const filters = browseWhere(f);
  const inScopes = `e.scope IN (${f.scopes.map(() => "?").join(",")})`;
  const q = f.q?.trim();
  if (q && q.length > 2000) throw new CofferError(`query is ${q.length} characters; the limit is 2000`);
  return withHealing(store, () => {
    if (!q || f.mode === "grep") {
      // Each row shown is checked against its file first (never older than its file).
      const { value, stale } = checkedAgainstFiles(
        store,
        () => (q ? grepPage(store, f, q, inScopes, filters) : newestPage(store, f, filters)),
        (v) => v.rows.map((r) => r.rowid),
      );
      return {
        total: value.total,
        entries: value.rows
          .filter((r) => !stale.has(r.rowid))
          .map((r) => ({ ...toBrowseRow(r), ...(r.lines ? { lines: r.lines } : {}) })),
      };
    }
    // A handle or id typed into the search box (`4G3VPN2X`, as lists show it) finds that entry.
    if (/^[0-9A-HJKMNP-TV-Z]{6,26}$/i.test(q)) {
      const part = q.toUpperCase();
      const { value, stale } = checkedAgainstFiles(
        store,
        () =>
          dbOf(store)
            .query(
              `SELECT e.* FROM entries e WHERE ${inScopes}${filters.sql} AND (e.id = ? OR e.id LIKE ? OR e.id LIKE ?) ORDER BY e.updated DESC LIMIT ?`,
            )
            .all(...f.scopes, ...filters.params, part, `${part}%`, `%${part}`, f.limit) as PageRow[],
        (rows) => rows.map((r) => r.rowid),
      );
      const rows = value.filter((r) => !stale.has(r.rowid));
      if (rows.length) return { total: rows.length, entries: rows.map(toBrowseRow) };
    }
    return undefined;
  });
}

/** Distinct tags, actors and sources in use in the given scopes (for the filter pickers). */
export function facets(store: Store, scopes: ScopeKey[]): { tags: string[]; actors: string[]; sources: string[] } {
  if (!scopes.length) return { tags: [], actors: [], sources: [] };
  const inScopes = `scope IN (${scopes.map(() => "?").join(",")})`;
  return withHealing(store, () => {
    const col = (sql: string) =>
      (
        dbOf(store)
          .query(sql)
          .all(...scopes) as { v: string }[]
      ).map((r) => r.v);
    return {
      tags: col(
        `SELECT DISTINCT j.value AS v FROM entries, json_each(entries.tags) j WHERE ${inScopes} ORDER BY v LIMIT 500`,
      ),
      actors: col(`SELECT DISTINCT actor AS v FROM entries WHERE ${inScopes} ORDER BY v LIMIT 100`),
      sources: col(`SELECT DISTINCT source AS v FROM entries WHERE ${inScopes} ORDER BY v`),
    };
  });
}
