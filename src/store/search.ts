import { RE2JS } from "re2js";
import { CofferError } from "../lib/errors";
import { dbOf } from "./db";
import { rowToEntry } from "./entries";
import type { Entry } from "./entry";
import { GLOBAL, type ScopeKey, type ScopeName } from "./scope";
import { activeScopes, type Store, scopeKey, scopeName, withHealing } from "./store";
import { matchExpression, type QueryTerm, queryTerms, scopedMatch } from "./text";

export type Hit = {
  id: string;
  title: string;
  text: string;
  kind: string;
  scope: ScopeName;
  score: number;
  updated: string;
  entry: Entry;
};
export type GrepHit = { id: string; title: string; scope: ScopeName; line: number; text: string };

export const RRF_K = 60;

type Ranked = { row: Parameters<typeof rowToEntry>[0]; scope: ScopeKey };

/** BM25-ranked ids of one scope for a MATCH expression. */
export function searchScope(store: Store, scope: ScopeKey, match: string, limit: number): Ranked[] {
  const rows = dbOf(store)
    .query(
      `SELECT e.* FROM entries_fts JOIN entries e ON e.rowid = entries_fts.rowid
       WHERE entries_fts MATCH ? ORDER BY entries_fts.rank LIMIT ?`,
    )
    .all(scopedMatch(scope, match), limit) as Ranked["row"][];
  return rows.map((row) => ({ row, scope }));
}

/** Reciprocal rank fusion (k = 60) of per-scope rankings; on a tie the earlier list (project) wins. */
export function fuse<T extends { row: { id: string } }>(lists: T[][], limit: number): (T & { score: number })[] {
  const scored = new Map<string, T & { score: number; order: number }>();
  for (const [li, list] of lists.entries()) {
    for (const [rank, item] of list.entries()) {
      const key = `${li}:${item.row.id}`;
      const prev = scored.get(key);
      const score = (prev?.score ?? 0) + 1 / (RRF_K + rank + 1);
      scored.set(key, { ...item, score, order: li });
    }
  }
  return [...scored.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map(({ order: _o, ...rest }) => rest as unknown as T & { score: number });
}

const vocabReady = new WeakSet<object>();

/**
 * Drop terms that occur in more than a tenth of all entries when rarer terms are present:
 * they barely move BM25 but make SQLite score most of the index (a 100k-entry store's "stopwords").
 */
export function pruneCommonTerms(store: Store, terms: QueryTerm[]): QueryTerm[] {
  if (terms.length < 2) return terms;
  const db = dbOf(store);
  if (!vocabReady.has(db)) {
    db.run("CREATE VIRTUAL TABLE IF NOT EXISTS temp.coffer_vocab USING fts5vocab(main, entries_fts, row)");
    vocabReady.add(db);
  }
  const total = (db.query("SELECT max(rowid) AS n FROM entries").get() as { n: number | null }).n ?? 0;
  if (total < 1000) return terms;
  const df = terms.map((t) =>
    t.cjk
      ? 0
      : ((db.query("SELECT doc FROM temp.coffer_vocab WHERE term = ?").get(t.text) as { doc: number } | null)?.doc ??
        0),
  );
  const keep = terms.filter((_, i) => df[i]! <= total / 10);
  if (keep.length) return keep;
  const rarest = df.indexOf(Math.min(...df));
  return [terms[rarest]!];
}

/** Keyword recall over the project and global scopes (or one of them). */
export function recall(store: Store, query: string, opts: { scope?: string; limit?: number } = {}): Hit[] {
  const q = query.trim();
  if (!q) throw new CofferError("query is empty", 1, 'e.g. coffer recall "release process"');
  if (q.length > 2000) throw new CofferError(`query is ${q.length} characters; the limit is 2000`);
  const limit = Math.max(1, Math.min(opts.limit ?? 5, 100));
  const one = scopeKey(store, opts.scope, "both");
  const scopes = one ? [one] : activeScopes(store);
  return withHealing(store, () => {
    const match = matchExpression(pruneCommonTerms(store, queryTerms(q)));
    if (!match) return [];
    const lists = scopes.map((s) => searchScope(store, s, match, limit));
    return fuse(lists, limit).map(({ row, score }) => {
      const entry = rowToEntry(row);
      return {
        id: entry.id,
        title: entry.title,
        text: entry.body,
        kind: entry.kind,
        scope: scopeName(store, row.scope),
        score: Number(score.toFixed(6)),
        updated: entry.updated,
        entry,
      };
    });
  });
}

/** How long one grep may run before it answers "pattern too expensive". */
export const GREP_BUDGET_MS = 2000;
/** Only this much of a line is searched (bodies are at most 32768 characters; imports may hold more). */
export const GREP_LINE_MAX = 32 * 1024;

function tooExpensive(pattern: string, ms: number): CofferError {
  return new CofferError(
    `pattern too expensive: ${pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern} ran for more than ${ms / 1000} s`,
    1,
    "Use a literal or a narrower pattern, or limit the search to one scope.",
  );
}

/**
 * One line test for grep (CLI, MCP, HTTP, the web UI): a literal (case-insensitive) substring, or a
 * regular expression when written as /pattern/flags (i, s, m). Expressions run on RE2 (linear time:
 * no backreferences or lookaround, so `/^(a+)+$/` costs what a literal does), each line is cut at
 * GREP_LINE_MAX, and the whole search stops with "pattern too expensive" after `budgetMs`.
 */
export function lineMatcher(pattern: string, budgetMs = GREP_BUDGET_MS): (line: string) => boolean {
  const started = performance.now();
  let calls = 0;
  const budget = () => {
    if ((++calls & 63) === 0 && performance.now() - started > budgetMs) throw tooExpensive(pattern, budgetMs);
  };
  const re = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (re) {
    let flags = 0;
    for (const f of re[2]!) {
      if (f === "i") flags |= RE2JS.CASE_INSENSITIVE;
      else if (f === "s") flags |= RE2JS.DOTALL;
      else if (f === "m") flags |= RE2JS.MULTILINE;
      else if (!"guyd".includes(f))
        throw new CofferError(`invalid regular expression ${pattern}: unknown flag "${f}" (allowed: i, s, m)`);
    }
    let rx: RE2JS;
    try {
      if (re[1]!.length > 2000) throw new Error(`the expression is ${re[1]!.length} characters; the limit is 2000`);
      rx = RE2JS.compile(re[1]!, flags);
    } catch (err) {
      throw new CofferError(
        `invalid regular expression ${pattern}: ${(err as Error).message}`,
        1,
        "grep runs expressions in linear time (RE2 syntax): no backreferences (\\1) or lookaround ((?=, (?<=).",
      );
    }
    return (line) => {
      budget();
      return rx.matcher(line.length > GREP_LINE_MAX ? line.slice(0, GREP_LINE_MAX) : line).find();
    };
  }
  const needle = pattern.toLowerCase();
  return (line) => {
    budget();
    return (line.length > GREP_LINE_MAX ? line.slice(0, GREP_LINE_MAX) : line).toLowerCase().includes(needle);
  };
}

/**
 * Line search over entry bodies: a literal (case-insensitive) substring, or a regular
 * expression when written as /pattern/flags (see `lineMatcher`).
 */
export function grep(store: Store, pattern: string, opts: { scope?: string; limit?: number } = {}): GrepHit[] {
  if (!pattern.trim()) throw new CofferError("pattern is empty");
  const test = lineMatcher(pattern);
  const limit = Math.max(1, Math.min(opts.limit ?? 50, 1000));
  const one = scopeKey(store, opts.scope, "both");
  const scopes = one ? [one] : activeScopes(store);
  const hits: GrepHit[] = [];
  withHealing(store, () => {
    for (const scope of scopes) {
      const it = dbOf(store)
        // Superseded entries are kept for `list --all`, never searched.
        .query("SELECT id, title, body FROM entries WHERE scope = ? AND status = '' ORDER BY updated DESC, id DESC")
        .iterate(scope) as Iterable<{ id: string; title: string; body: string }>;
      for (const r of it) {
        const lines = r.body.split("\n");
        for (let i = 0; i < lines.length; i++) {
          if (test(lines[i]!)) {
            hits.push({
              id: r.id,
              title: r.title,
              scope: scope === GLOBAL ? "global" : "project",
              line: i + 1,
              text: lines[i]!,
            });
            if (hits.length >= limit) return;
          }
        }
      }
    }
  });
  return hits;
}
