/**
 * Where the query analysis (text.ts `analyzeQuery`) meets the index: for each term group, which
 * entries hold its own words or one of its alternatives, and in which field. The prompt hook's
 * routing (hooks/route.ts) and recall (search.ts) read the same postings with the same field
 * weights, so an improvement to one is an improvement to both; each applies its own policy.
 */
import type { Database } from "bun:sqlite";
import { matchesAny, relativeInside } from "../lib/named-paths";
import { dbOf } from "./db";
import { appliesToRows, type RouteRow } from "./hooks";
import type { ScopeKey } from "./scope";
import type { Store } from "./store";
import { scopeToken, type TermGroup } from "./text";

/** The searchable fields of an entry, best first. */
export type Field = "title" | "tags" | "keywords" | "body";

/**
 * How much a match weighs by where it is: title over tags over keywords over body (keywords are
 * other words for the topic, written by the agent, distillation or `coffer enrich`: evidence,
 * but weaker than the entry's own title and tags).
 */
export const FIELD_WEIGHT: Record<Field, number> = { title: 1, tags: 0.8, keywords: 0.65, body: 0.5 };

/** An everyday English word (vocabulary "common") weighs this share of its IDF, in the hook and in recall. */
export const COMMON_WEIGHT = 0.5;

/** The same order as BM25 column weights (scope, title, tags, keywords, body): recall's BM25. */
const BM25_COLUMNS = "0.0, 4.0, 2.0, 1.5, 1.0";
const BM25_WEIGHT: Record<Field, number> = { title: 4, tags: 2, keywords: 1.5, body: 1 };
const K1 = 1.2;

/** One way a group is written: its own words, or an alternative. */
export type Form = {
  text: string;
  /** "query" for the group's own words, else the alternative's source ("vocabulary", ...). */
  source: string;
  /** How much a match through this form counts against the group's own words (own: 1). */
  weight: number;
  /** Entries (in the scopes asked) holding it, counted up to the cap; `df > cap`: too common to read. */
  df: number;
  /** Rowids holding it (empty when too common). */
  hits: number[];
  /** The best field each hit holds it in. */
  field: Map<number, Field>;
  /** Hits that hold it in their keywords only, not in their own title, tags or body. */
  keywordsOnly: Set<number>;
  /** Its BM25 share per hit (higher is better), when asked for and the form is rare enough. */
  bm25?: Map<number, number>;
};

export type GroupPostings = { group: TermGroup; forms: Form[] };

export type PostingsOptions = {
  /** Read at most this many entries per form: a form found in more is too common to say anything. */
  cap: number;
  /** Alternatives looked up per group, and per query, at most (a long prompt must not cost hundreds of lookups). */
  altMax?: number;
  altTotal?: number;
  /** Score forms found in at most this many entries with FTS5's BM25 (recall's tie-break; 0: none). */
  bm25Max?: number;
  /** A group whose own words are too common says nothing: skip its alternatives (the hook). */
  skipCommon?: boolean;
};

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
function matcher(store: Store, scopes: ScopeKey[]) {
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
  const heading = db.query(
    `SELECT rowid, 1 AS f FROM entries_fts WHERE entries_fts MATCH ?1
     UNION ALL SELECT rowid, 2 FROM entries_fts WHERE entries_fts MATCH ?2
     UNION ALL SELECT rowid, 3 FROM entries_fts WHERE entries_fts MATCH ?3`,
  );
  const HEADING: Field[] = ["body", "title", "tags", "keywords"];
  const ownText = db.query("SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?");
  return {
    hits(text: string, prefix: boolean, limit: number): number[] {
      return (any.all(filter + phrase(text, "title tags keywords body", prefix), limit) as { rowid: number }[]).map(
        (r) => r.rowid,
      );
    },
    /** The best field of each hit, and the hits holding the form in their keywords alone. */
    fields(text: string, prefix: boolean, hits: number[]): { field: Map<number, Field>; keywordsOnly: Set<number> } {
      const field = new Map<number, Field>();
      const q = (c: string) => filter + phrase(text, c, prefix);
      const best = new Map<number, number>();
      for (const r of heading.all(q("title"), q("tags"), q("keywords")) as { rowid: number; f: number }[])
        best.set(r.rowid, Math.min(best.get(r.rowid) ?? 9, r.f));
      for (const h of hits) field.set(h, HEADING[best.get(h) ?? 0]!);
      const keywordsOnly = new Set<number>();
      // Only a form found in some keywords costs the look at the entries' own text.
      if ([...best.values()].includes(3)) {
        const own = new Set((ownText.all(q("title tags body")) as { rowid: number }[]).map((r) => r.rowid));
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

/** IDF as BM25 computes it (never negative): a form in `df` of `total` entries. */
export function idf(total: number, df: number): number {
  return Math.log(1 + (total - df + 0.5) / (df + 0.5));
}

/**
 * BM25's share for a form found once in `field` of an entry of average length: what recall
 * counts for a hit it did not score with FTS5 (a form too common to be worth it).
 */
export function bm25Estimate(total: number, df: number, field: Field): number {
  const w = BM25_WEIGHT[field];
  return (idf(total, df) * w * (K1 + 1)) / (w + K1);
}

/**
 * Postings of each group's forms (own words first, then alternatives in order) in `scopes`.
 * A form found in more than `cap` entries keeps only its count (`df = cap + 1`, no hits).
 */
export function postings(
  store: Store,
  groups: TermGroup[],
  scopes: ScopeKey[],
  opts: PostingsOptions,
): GroupPostings[] {
  const m = matcher(store, scopes);
  let altBudget = opts.altTotal ?? Number.POSITIVE_INFINITY;
  return groups.map((group) => {
    const prefix = group.prefix === true;
    const candidates = [
      { text: group.text, source: "query", weight: 1 },
      ...group.alternatives.slice(0, opts.altMax ?? Number.POSITIVE_INFINITY),
    ];
    const forms: Form[] = [];
    for (const [i, c] of candidates.entries()) {
      if (i > 0 && altBudget-- <= 0) break;
      const pre = prefix && i === 0;
      // A form rare enough is read once with its BM25 and fields; a common one by rowid, then fields.
      const scored = opts.bm25Max ? m.scored(c.text, pre, opts.bm25Max) : undefined;
      if (scored) {
        forms.push({ ...c, df: scored.hits.length, ...scored });
        continue;
      }
      const hits = m.hits(c.text, pre, opts.cap + 1);
      const form: Form = { ...c, df: hits.length, hits, field: new Map(), keywordsOnly: new Set() };
      forms.push(form);
      if (hits.length > opts.cap) {
        form.hits = [];
        if (i === 0 && opts.skipCommon) break;
      } else if (hits.length) Object.assign(form, m.fields(c.text, pre, hits));
    }
    return { group, forms };
  });
}

// ---------------------------------------------------------------------------------------------
// Paths a query names, matched against `applies_to`.

/** The directory `applies_to` globs are relative to: the worktree root inside a project, else cwd. */
export function globRoot(store: Store): string {
  return store.project?.worktree ?? store.cwd;
}

/** Absolute paths -> paths relative to the glob root (paths outside it are dropped). */
export function globPaths(store: Store, absPaths: string[]): string[] {
  const root = globRoot(store);
  return absPaths.flatMap((p) => {
    const rel = relativeInside(root, p);
    return rel ? [rel] : [];
  });
}

/** Entries of `scopes` whose applies_to matches one of `relPaths` (project-relative), with the first path matched. */
export function pathHits(store: Store, relPaths: string[], scopes: ScopeKey[]): { row: RouteRow; path: string }[] {
  if (!relPaths.length) return [];
  const out: { row: RouteRow; path: string }[] = [];
  for (const row of appliesToRows(store, scopes)) {
    let globs: string[] = [];
    try {
      globs = JSON.parse(row.applies_to ?? "[]");
    } catch {}
    const path = relPaths.find((p) => matchesAny(globs, p));
    if (path) out.push({ row, path });
  }
  return out;
}
