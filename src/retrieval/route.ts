/**
 * Which entries a prompt or a touched file routes. Text routing is deliberately strict: a
 * prompt that merely shares a common word with an entry must not route it.
 *
 * - Terms are the prompt's specific content (text.ts promptGroups): words minus stopwords
 *   and generic coding words ("fix", "rename", "variable", ...), matched on stems, plus the
 *   phrases and alternatives of the coding vocabulary (vocabulary.json: "database" also
 *   finds postgres/mysql/sqlite). A prompt without specific content routes no text at all. A
 *   term found in more than half of the store (once it has 20+ entries; at most max(2,000, a
 *   twentieth) in a large store) says nothing.
 * - Entries score the IDF of the terms they match, weighted by field (title over tags and
 *   keywords over body); an entry must explain a share of the prompt (unknown words count
 *   against it, less so for a question answered through the vocabulary), pass the store's
 *   evidence floor, and be near the best match. In an instruction the vocabulary weighs less.
 * - File paths the prompt names route entries whose `applies_to` globs match, whether or not the
 *   file exists yet, ahead of text matches. Then score, project before global, id.
 * - Meaning (the entry vectors, similarity.ts) decides little on its own: it drops a body-only
 *   word match far from the prompt's meaning, brings in the one entry that stands out (never into
 *   an edit instruction), and adds to the scores of what passes.
 */

import {
  activeScopes,
  applyUsePrior,
  bodiesByRowid,
  type Card,
  checkedAgainstFiles,
  type DeliveryWhy,
  GLOBAL,
  newestEverywhere,
  noteWhy,
  type RouteRow,
  rankedRecentCards,
  rowidsInScopes,
  rowsByIds,
  rowsByRowid,
  type ScopeKey,
  type Store,
  scopesCount,
  withHeads,
} from "../store";
import {
  analyzeQuery,
  isGeneralQuestion,
  isInstruction,
  isQuestion,
  mentionsProject,
  namesIdentifier,
  pointsAtCode,
  wordCount,
} from "./analysis/text";
import {
  ALT_MAX,
  ALT_TOTAL,
  COMMON_WEIGHT,
  FIELD_WEIGHT,
  type Form,
  globPaths,
  pathHits,
  postings,
  idf as termIdf,
} from "./match";
import { nearest, queryVector, similarities } from "./similarity";

export const ROUTE_MAX = 40;

/**
 * A question about the project ("which database do we use?"), which the vocabulary may answer;
 * not one about code at hand ("why is this effect running twice?"), which is read like an instruction.
 */
const asksAboutProject = (prompt: string) => isQuestion(prompt) && !pointsAtCode(prompt);
/**
 * An edit instruction, or a question about the code in front of the user ("why does this bit
 * shift give a negative number"): its words mostly name the code at hand, so a word match must
 * explain more of it.
 */
const aboutCodeAtHand = (prompt: string) => isInstruction(prompt) || (isQuestion(prompt) && pointsAtCode(prompt));

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
  /** The last staleness check found an anchor gone: routable, but after every fresh entry. */
  stale: boolean;
  /** Why it was routed (kept with the delivery record: the web UI's Sessions page). */
  why?: DeliveryWhy;
};

function scopeOrder(store: Store): Map<ScopeKey, number> {
  return new Map(activeScopes(store).map((s, i) => [s, i]));
}

/** Stable order: fresh before stale, path hits, score, project before global, id. */
function compareRouted(order: Map<ScopeKey, number>) {
  return (a: Routed, b: Routed) =>
    Number(a.stale) - Number(b.stale) ||
    Number(b.pathHit) - Number(a.pathHit) ||
    b.score - a.score ||
    (order.get(a.scope) ?? 9) - (order.get(b.scope) ?? 9) ||
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
    stale: Boolean(r.stale),
  };
}

/** Entries of the active scopes whose applies_to matches one of `relPaths` (project-relative). */
export function routeByPaths(store: Store, relPaths: string[]): Routed[] {
  return noted(
    store,
    pathHits(store, relPaths, activeScopes(store))
      .map(({ row, path }) => ({ ...toRouted(row, 0, true), why: { path } }))
      .sort(compareRouted(scopeOrder(store))),
  );
}

/** Keep each routed entry's reason for the delivery record this event may write (store/hooks.ts). */
function noted(store: Store, routed: Routed[]): Routed[] {
  for (const r of routed) if (r.why) noteWhy(store, r.id, r.why);
  return routed;
}

/**
 * A vocabulary alternative ("postgres" for "database") counts less than the prompt's own word:
 * this much in a question (which asks about a topic, in whatever words), half of it in an
 * instruction ("sort the location dropdown", "convert this to a function component"), whose
 * words name the code at hand rather than a topic to look up.
 */
const ALT_WEIGHT = { question: 0.85, instruction: 0.35 } as const;
/** An instruction's match found only through alternatives must weigh this many evidence floors. */
const INSTRUCTION_ALT_FLOOR = 1.5;
/** A vocabulary phrase weighs this much more than a single word. */
const PHRASE_WEIGHT = 1.5;
/**
 * An entry must explain at least this share of what the prompt is about (its terms' weight):
 * COVER when it matches two or more of the prompt's terms, COVER_ONE when it matches one.
 */
export const COVER = 0.2;
export const COVER_ONE = 0.4;
/**
 * The share for an entry whose title or tags hold a vocabulary alternative of what a question
 * asks about ("what SQL engine sits behind this app?" -> "PostgreSQL 16 is the primary
 * datastore"): a paraphrase shares no word with its answer, so its other words are all unknown.
 * A bridge through the entry's keywords alone needs COVER: keywords are written per entry by a
 * model, not curated like the vocabulary ("non volatile" must not answer "what does volatile
 * guarantee in C").
 */
export const COVER_ASKED = 0.15;
/** An edit instruction ("make the invoice list show 50 rows") must be explained this much more. */
export const INSTRUCTION_COVER = 1.5;
/** Entries scoring under this share of the best match are a long tail, not relevant memory. */
export const RELATIVE = 0.5;
/** Text matches under this share of the best one are shown as cards, not bodies. */
export const BODY_SHARE = 0.7;

/**
 * Ids of routed entries that deserve a body: path hits, and text matches near the best one
 * (every match in a store under 20 entries, which has no statistics to speak of).
 */
export function bodyWorthy(store: Store, routed: Routed[]): Set<string> {
  const best = scopesCount(store, activeScopes(store)) < 20 ? 0 : Math.max(0, ...routed.map((r) => r.score));
  return new Set(routed.filter((r) => r.pathHit || r.score >= BODY_SHARE * best).map((r) => r.id));
}
/**
 * Entries a term may be found in and still count: half the store, but at most 2,000 or a
 * twentieth of it, whichever is more (a word in 5,000 of 100,000 entries is common; reading
 * every hit of it would cost more than it tells).
 */
export function informativeLimit(total: number): number {
  return total < 20 ? total : Math.max(20, Math.min(Math.floor(total / 2), Math.max(2000, Math.floor(total / 20))));
}

/**
 * An entry's match: field-weighted score, terms matched, any of them in title, tags or keywords
 * (`strong`), any through a vocabulary alternative there (`alt`), any through the prompt's own words (`own`).
 */
type Score = {
  score: number;
  groups: number;
  strong: boolean;
  alt: boolean;
  /** Its strong alternative matches all came through the entry's keywords (a bridge), none through the vocabulary. */
  kw: boolean;
  own: boolean;
  /** Per term group matched: the prompt's term, the field, and the word found instead (an alternative). */
  terms: MatchedTerm[];
};

type MatchedTerm = NonNullable<DeliveryWhy["terms"]>[number];

/**
 * Text scores of a prompt's specific content against the active scopes (statistics too: what
 * is rare in this project and the global scope), by rowid, with the total weight of the terms.
 * Per term group, an entry scores the best of idf x field weight (x ALT_WEIGHT x the
 * alternative's own weight for an alternative: `asked`, a question about the project, or not)
 * over the group's words. The terms and their postings are the ones recall reads (match.ts).
 */
function textScores(
  store: Store,
  prompt: string,
  asked: boolean,
): { scores: Map<number, Score>; weight: number; floor: number; terms: number; topical: number } {
  const scores = new Map<number, Score>();
  const groups = isGeneralQuestion(prompt) ? [] : analyzeQuery(prompt, "route");
  const altWeight = asked ? ALT_WEIGHT.question : ALT_WEIGHT.instruction;
  if (!groups.length) return { scores, weight: 0, floor: 0, terms: 0, topical: 0 };
  const scopes = activeScopes(store);
  const total = scopesCount(store, scopes);
  const informativeMax = informativeLimit(total);
  const idf = (df: number) => termIdf(total, df);
  // Evidence floor: a match must weigh at least as much as a body word found in a tenth of the store.
  const floor = total < 20 ? 0 : FIELD_WEIGHT.body * idf(Math.max(1, total / 10));
  let weight = 0;
  let terms = 0;
  let topical = 0; // terms that are not everyday words
  const posts = postings(store, groups, scopes, {
    cap: informativeMax,
    altMax: ALT_MAX,
    altTotal: ALT_TOTAL,
    skipCommon: true,
  });
  for (const { group: g, forms } of posts) {
    const own = forms[0]!;
    if (own.df > informativeMax) continue; // found nearly everywhere: says nothing
    terms++;
    if (!g.common) topical++;
    const words: { form: Form; w: number }[] = [];
    // A vocabulary phrase ("package manager", "message broker") says plainly what the prompt is about.
    const gm = g.phrase && g.alternatives.length ? PHRASE_WEIGHT : 1;
    // An everyday word ("open", "read", "costs") is rare in a small store without being a topic.
    const ownW = own.df ? gm * (g.common ? COMMON_WEIGHT : 1) * idf(own.df) : 0;
    if (own.df) words.push({ form: own, w: ownW });
    for (const alt of forms.slice(1))
      if (alt.hits.length) words.push({ form: alt, w: gm * altWeight * alt.weight * idf(alt.df) });
    // What this group could weigh: its own word, else its best alternative; a word the store
    // lacks weighs as much as one found once (the prompt is partly about something else).
    weight += own.df
      ? ownW
      : words.length
        ? Math.max(...words.map((x) => x.w))
        : (g.common ? COMMON_WEIGHT : 1) * idf(1);
    const best = new Map<number, number>();
    const bestTerm = new Map<number, MatchedTerm>();
    const strong = new Set<number>();
    const altStrong = new Set<number>();
    const vocabStrong = new Set<number>();
    const ownHit = new Set<number>();
    for (const { form, w } of words) {
      for (const rowid of form.hits) {
        // Keywords are other words for the topic, like the vocabulary's: a match in them alone may
        // bridge a question's paraphrase, but weighs what an alternative does and needs as much
        // of the prompt explained; they never make the entry's own words weigh more (a word in
        // its body and its keywords is a body match).
        const bridged = form.keywordsOnly.has(rowid);
        const found = form.field.get(rowid) ?? "body";
        const field = found === "keywords" && !bridged ? "body" : found;
        if (field !== "body" && (!bridged || asked)) {
          strong.add(rowid);
          if (form !== own || bridged) altStrong.add(rowid);
          if (form !== own && !bridged) vocabStrong.add(rowid);
        }
        const k = bridged ? (form === own ? altWeight : 1) : 1;
        const v = w * k * FIELD_WEIGHT[field];
        if (v > (best.get(rowid) ?? -1))
          bestTerm.set(rowid, { term: g.text, field: found, ...(form === own ? {} : { via: form.text }) });
        best.set(rowid, Math.max(best.get(rowid) ?? 0, v));
        if (form === own && !bridged) ownHit.add(rowid);
      }
    }
    for (const [rowid, v] of best) {
      const s = scores.get(rowid) ?? {
        score: 0,
        groups: 0,
        strong: false,
        alt: false,
        kw: false,
        own: false,
        terms: [],
      };
      s.score += v;
      s.terms.push(bestTerm.get(rowid)!);
      s.groups++;
      s.strong ||= strong.has(rowid);
      s.alt ||= altStrong.has(rowid);
      s.kw ||= altStrong.has(rowid) && !vocabStrong.has(rowid);
      s.own ||= ownHit.has(rowid);
      scores.set(rowid, s);
    }
  }
  return { scores, weight, floor, terms, topical };
}

/** A prompt's similarity to its nearest entries, and those that may join on similarity alone. */
function similarity(
  store: Store,
  prompt: string,
  scopes: ScopeKey[],
  scores: Map<number, Score>,
): { query: Float32Array; sims: Map<number, number>; alone: Set<number> } | undefined {
  if (store.config["routing.similarity"] === "off") return undefined;
  if (isGeneralQuestion(prompt) || wordCount(prompt) < SIM_MIN_WORDS) return undefined;
  // An edit instruction names the code at hand ("sort the class types in the filter dropdown"):
  // being near an entry's meaning is not a reason to hand it over, so similarity only orders.
  const instructed = isInstruction(prompt) && !asksAboutProject(prompt);
  const q = queryVector(store, prompt);
  if (!q) return undefined;
  // Nothing joins an instruction: the word matches' own similarity is all it needs (no scan).
  if (instructed) return { query: q, sims: new Map(), alone: new Set() };
  const near = nearest(store, scopes, q, SIM_K, { newest: SIM_SCAN });
  const sims = new Map(near.map((n) => [n.rowid, n.sim]));
  const alone = new Set<number>();
  // Only the best may join on meaning alone: far enough above the floor, and ahead of the others
  // (its lead over the mean of the next nine: an everyday prompt is about as near to many entries).
  const [first] = near;
  if (first) {
    const rest = near.slice(1, 10);
    const lead = first.sim - (rest.length ? rest.reduce((a, n) => a + n.sim, 0) / rest.length : 0);
    const lexical = scores.has(first.rowid);
    if (lexical ? first.sim >= SIM_RESCUE && lead >= SIM_RESCUE_LEAD : first.sim >= SIM_ALONE && lead >= SIM_LEAD)
      alone.add(first.rowid);
  }
  return { query: q, sims, alone };
}

/*
 * Similarity's part in routing, calibrated on routing sets a to e (scripts/bench/routing.ts; set F
 * was kept out of it). Cosines of the static model: an everyday prompt's best entry sits near
 * 0.3-0.45, an entry that states what a prompt asks near 0.5-0.8.
 */
/** Nearest entries looked at per prompt. */
const SIM_K = 20;
/**
 * Entries of each scope compared by meaning per prompt, at most: the newest this many (the scan
 * costs a few milliseconds per 10,000 codes in a fresh process; recall reads them all). Words reach
 * every entry.
 */
const SIM_SCAN = 24_576;
/** A prompt shorter than this (in words) is not compared by meaning: too little to go on. */
const SIM_MIN_WORDS = 4;
/** Similarity at which an entry may join on meaning alone, and its lead over the next nine. */
const SIM_ALONE = 0.55;
const SIM_LEAD = 0.12;
/** The same for an entry the prompt shares words with, which the word gate found too weak. */
const SIM_RESCUE = 0.4;
const SIM_RESCUE_LEAD = 0.08;
/** A word match (not in title, tags or keywords) this far from the prompt's meaning is dropped. */
const SIM_VETO = 0.2;
/** Similarity above SIM_BASE adds SIM_BOOST x (sim - SIM_BASE) x the prompt's weight to a match's score. */
const SIM_BASE = 0.3;
const SIM_BOOST = 1;

/**
 * Route a prompt: entries whose `applies_to` matches a path the prompt names (existing or not),
 * best text match first; then text matches that pass the gate: enough of the prompt explained
 * (COVER), at least the store's evidence floor, two of the prompt's terms or one in title, tags
 * or keywords (or the prompt's only term), and within RELATIVE of the best match; then meaning
 * (`similarity`): far word matches dropped, one entry brought in, scores raised by similarity.
 * Best first; ties by id.
 */
export function routePrompt(store: Store, prompt: string, namedPaths: string[], max = ROUTE_MAX): Routed[] {
  const scopes = activeScopes(store);
  const order = scopeOrder(store);
  const byId = new Map<string, Routed>();
  const asked = asksAboutProject(prompt);
  const { scores: all, weight, floor, terms, topical } = textScores(store, prompt, asked);
  // One everyday word and nothing else ("yes go ahead", "ok, continue") names no topic: no text match.
  const scores = topical || terms > 1 ? all : new Map<number, Score>();
  const small = scopesCount(store, scopes) < 20;
  const pathRows = routeByPaths(store, globPaths(store, namedPaths));
  for (const r of pathRows) {
    r.score = Number((scores.get(r.rowid)?.score ?? 0).toFixed(9));
    byId.set(r.id, r);
  }
  const instructed = aboutCodeAtHand(prompt);
  // A prompt's one term found only in an entry's body is weak evidence ("explain what this
  // extension does", "nice, ship it"): enough for a question about the project, a prompt that
  // speaks of it or names an identifier, or a bare search of two words at most ("what are the
  // timeouts?", "when are we launching", "LOG_INF prints %f", "acme billing").
  const bodyAlone =
    terms === 1 && (asked || mentionsProject(prompt) || namesIdentifier(prompt) || wordCount(prompt) <= 2);
  const passed: number[] = [];
  for (const [rowid, s] of scores) {
    // Two of the prompt's terms, or one in title, tags or keywords that explains more of it.
    // (A store under 20 entries has no statistics to speak of: any such match passes.)
    if (!(s.groups >= 2 || s.strong || bodyAlone)) continue;
    const cover = small
      ? 0
      : s.alt && asked
        ? s.kw
          ? COVER
          : COVER_ASKED
        : (s.groups >= 2 ? COVER : COVER_ONE) * (instructed ? INSTRUCTION_COVER : 1);
    const evidence = !asked && !s.own ? INSTRUCTION_ALT_FLOOR * floor : floor;
    if (s.score >= evidence && s.score >= cover * weight) passed.push(rowid);
  }
  // Meaning (similarity.ts): a word match far from the prompt's meaning is dropped; similarity
  // adds to each entry's score (its order, and whether it gets a body) and brings in the one entry
  // it stands behind. Which word matches make the cut stays the word match's decision (RELATIVE):
  // a meaning close to one entry never pushes another out.
  const meaning = similarity(store, prompt, scopes, scores);
  const boost = new Map<number, number>();
  const joined: number[] = [];
  if (meaning) {
    const unknown = [...passed, ...pathRows.map((r) => r.rowid)].filter((r) => !meaning.sims.has(r));
    for (const [rowid, sim] of similarities(store, unknown, scopes, meaning.query)) meaning.sims.set(rowid, sim);
    for (let i = passed.length - 1; i >= 0; i--) {
      const sim = meaning.sims.get(passed[i]!);
      if (sim !== undefined && sim < SIM_VETO && !scores.get(passed[i]!)!.strong) passed.splice(i, 1);
    }
    const inPassed = new Set(passed);
    for (const [rowid, sim] of meaning.sims) {
      boost.set(rowid, SIM_BOOST * Math.max(0, sim - SIM_BASE) * Math.max(weight, floor, 1));
      if (!inPassed.has(rowid) && meaning.alone.has(rowid)) joined.push(rowid);
    }
  }
  const fused = (r: number) => (scores.get(r)?.score ?? 0) + (boost.get(r) ?? 0);
  if (passed.length) {
    // Best first, in chunks: only the best `max` (and ties at the edge) can make the cut, so a
    // prompt that passes thousands of entries of a large store looks up a few dozen rows.
    const score = (r: number) => scores.get(r)!.score;
    const rounded = (r: number) => Number(score(r).toFixed(9));
    passed.sort((a, b) => score(b) - score(a));
    let best: number | undefined;
    let added = 0;
    for (let i = 0; i < passed.length && added < max; ) {
      let j = Math.min(passed.length, i + Math.max(max, 64));
      const edge = rounded(passed[j - 1]!);
      while (j < passed.length && rounded(passed[j]!) === edge) j++; // ties at the edge come along
      // json_each drives the join: rowid lookups, never a scan of the scope's index.
      const inScope = rowidsInScopes(store, passed.slice(i, j), scopes);
      i = j;
      if (!inScope.length) continue;
      best ??= Math.max(0, ...inScope.map(score)); // the first chunk in scope holds the best
      const kept = inScope.filter((r) => score(r) >= best! * RELATIVE);
      if (!kept.length) break; // best first: nothing later passes either
      for (const r of rowsByRowid(store, kept)) {
        if (byId.has(r.id)) continue;
        byId.set(r.id, toRouted(r, Number(fused(r.rowid).toFixed(9)), false));
        added++;
      }
    }
  }
  for (const r of joined.length ? rowsByRowid(store, rowidsInScopes(store, joined, scopes)) : [])
    if (!byId.has(r.id)) byId.set(r.id, toRouted(r, Number(fused(r.rowid).toFixed(9)), false));
  for (const r of byId.values()) {
    if (r.pathHit) r.score = Number(fused(r.rowid).toFixed(9));
    // Why: the prompt's terms it matched (and through which alternative), its similarity, the path it names.
    const terms = scores.get(r.rowid)?.terms;
    const sim = meaning?.sims.get(r.rowid);
    r.why = {
      ...r.why,
      ...(terms?.length ? { terms } : {}),
      ...(sim === undefined ? {} : { similarity: Number(sim.toFixed(3)) }),
      ...(joined.includes(r.rowid) && !passed.includes(r.rowid) ? { meaning: true } : {}),
    };
  }
  const routed = [...byId.values()];
  if (store.config["ranking.use_prior"] === "on") applyUsePrior(store, routed); // issue 41: bounded, off by default
  return noted(store, routed.sort(compareRouted(order)).slice(0, max));
}

/** `checkedAgainstFiles` for a list of routed entries: the fresh list, without any that could not be checked. */
export function freshRoute<T extends { rowid: number }>(store: Store, route: () => T[]): T[] {
  const { value, stale } = checkedAgainstFiles(store, route, (routed) => routed.map((r) => r.rowid));
  return stale.size ? value.filter((r) => !stale.has(r.rowid)) : value;
}

/** Kinds in the order a session start shows them: what changes how the agent works first. */
const CARD_KINDS = ["convention", "gotcha", "decision", "preference", "todo", "fact", "note"];

/** Session-start cards: this project's most useful entries (among its newest 200), by kind, then newest. */
export function projectCards(store: Store, limit = 30): Card[] {
  if (!store.project) return [];
  return withHeads(store, rankedRecentCards(store, store.project.id, { recent: 200, kinds: CARD_KINDS, limit }));
}

/** Session-start cards: the repository's team lane's most useful entries (among its newest 200), by kind, then newest. */
export function teamCards(store: Store, limit = 30): Card[] {
  if (!store.team?.present) return [];
  return withHeads(store, rankedRecentCards(store, store.team.key, { recent: 200, kinds: CARD_KINDS, limit }));
}

/** Session-start cards: global conventions and preferences, newest first. */
export function globalCards(store: Store, limit = 60): Card[] {
  return withHeads(store, newestEverywhere(store, GLOBAL, limit));
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
  return noted(
    store,
    rowsByIds(store, ids, activeScopes(store))
      .map((r) => ({ ...toRouted(r, 0, false), why: { inherited: true } }))
      .sort(compareRouted(order))
      .filter((r) => !seen.has(r.id) && Boolean(seen.add(r.id))),
  );
}
