/**
 * Where the query analysis (text.ts `analyzeQuery`) meets the index: for each term group, which
 * entries hold its own words or one of its alternatives, and in which field. The prompt hook's
 * routing (route.ts) and recall (search.ts) read the same postings with the same field
 * weights, so an improvement to one is an improvement to both; each applies its own policy. The
 * SQL that reads the full-text index is the store's (src/store/fts.ts).
 */

import { appliesToRows, type Field, ftsMatcher, type RouteRow, type ScopeKey, type Store } from "../store";
import { matchesAny, relativeInside } from "./analysis/named-paths";
import type { TermGroup } from "./analysis/text";

export type { Field };

/**
 * How much a match weighs by where it is: title over tags over keywords over body (keywords are
 * other words for the topic, written by the agent, distillation or `coffer enrich`: evidence,
 * but weaker than the entry's own title and tags).
 */
export const FIELD_WEIGHT: Record<Field, number> = { title: 1, tags: 0.8, keywords: 0.65, body: 0.5 };

/** An everyday English word (vocabulary "common") weighs this share of its IDF, in the hook and in recall. */
export const COMMON_WEIGHT = 0.5;

/** BM25 column weights (src/store/fts.ts): recall's BM25. */
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
  /** The best field each hit holds it in; a hit missing here holds it in its body. */
  field: Map<number, Field>;
  /** Hits that hold it in their keywords only, not in their own title, tags or body. */
  keywordsOnly: Set<number>;
  /** Its BM25 share per hit (higher is better), when asked for and the form is rare enough. */
  bm25?: Map<number, number>;
};

export type GroupPostings = { group: TermGroup; forms: Form[] };

/**
 * Alternatives looked up per term (ALT_MAX) and per query (ALT_TOTAL), at most, by the hook and by
 * recall alike: a long prompt must not cost hundreds of lookups.
 */
export const ALT_MAX = 10;
export const ALT_TOTAL = 40;

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
  /** A form in more than `cap` entries keeps the newest `newest` of them instead of none. */
  newest?: number;
};

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
 * A form found in more than `cap` entries keeps only its count (`df = cap + 1`, no hits; or,
 * with `newest`, the most recently indexed of them).
 */
export function postings(
  store: Store,
  groups: TermGroup[],
  scopes: ScopeKey[],
  opts: PostingsOptions,
): GroupPostings[] {
  const m = ftsMatcher(store, scopes);
  // A form is read once per query, though several terms share it as an alternative. Its rowids
  // come first (cheap); only a form rare enough is read again with its BM25: scoring thousands of
  // rows to find a form too common costs more than the rest of a recall.
  const read = new Map<string, Omit<Form, "text" | "source" | "weight">>();
  const lookup = (text: string, prefix: boolean) => {
    const key = `${prefix ? "*" : " "}${text}`;
    const known = read.get(key);
    if (known) return known;
    const hits = m.hits(text, prefix, opts.cap + 1);
    const scored =
      opts.bm25Max && hits.length && hits.length <= opts.bm25Max ? m.scored(text, prefix, opts.bm25Max) : undefined;
    const newest = hits.length > opts.cap && opts.newest ? m.newest(text, prefix, opts.newest) : undefined;
    const form = scored
      ? { df: scored.hits.length, ...scored }
      : newest
        ? { df: hits.length, hits: newest, ...m.fields(text, prefix, newest[newest.length - 1]) }
        : hits.length > opts.cap || !hits.length
          ? { df: hits.length, hits: [], field: new Map(), keywordsOnly: new Set<number>() }
          : { df: hits.length, hits, ...m.fields(text, prefix) };
    read.set(key, form);
    return form;
  };
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
      const form = { ...c, ...lookup(c.text, prefix && i === 0) };
      forms.push(form);
      if (form.df > opts.cap && i === 0 && opts.skipCommon) break;
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
