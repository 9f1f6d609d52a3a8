/**
 * Which entries a prompt or a touched file routes. Text routing is deliberately strict: a
 * prompt that merely shares a common word with an entry must not route it.
 *
 * - Terms are the prompt's words minus stopwords and generic coding words ("fix", "test",
 *   "file", "update", ...), plus CJK bigrams. A term found in more than half of the store
 *   (once it has 20+ entries) carries no information and is dropped.
 * - Entries are scored by the IDF of the prompt terms they match (title/tag hits count
 *   double). One passes the gate when it matches two or more terms, or one term in its title
 *   or tags, or the prompt's only term; and (once the store has 20+ entries) its score is at
 *   least the IDF of a term found in a tenth of the store — one common word is never enough.
 * - Entries under 35% of the best score are dropped as a long tail.
 * - File paths the prompt names (existing under cwd) route entries whose `applies_to` globs
 *   match, ahead of text matches. Project before global, then newer, then id.
 */
import {
  appliesToRows,
  bodiesByRowid,
  newestCards,
  type RouteRow,
  rowidsInScopes,
  rowsByIds,
  rowsByRowid,
  termFrequency,
  termHits,
} from "../store/hooks";
import type { ScopeKey } from "../store/scope";
import { activeScopes, entryCount, type Store } from "../store/store";
import { queryTerms } from "../store/text";
import { matchesAny, relativeInside } from "./paths";

export const ROUTE_MAX = 40;
/** Entries scoring under this share of the best match are a long tail, not relevant memory. */
export const TAIL = 0.35;

export type Routed = {
  rowid: number;
  id: string;
  scope: ScopeKey;
  title: string;
  tags: string[];
  updated: string;
  /** Normalized-body hash: a changed body counts as undelivered again. */
  hash: string;
  score: number;
  pathHit: boolean;
};

const GENERIC = new Set(
  (
    "add added adding change changed changes changing check code create created delete do done error errors explain fail failed " +
    "failing fails file files fix fixed fixes fixing function help implement issue issues line lines look need new now old " +
    "please problem remove run running see show something src still test tests thing things try update updated want work " +
    "working works write wrong good bad more most one two first last next same other each every like know think go going " +
    "tell give take put set keep start stop open close find search able actually really maybe might must can't don't doesn't " +
    "isn't it's i'm i've we're you're here way ways lot yes yeah sometimes always never again already thing stuff"
  ).split(" "),
);

const _CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

type Term = { text: string; cjk: boolean };

/** The prompt's specific terms (CJK runs as bigrams), at most `max` before frequency checks. */
export function specificTerms(prompt: string, max = 24): Term[] {
  const out: Term[] = [];
  const seen = new Set<string>();
  const add = (text: string, cjk: boolean) => {
    if (seen.has(text) || out.length >= max) return;
    seen.add(text);
    out.push({ text, cjk });
  };
  for (const t of queryTerms(prompt.slice(0, 8000), 64)) {
    if (t.cjk) {
      const chars = Array.from(t.text);
      if (chars.length === 1) continue;
      for (let i = 0; i + 1 < chars.length; i++) add(chars[i]! + chars[i + 1]!, true);
      continue;
    }
    const w = t.text;
    if (GENERIC.has(w) || !/\p{L}/u.test(w)) continue;
    if (w.length < 3 && !(/\d/.test(w) && /\p{L}/u.test(w))) continue;
    add(w, false);
  }
  return out;
}

function scopeOrder(store: Store): Map<ScopeKey, number> {
  return new Map(activeScopes(store).map((s, i) => [s, i]));
}

/** Stable order: path hits, score, project before global, newer first, id. */
function compareRouted(order: Map<ScopeKey, number>) {
  return (a: Routed, b: Routed) =>
    Number(b.pathHit) - Number(a.pathHit) ||
    b.score - a.score ||
    (order.get(a.scope) ?? 9) - (order.get(b.scope) ?? 9) ||
    (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function toRouted(r: RouteRow, score: number, pathHit: boolean): Routed {
  let tags: string[] = [];
  try {
    tags = JSON.parse(r.tags);
  } catch {}
  return {
    rowid: r.rowid,
    id: r.id,
    scope: r.scope,
    title: r.title,
    tags,
    updated: r.updated,
    hash: r.norm_hash,
    score,
    pathHit,
  };
}

/** Entries of the active scopes whose applies_to matches one of `relPaths` (project-relative). */
export function routeByPaths(store: Store, relPaths: string[]): Routed[] {
  if (!relPaths.length) return [];
  const rows = appliesToRows(store, activeScopes(store));
  const out: Routed[] = [];
  for (const r of rows) {
    let globs: string[] = [];
    try {
      globs = JSON.parse(r.applies_to ?? "[]");
    } catch {}
    if (relPaths.some((p) => matchesAny(globs, p))) out.push(toRouted(r, 0, true));
  }
  return out.sort(compareRouted(scopeOrder(store)));
}

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

/** Route a prompt: text terms through the gate above, plus applies_to of the files it names. */
export function routePrompt(store: Store, prompt: string, namedPaths: string[], max = ROUTE_MAX): Routed[] {
  const scopes = activeScopes(store);
  const order = scopeOrder(store);
  const byId = new Map<string, Routed>();
  for (const r of routeByPaths(store, globPaths(store, namedPaths))) byId.set(r.id, r);

  const terms = specificTerms(prompt);
  if (terms.length) {
    const total = entryCount(store);
    const informativeMax = total < 20 ? total : Math.max(20, Math.floor(total / 2));
    // Evidence floor: a match must weigh at least as much as one term found in a tenth of the store.
    const floor = total < 20 ? 0 : Math.log(1 + (total + 0.5) / (Math.max(1, total / 10) + 0.5));
    const informative = terms
      .map((t) => ({ t, df: termFrequency(store, t.text, informativeMax + 1) }))
      .filter((x) => x.df <= informativeMax);
    // How many things the prompt is about (terms the store lacks count too).
    const k = informative.length;
    // Long prompts: match on the rarest dozen terms the store has.
    const counted = informative
      .filter((x) => x.df > 0)
      .sort((a, b) => a.df - b.df)
      .slice(0, 12);
    // Per term: the entries it hits anywhere, and those it hits in title or tags (FTS column
    // filter, so stemming agrees). Scores and the gate need nothing but rowids.
    const idf = counted.map(({ df }) => Math.log(1 + (total - df + 0.5) / (df + 0.5)));
    const score = new Map<number, { hits: number; titled: boolean; score: number }>();
    counted.forEach(({ t }, i) => {
      const titled = new Set(termHits(store, t.text, true));
      for (const rowid of termHits(store, t.text, false)) {
        const inTitle = titled.has(rowid);
        const s = score.get(rowid) ?? { hits: 0, titled: false, score: 0 };
        s.hits++;
        s.titled ||= inTitle;
        s.score += idf[i]! * (inTitle ? 2 : 1);
        score.set(rowid, s);
      }
    });
    const passed: number[] = [];
    for (const [rowid, s] of score) if ((s.hits >= 2 || s.titled || k === 1) && s.score >= floor) passed.push(rowid);
    if (passed.length) {
      // json_each drives the join: rowid lookups, never a scan of the scope's index.
      const inScope = rowidsInScopes(store, passed, scopes);
      const best = Math.max(0, ...inScope.map((r) => score.get(r)!.score));
      const kept = inScope.filter((r) => score.get(r)!.score >= best * TAIL);
      for (const r of rowsByRowid(store, kept)) {
        const s = Number(score.get(r.rowid)!.score.toFixed(9));
        const prev = byId.get(r.id);
        if (prev) prev.score = s;
        else byId.set(r.id, toRouted(r, s, false));
      }
    }
  }
  return [...byId.values()].sort(compareRouted(order)).slice(0, max);
}

/** Session-start cards: this project's entries, newest first. */
export function projectCards(store: Store, limit = 30): { id: string; title: string }[] {
  return store.project ? newestCards(store, store.project.id, limit) : [];
}

/** Bodies of routed entries, keyed by rowid. */
export function loadBodies(store: Store, routed: { rowid: number }[]): Map<number, string> {
  return bodiesByRowid(
    store,
    routed.map((r) => r.rowid),
  );
}

/** Entries by id in the active scopes (a subagent inherits its parent's delivered ids). */
export function routedByIds(store: Store, ids: string[]): Routed[] {
  if (!ids.length) return [];
  const seen = new Set<string>();
  const order = scopeOrder(store);
  return rowsByIds(store, ids, activeScopes(store))
    .map((r) => toRouted(r, 0, false))
    .sort(compareRouted(order))
    .filter((r) => !seen.has(r.id) && Boolean(seen.add(r.id)));
}
