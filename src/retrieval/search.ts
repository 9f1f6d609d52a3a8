import { CofferError } from "../lib/errors";
import { lineMatcher } from "../lib/grep";
import {
  activeScopes,
  type BrowseFilter,
  type BrowseRow,
  browsePage,
  browseWhere,
  currentBodies,
  type Entry,
  type EntryRow,
  entryRowsByRowid,
  normalizeText,
  rowidsWhere,
  rowToEntry,
  type ScopeKey,
  type ScopeName,
  type Store,
  scopeKey,
  scopeName,
  scopesCount,
  toBrowseRow,
  verifyShown,
  withHealing,
  writtenNext,
} from "../store";
import { promptPaths } from "./analysis/named-paths";
import { analyzeQuery, wordCount } from "./analysis/text";
import {
  ALT_MAX,
  ALT_TOTAL,
  bm25Estimate,
  COMMON_WEIGHT,
  type Field,
  type Form,
  type GroupPostings,
  globPaths,
  idf,
  pathHits,
  postings,
} from "./match";
import { nearest, queryVector, similarities } from "./similarity";

/** Which query term an entry matched, where, and through which alternative (recall --explain). */
export type ExplainTerm = {
  /** The query's own word or phrase (or the path it named). */
  term: string;
  /** Where it matched: a field, or `applies_to` for a path the query named. */
  field: Field | "applies_to";
  /** The word found instead, when it matched through an alternative. */
  via?: string;
  /** Where that alternative came from ("vocabulary", ...). */
  source?: string;
  /** Matched by its stem only (the word as written is not in the entry): "deploying" for "deploys". */
  stemmed?: boolean;
};

export type Explain = {
  /** Query terms this entry matched, of all it had. */
  matched: number;
  of: number;
  terms: ExplainTerm[];
  /** Query terms it did not match. */
  missing: string[];
  /** "exact": the title is the query; "all": every term is in the title. */
  title?: "exact" | "all";
  /** Shown because it was written right after this hit, which asks a question (its likely answer). */
  answers?: string;
  /** The score recall ranks by first (more terms, rarer terms), then BM25. */
  score: number;
  bm25: number;
  /** Cosine similarity of the entry's meaning to the query's (when compared). */
  similarity?: number;
};

export type Hit = {
  id: string;
  title: string;
  text: string;
  kind: string;
  scope: ScopeName;
  score: number;
  updated: string;
  entry: Entry;
  explain?: Explain;
};
export type GrepHit = { id: string; title: string; scope: ScopeName; line: number; text: string };

/**
 * A vocabulary alternative ("pnpm" for "package manager") counts this much of the query's own
 * word in recall: a question someone asked, in whatever words (the hook weighs it by prompt kind).
 */
const RECALL_ALT = 0.8;
/** Forms found in at most this many entries are scored with FTS5's BM25; more common ones are estimated. */
const BM25_MAX = 2000;
/** Candidates read back per query at most (the best, and ties at the edge). */
const WINDOW_MAX = 1000;

/**
 * Entries a recall term may be found in and still be read: every entry up to 10,000, then a
 * tenth of the store (at 100,000 a word in 10,000 entries says little, and reading it costs).
 */
export function recallCap(total: number): number {
  return total <= 10_000 ? Math.max(total, 1) : Math.max(10_000, Math.floor(total / 10));
}

type Matched = { form: Form | undefined; field: Field | "applies_to"; credit: number; bm25: number };
type Candidate = {
  rowid: number;
  mass: number;
  bm25: number;
  titleAll: boolean;
  groups: Map<number, Matched>;
  /** Cosine similarity to the query (similarity.ts), when compared. */
  sim?: number;
  /** The order key: the share of the query's weight matched, plus what similarity adds (rounded to 1e-9). */
  fused: number;
};

/** One query's analysis, postings and candidates, ranked by mass (more and rarer terms), title, BM25. */
function rank(store: Store, query: string, scopes: ScopeKey[]) {
  const groups = analyzeQuery(query, "recall");
  const total = scopesCount(store, scopes);
  const cap = recallCap(total);
  let posts: GroupPostings[] = postings(store, groups, scopes, {
    cap,
    altMax: ALT_MAX,
    altTotal: ALT_TOTAL,
    bm25Max: BM25_MAX,
  });
  const paths = pathHits(store, globPaths(store, promptPaths(query, store.cwd)), scopes);
  if (!paths.length && posts.every((p) => p.forms.every((f) => !f.hits.length))) {
    // Every term too common to read (or absent): the rarest one, read further; in more entries
    // still (a word in half of 100,000), its most recently indexed ones.
    const common = posts.filter((p) => p.forms[0]!.df > cap).sort((a, b) => a.forms[0]!.df - b.forms[0]!.df)[0];
    if (common)
      posts = posts.map((p) =>
        p === common ? postings(store, [p.group], scopes, { cap: 4 * cap, altMax: 0, newest: cap })[0]! : p,
      );
  }
  // A term's weight: the IDF of its own words, or of its best alternative when the store lacks
  // them; an everyday English word weighs half, as in the hook (rare in a small store without being a topic).
  const weights = posts.map((p) => {
    const own = p.forms[0]!;
    const k = p.group.common ? COMMON_WEIGHT : 1;
    if (own.df > 0) return k * idf(total, own.df);
    const alt = p.forms.filter((f) => f.df > 0);
    return k * (alt.length ? Math.max(...alt.map((f) => idf(total, f.df))) : idf(total, 1));
  });
  const pathWeight = paths.length ? idf(total, paths.length) : 0;
  const cands = new Map<number, Candidate>();
  const cand = (rowid: number) => {
    let c = cands.get(rowid);
    if (!c) {
      c = { rowid, mass: 0, bm25: 0, titleAll: false, groups: new Map(), fused: 0 };
      cands.set(rowid, c);
    }
    return c;
  };
  // A word in thousands of entries is thousands of turns of these loops: each does only what it must.
  for (const [gi, p] of posts.entries()) {
    for (const form of p.forms) {
      const credit = form.source === "query" || form.source === "inflection" ? 1 : RECALL_ALT * form.weight;
      // A hit FTS5 did not score counts BM25's estimate for its field: one value per field, not per hit.
      const estimate: Partial<Record<Field, number>> = {};
      const estimated = (field: Field) => {
        estimate[field] ??= credit * bm25Estimate(total, form.df, field);
        return estimate[field];
      };
      for (const rowid of form.hits) {
        const field = form.field.get(rowid) ?? "body";
        const scored = form.bm25?.get(rowid);
        const bm25 = scored === undefined ? estimated(field) : credit * scored;
        const c = cand(rowid);
        const prev = c.groups.get(gi);
        if (!prev || credit > prev.credit || (credit === prev.credit && bm25 > prev.bm25))
          c.groups.set(gi, { form, field, credit, bm25 });
      }
    }
  }
  for (const { row } of paths)
    cand(row.rowid).groups.set(posts.length, { form: undefined, field: "applies_to", credit: 1, bm25: pathWeight });
  // Terms too common to read cannot be checked in a title: they neither make nor break "every term".
  const titled = posts.flatMap((p, gi) => (p.forms[0]!.df > cap ? [] : [gi]));
  for (const c of cands.values()) {
    c.groups.forEach((m, gi) => {
      c.mass += (gi === posts.length ? pathWeight : weights[gi]!) * m.credit;
      c.bm25 += m.bm25;
    });
    c.titleAll =
      titled.length > 0 &&
      c.groups.size >= titled.length &&
      titled.every((gi) => {
        const m = c.groups.get(gi);
        return m?.field === "title" && m.form?.source === "query";
      });
  }
  // Meaning: the entries nearest the query join as candidates, and the best lexical ones are
  // compared too; the order key is the share of the query matched plus what similarity adds.
  const whole = weights.reduce((a, b) => a + b, 0) + pathWeight || 1;
  const q = store.config["routing.similarity"] === "off" ? undefined : queryVector(store, query);
  if (q) {
    // An entry that shares no word with the query joins only when the query says something (three
    // words or more: a name or an identifier alone is looked up as written) that no entry holds
    // every word of, and only when near in meaning.
    const answered = wordCount(query) < SIM_MIN_WORDS || [...cands.values()].some((c) => c.mass >= whole * (1 - 1e-9));
    // Answered by words, similarity only reorders the word matches: when they are few enough to
    // be compared one by one below, the scan of every stored code (8-10 ms at 100,000: reading the codes, then the pass) would add nothing.
    if (!answered || cands.size > SIM_LEXICAL)
      for (const n of nearest(store, scopes, q, SIM_NEAR))
        if (cands.has(n.rowid) || (!answered && n.sim >= RECALL_SIM_ALONE)) cand(n.rowid).sim = n.sim;
    const unscored = [...cands.values()]
      .filter((c) => c.sim === undefined)
      .sort((a, b) => b.mass - a.mass)
      .slice(0, SIM_LEXICAL)
      .map((c) => c.rowid);
    for (const [rowid, sim] of similarities(store, unscored, scopes, q)) cands.get(rowid)!.sim = sim;
  }
  // A path the query names is what it asks about: its entries stay first, whatever is near in meaning.
  // Rounded once here (float noise must not order two equal matches): the sort compares it thousands of times.
  for (const c of cands.values())
    c.fused = round(
      c.mass / whole +
        (c.groups.has(posts.length) ? RECALL_PATH : 0) +
        (c.sim === undefined ? 0 : RECALL_SIM * Math.max(0, c.sim - RECALL_SIM_BASE) * Math.max(0, 1 - c.mass / whole)),
    );
  return { posts, paths, cands: [...cands.values()] };
}

/** Entries nearest the query that join recall's candidates, and lexical candidates compared by meaning. */
const SIM_NEAR = 50;
const SIM_MIN_WORDS = 3;
const SIM_LEXICAL = 200;
/**
 * Similarity above RECALL_SIM_BASE adds RECALL_SIM x the excess, times the share of the query left
 * unmatched, to the share matched: an entry holding every word keeps its place, one holding few
 * is lifted by its meaning; a path the query names adds RECALL_PATH. Calibrated on routing sets a to e
 * and LoCoMo: 2 gave sets b and e two points more paraphrase recall@5 and LoCoMo 2.3 points less
 * (0.691 against 0.714; 0.706 with words alone). A base of 0.25 rather than 0.3 (the static
 * model's cosines of an unrelated pair reach about 0.3) gave sets a, c and d 2.2-3.9 points more
 * paraphrase recall@5, recall@1 as before, and LoCoMo 0.711; with the sets' blind keywords, 1.9-6.6
 * points more on every set, recall@1 up on each.
 */
const RECALL_SIM = 1.5;
/** The similarity an entry that matches no word of the query needs to be a hit. */
const RECALL_SIM_ALONE = 0.35;
const RECALL_SIM_BASE = 0.25;
const RECALL_PATH = 1;

const round = (x: number) => Math.round(x * 1e9) / 1e9;

/**
 * Keyword recall over the project and global scopes (or one of them), through the query analysis
 * the prompt hook shares (text.ts analyzeQuery: stems, vocabulary phrases and alternatives, CJK
 * bigrams; match.ts: title, tags, keywords and body, named paths against applies_to). Ranked by
 * relevance across scopes: more matched terms and rarer terms first (each term weighs its IDF;
 * a match through an alternative weighs less), then entries whose title holds every term (the
 * title that is the query first), then BM25 (title over tags over keywords over body), then the
 * newest, then project before global. Every hit is checked against its file before it is shown.
 */
export function recall(
  store: Store,
  query: string,
  opts: { scope?: string; limit?: number; explain?: boolean } = {},
): Hit[] {
  const q = checkQuery(query);
  const limit = Math.max(1, Math.min(opts.limit ?? 5, 100));
  const one = scopeKey(store, opts.scope, "both");
  const scopes = one ? [one] : activeScopes(store);
  return withHealing(store, () =>
    ranked(store, q, scopes, { limit, offset: 0 }).page.map(({ row, title, cand, explain: why }) => {
      const entry = rowToEntry(row);
      return {
        id: entry.id,
        title: entry.title,
        text: entry.body,
        kind: entry.kind,
        scope: scopeName(store, row.scope),
        score: Number(cand.mass.toFixed(6)),
        updated: entry.updated,
        entry,
        ...(opts.explain ? { explain: why(entry, title) } : {}),
      };
    }),
  );
}

function checkQuery(query: string): string {
  const q = query.trim();
  if (!q) throw new CofferError("query is empty", 1, 'e.g. coffer recall "release process"');
  if (q.length > 2000) throw new CofferError(`query is ${q.length} characters; the limit is 2000`);
  return q;
}

type Row = EntryRow;

/**
 * The ranked search every reader shares (recall on the CLI, MCP and HTTP; the web UI's search):
 * one page (`offset`, `limit`) of the entries of `scopes` matching `query`, in recall's order,
 * optionally narrowed by an SQL condition on `entries e` (`where`), with the number that match.
 * Each entry on the page is checked against its file first (never older than its file).
 */
export function ranked(
  store: Store,
  query: string,
  scopes: ScopeKey[],
  opts: { limit: number; offset: number; where?: { sql: string; params: (string | number)[] } },
) {
  const q = checkQuery(query);
  const order = new Map(scopes.map((s, i) => [s, i]));
  for (let attempt = 0; ; attempt++) {
    const r = rank(store, q, scopes);
    let cands = r.cands;
    if (opts.where && cands.length) {
      const keep = rowidsWhere(
        store,
        cands.map((c) => c.rowid),
        opts.where,
      );
      cands = cands.filter((c) => keep.has(c.rowid));
    }
    const page = best(store, cands, opts.offset, opts.limit, q, order);
    // Never show an entry older than its file: changed files are read again and the question asked again.
    const check = verifyShown(
      store,
      page.map((t) => t.cand.rowid),
    );
    if (check.changed && attempt < 2) continue;
    return {
      total: cands.length,
      page: page
        .filter((t) => !check.stale.has(t.cand.rowid))
        .map((t) => ({
          ...t,
          explain: (entry: Entry, title: "exact" | "all" | undefined) => ({
            ...explain(r, t.cand, entry, title),
            ...(t.answers ? { answers: t.answers } : {}),
          }),
        })),
    };
  }
}

/** One page of candidates in full order (reading back only those that can make the cut). */
function best(
  store: Store,
  cands: Candidate[],
  offset: number,
  limit: number,
  query: string,
  order: Map<ScopeKey, number>,
) {
  cands.sort((a, b) => b.fused - a.fused || Number(b.titleAll) - Number(a.titleAll) || b.bm25 - a.bm25);
  let end = Math.min(cands.length, offset + limit);
  // Ties on the first key at the edge come along: the title, BM25, recency and scope decide among them.
  const cutoff = end + WINDOW_MAX;
  while (end < cands.length && end < cutoff && cands[end]!.fused === cands[end - 1]!.fused) end++;
  const window = cands.slice(0, end);
  const rows = new Map(
    entryRowsByRowid(
      store,
      window.map((c) => c.rowid),
    ).map((r) => [r.rowid, r]),
  );
  const wanted = normalizeText(query);
  const sorted = window
    .flatMap((cand) => {
      const row = rows.get(cand.rowid);
      if (!row) return [];
      const title: "exact" | "all" | undefined = cand.titleAll
        ? normalizeText(row.title) === wanted
          ? "exact"
          : "all"
        : undefined;
      return [{ cand, row, title, tier: title === "exact" ? 2 : title ? 1 : 0 }];
    })
    .sort(
      (a, b) =>
        b.cand.fused - a.cand.fused ||
        b.tier - a.tier ||
        b.cand.bm25 - a.cand.bm25 ||
        (a.row.updated < b.row.updated ? 1 : a.row.updated > b.row.updated ? -1 : 0) ||
        (order.get(a.row.scope) ?? 9) - (order.get(b.row.scope) ?? 9) ||
        (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0),
    );
  return withAnswers(store, sorted, offset + limit).slice(offset, offset + limit);
}

type Ranked = { cand: Candidate; row: Row; title: "exact" | "all" | undefined; tier: number; answers?: string };

/** A sentence that ends in a question mark (not a URL's `?`). */
const ASKS = /\?["'”)\]]*(\s|$)/;
/** How long after a question its answer may have been written. */
const ANSWER_WITHIN_MS = 3_600_000;

/**
 * A hit that asks a question brings the entry written right after it in the same scope (within
 * the hour), placed just below it: in a captured exchange or a conversation log the words of a
 * question ("what got you into counseling?") match the query while its answer ("my own journey
 * and the support I got") holds what was asked for. The first `n` places are filled so.
 */
function withAnswers(store: Store, sorted: Ranked[], n: number): Ranked[] {
  if (!sorted.some((t, i) => i < n && ASKS.test(t.row.body))) return sorted;
  const next = writtenNext(store);
  const out: Ranked[] = [];
  const placed = new Set<number>();
  const put = (t: Ranked) => {
    if (placed.has(t.row.rowid)) return;
    placed.add(t.row.rowid);
    out.push(t);
  };
  for (const t of sorted) {
    if (out.length >= n) break;
    put(t);
    if (out.length >= n || !ASKS.test(t.row.body)) continue;
    const asked = Date.parse(t.row.created);
    if (Number.isNaN(asked)) continue;
    const until = new Date(asked + ANSWER_WITHIN_MS).toISOString().replace(/\.\d{3}Z$/, "Z");
    const row = next(t.row, until);
    if (!row || placed.has(row.rowid)) continue;
    const inList = sorted.find((x) => x.row.rowid === row.rowid);
    put(
      inList
        ? { ...inList, answers: t.row.id }
        : {
            cand: {
              rowid: row.rowid,
              mass: t.cand.mass,
              bm25: 0,
              titleAll: false,
              groups: new Map(),
              fused: t.cand.fused,
            },
            row,
            title: undefined,
            tier: 0,
            answers: t.row.id,
          },
    );
  }
  for (const t of sorted) put(t);
  return out;
}

/** Why a hit matched: each query term's field and alternative, the terms it missed, the title tier. */
function explain(
  r: ReturnType<typeof rank>,
  cand: Candidate,
  entry: Entry,
  title: "exact" | "all" | undefined,
): Explain {
  const terms: ExplainTerm[] = [];
  const missing: string[] = [];
  const texts: Record<Field, string> = {
    title: entry.title,
    tags: entry.tags.join(" "),
    keywords: (entry.keywords ?? []).join(" "),
    body: entry.body,
  };
  for (const [gi, p] of r.posts.entries()) {
    const m = cand.groups.get(gi);
    if (!m) {
      missing.push(p.group.text);
      continue;
    }
    const t: ExplainTerm = { term: p.group.text, field: m.field };
    if (m.form && m.form.source !== "query") {
      t.via = m.form.text;
      t.source = m.form.source;
    } else if (m.field !== "applies_to" && !p.group.cjk && !containsWord(texts[m.field], p.group.text))
      t.stemmed = true;
    terms.push(t);
  }
  const path = r.paths.find((x) => x.row.rowid === cand.rowid);
  if (path) terms.push({ term: path.path, field: "applies_to" });
  return {
    matched: terms.length,
    of: r.posts.length + (r.paths.length ? 1 : 0),
    terms,
    missing,
    ...(title ? { title } : {}),
    score: Number(cand.mass.toFixed(6)),
    bm25: Number(cand.bm25.toFixed(6)),
    ...(cand.sim === undefined ? {} : { similarity: Number(cand.sim.toFixed(3)) }),
  };
}

/** Whether `text` holds `word` (or phrase) as written, case-insensitively, on word boundaries. */
function containsWord(text: string, word: string): boolean {
  const hay = ` ${text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")} `;
  return hay.includes(` ${word.replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `);
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
      const it = currentBodies(store, scope);
      for (const r of it) {
        const lines = r.body.split("\n");
        for (let i = 0; i < lines.length; i++) {
          if (test(lines[i]!)) {
            hits.push({
              id: r.id,
              title: r.title,
              scope: scopeName(store, scope),
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

/**
 * The web UI's entry list: browsing pages (newest first, grep mode, an id) from the store, and for
 * a keyword query the ranked search recall uses (same analysis, same order), narrowed by the filters.
 */
export function browseEntries(store: Store, f: BrowseFilter): { total: number; entries: BrowseRow[] } {
  const page = browsePage(store, f);
  if (page) return page;
  return withHealing(store, () => {
    const res = ranked(store, f.q!.trim(), f.scopes, { limit: f.limit, offset: f.offset, where: browseWhere(f) });
    return { total: res.total, entries: res.page.map((t) => toBrowseRow(t.row)) };
  });
}
