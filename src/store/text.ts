/**
 * Text shaping for the FTS index. unicode61 reads a run of CJK characters as one token, so
 * runs are expanded into overlapping bigrams on both sides (index and query): "部署流程" ->
 * "部署 署流 流程", and the query "部署" finds it. English goes through porter stemming.
 */

import { loadNeighbours, type Neighbour, neighbours } from "./thesaurus";
import { vocabularyTables } from "./vocabulary-index" with { type: "macro" };

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const CJK_ONE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function bigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length === 1) return chars;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  return out;
}

/** The text stored in the FTS table for a field. */
export function ftsText(text: string): string {
  if (!CJK_ONE.test(text)) return text;
  return text.replace(CJK_RUN, (run) => ` ${bigrams(run).join(" ")} `);
}

const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does doing for from had has have how i if in into is it its " +
    "just me my no not of on or our please should so than that the their them then there these they this those to " +
    "too us was we were what when where which while who why will with would you your yours let lets make sure about " +
    "also any some all get got use using used via vs etc ok okay hi hello thanks thank"
  ).split(" "),
);

export type QueryTerm = { text: string; cjk: boolean };

/** Meaningful terms of a query or prompt: words (stopwords dropped) and CJK runs, deduplicated. */
export function queryTerms(query: string, max = 32): QueryTerm[] {
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  const add = (text: string, cjk: boolean) => {
    if (!seen.has(text) && out.length < max) {
      seen.add(text);
      out.push({ text, cjk });
    }
  };
  const words: string[] = [];
  const normalized = query.normalize("NFKC").toLowerCase();
  for (const m of normalized.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const token = m[0];
    if (CJK_ONE.test(token)) {
      // Split mixed runs: Latin parts are words, CJK runs are phrases.
      let last = 0;
      for (const c of token.matchAll(CJK_RUN)) {
        if (c.index! > last) words.push(token.slice(last, c.index));
        add(c[0], true);
        last = c.index! + c[0].length;
      }
      if (last < token.length) words.push(token.slice(last));
    } else words.push(token);
  }
  const meaningful = words.filter((w) => w.length > 1 && !STOPWORDS.has(w) && !/^\d{1,2}$/.test(w));
  for (const w of meaningful.length ? meaningful : words.filter((w) => w.length > 1)) add(w, false);
  return out;
}

function quote(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** An FTS5 MATCH expression: any of the terms (BM25 ranks documents matching more of them higher). */
export function matchExpression(terms: QueryTerm[]): string | undefined {
  const parts = terms.map((t) => {
    if (!t.cjk) return quote(t.text);
    const grams = bigrams(t.text);
    // A single CJK character only matches as the start of a bigram (or a lone character).
    return grams.length === 1 && Array.from(t.text).length === 1 ? `${quote(t.text)}*` : quote(grams.join(" "));
  });
  return parts.length ? parts.join(" OR ") : undefined;
}

/** The single token a row carries in the FTS `scope` column: "sglobal" or "s<project id>". */
export function scopeToken(scope: string): string {
  return `s${scope.toLowerCase()}`;
}

/** Restrict a MATCH expression to one scope and to the searchable columns. */
export function scopedMatch(scope: string, match: string): string {
  return `scope:${scopeToken(scope)} AND {title tags body}:(${match})`;
}

// ---------------------------------------------------------------------------------------------
// Prompt routing terms: light stemming, the generic-word gate and the coding vocabulary.

/**
 * A light English stem for comparing words (plural and -ed/-ing endings): deploys, deployed,
 * deploying -> deploy; caches -> cache; dependencies -> dependency. Only ever compared with
 * another stem; the index itself stems with porter.
 */
/** Words whose -ing or -ed is not an inflection (setting is not "set", string is not "str"). */
const KEEP_ENDING = new Set(
  "setting string spring thing morning evening nothing something anything everything during ceiling sibling wedding bed red need seed feed speed embed shed".split(
    " ",
  ),
);

export function stem(word: string): string {
  let w = word.toLowerCase();
  const n = w.length;
  if (n <= 3) return w;
  // Plain string tests, no regular expressions: a hook stems a few hundred words cold.
  if (n > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ches") || w.endsWith("shes") || w.endsWith("xes") || w.endsWith("zes")) return w.slice(0, -2);
  // ...and their singulars the same way: cache/caches/cached -> cach, size/sizes -> siz.
  if (w.endsWith("che") || w.endsWith("she") || w.endsWith("xe") || w.endsWith("ze")) return w.slice(0, -1);
  if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is") && !w.endsWith("os")) {
    w = w.slice(0, -1);
  }
  if (KEEP_ENDING.has(w)) return w;
  const cut = w.endsWith("ing") ? 3 : w.endsWith("ed") ? 2 : 0;
  if (!cut || w.length - cut < 3) return w;
  const base = w.slice(0, -cut);
  // running -> run, stopped -> stop (but not "call", "pass": l and s double in the base word)
  const last = base[base.length - 1]!;
  if (last === base[base.length - 2] && !"aeiouls".includes(last)) return base.slice(0, -1);
  return base;
}

type Vocabulary = {
  stop: Set<string>;
  generic: Set<string>;
  /** Two-letter words that are still topics (ci, db, ui). */
  short: Set<string>;
  /** Stems of everyday English words: weaker evidence of a topic than their rarity suggests. */
  common: Set<string>;
  /** Openings of a general-knowledge question, and words that tie a prompt to the project (as word sequences). */
  general: string[][];
  project: string[][];
  /** Words a question starts with, and words an edit instruction starts with. */
  question: Set<string>;
  instruction: Set<string>;
  /** Expansions of a one-word trigger, and of a phrase (words joined by one space). */
  single: (key: string) => string[] | undefined;
  phrases: (key: string) => string[] | undefined;
  longest: number;
};
let vocabulary: Vocabulary | undefined;
/**
 * The macro's tables, made once per process. A `let`: from a `const` the bundler would copy the
 * literal into every place that reads it, and rebuild a whole table on every lookup.
 */
let tables: ReturnType<typeof vocabularyTables> | undefined;

/**
 * A trigger's expansions, from the macro's tables: `table` holds "<trigger>\t<groups>" lines in
 * buckets by the trigger's hash, `groups` one line of tab-separated expansions per group.
 * Several groups merge, the earlier first.
 */
function lookup(groups: string[], table: string[], key: string): string[] | undefined {
  const bucket = table[Bun.hash.crc32(key) % table.length];
  if (!bucket) return undefined;
  const line = bucket.split("\n").find((l) => l.length > key.length && l[key.length] === "\t" && l.startsWith(key));
  if (!line) return undefined;
  const lists = line
    .slice(key.length + 1)
    .split(",")
    .map((i) => groups[Number(i)]?.split("\t") ?? []);
  return lists.length === 1 ? lists[0] : [...new Set(lists.flat())];
}

/**
 * The vocabulary, parsed once per process on first use from the tables vocabulary-index.ts built
 * at bundle time (triggers already merged, phrases apart). Nothing is stemmed here (a hook runs
 * cold); lookups try a prompt word as written, then its stem, so the lists name the forms people write.
 */
function vocab(): Vocabulary {
  if (vocabulary) return vocabulary;
  tables ??= vocabularyTables();
  const data = tables;
  // Word sequences, split like prompts are ("what's a" -> what, s, a); no regular expression to
  // compile (a case-insensitive Unicode alternation costs milliseconds on a cold start).
  const sequences = (list: string[]) => list.map((p) => p.split(/[^a-z0-9]+/).filter(Boolean));
  const groups = data.groups.split("\n");
  vocabulary = {
    stop: STOPWORDS,
    generic: new Set(data.generic),
    short: new Set(data.short),
    common: new Set(data.common),
    general: sequences(data.general),
    project: sequences(data.project),
    question: new Set(data.question),
    instruction: new Set(data.instruction),
    single: (key) => lookup(groups, data.single, key),
    phrases: (key) => lookup(groups, data.phrases, key),
    longest: data.longest,
  };
  return vocabulary;
}

/** A prompt's words (letters, digits, underscores), lowercase, from its first 2,000 characters. */
const promptWords = (prompt: string): string[] =>
  prompt
    .slice(0, 2000)
    .toLowerCase()
    .match(/[\p{L}\p{N}_]+/gu) ?? [];

/**
 * A general-knowledge question ("what is a decorator?", "explain what a goroutine is") that says
 * nothing of the project (no "we", "our", "this repo", ...): memory has nothing to add to it.
 */
export function isGeneralQuestion(prompt: string): boolean {
  const v = vocab();
  const words = promptWords(prompt);
  const has = (seqs: string[][]) => seqs.some((seq) => words.some((_, i) => seq.every((w, k) => words[i + k] === w)));
  return has(v.general) && !has(v.project);
}

/**
 * Whether a prompt asks something ("which database do we use?", "how do we release") rather
 * than instructs ("convert this to a dataclass"): it ends in a question mark or starts with a
 * question word. A question about the project is what memory answers, even in other words.
 */
export function isQuestion(prompt: string): boolean {
  const text = prompt.slice(0, 2000).trim();
  if (text.endsWith("?")) return true;
  const first = /^[\p{L}]+/u.exec(text.toLowerCase())?.[0];
  return first !== undefined && vocab().question.has(first);
}

/**
 * Whether a prompt points at code in front of the user: "this" or "these" and a word that is not
 * the project ("why is this LaunchedEffect running twice", "what does this regex match"; but
 * "this repo", "this app" are the project: vocabulary "project"). Such a question is about the
 * code at hand, not something the team decided.
 */
export function pointsAtCode(prompt: string): boolean {
  const v = vocab();
  const words = promptWords(prompt);
  return words.some(
    (w, i) =>
      (w === "this" || w === "these") &&
      words[i + 1] !== undefined &&
      !v.project.some((seq) => seq.length === 2 && seq[0] === "this" && seq[1] === words[i + 1]),
  );
}

/**
 * Whether a prompt is an edit instruction ("add a field to the bookings response", "make the
 * invoice list show 50 rows"): it starts with an instruction word and is not a question. Its
 * words mostly name the code at hand, so a match must explain more of it.
 */
export function isInstruction(prompt: string): boolean {
  if (isQuestion(prompt)) return false;
  const first = /^[\p{L}]+/u.exec(prompt.slice(0, 200).trim().toLowerCase())?.[0];
  return first !== undefined && vocab().instruction.has(first);
}

/**
 * One thing a prompt is about: its own words (a word or a phrase), the words entries may use
 * instead (the vocabulary's), its learned neighbours (where the vocabulary has nothing for it, and
 * only once `loadLearned` read them), and whether it is an everyday English word (weaker evidence
 * of a topic).
 */
export type TermGroup = {
  text: string;
  cjk: boolean;
  alternatives: string[];
  learned?: Neighbour[];
  common?: boolean;
};

/**
 * Read the learned thesaurus's rows for a prompt's words (as written and stemmed), so that
 * `promptGroups` offers their neighbours. Not called: no learned neighbours (`routing.learned`).
 */
export async function loadLearned(prompt: string): Promise<void> {
  const words = promptWords(prompt.slice(0, 8000).normalize("NFKC")).filter((w) => w.length > 2 && !STOPWORDS.has(w));
  await loadNeighbours(words.flatMap((w) => [w, stem(w)]));
}

/**
 * The specific content of a prompt, as term groups: phrases the vocabulary knows ("package
 * manager", "ship to production") first, then the remaining words minus stopwords and generic
 * words (2+ letters, or with a digit), CJK runs as bigrams. An empty result means the prompt has
 * no specific content. At most `max` groups.
 */
export function promptGroups(prompt: string, max = 24): TermGroup[] {
  const v = vocab();
  const out: TermGroup[] = [];
  const seen = new Set<string>();
  const add = (text: string, cjk: boolean, alternatives: string[] = [], common = false, learned?: Neighbour[]) => {
    if (seen.has(text) || out.length >= max) return;
    seen.add(text);
    out.push({
      text,
      cjk,
      alternatives: alternatives.filter((a) => a !== text),
      ...(learned?.length ? { learned } : {}),
      ...(common ? { common } : {}),
    });
  };
  const normalized = prompt.slice(0, 8000).normalize("NFKC").toLowerCase();
  const tokens: { word: string; cjk: boolean }[] = [];
  for (const m of normalized.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const token = m[0];
    if (!CJK_ONE.test(token)) {
      tokens.push({ word: token, cjk: false });
      continue;
    }
    let last = 0;
    for (const c of token.matchAll(CJK_RUN)) {
      if (c.index! > last) tokens.push({ word: token.slice(last, c.index), cjk: false });
      tokens.push({ word: c[0], cjk: true });
      last = c.index! + c[0].length;
    }
    if (last < token.length) tokens.push({ word: token.slice(last), cjk: false });
  }
  // Vocabulary phrases, longest first, over the plain word sequence.
  const used = new Array<boolean>(tokens.length).fill(false);
  const stems = tokens.map((t) => (t.cjk ? "" : stem(t.word)));
  for (let n = v.longest; n >= 2; n--) {
    for (let i = 0; i + n <= tokens.length; i++) {
      if (used.slice(i, i + n).some(Boolean) || tokens.slice(i, i + n).some((t) => t.cjk)) continue;
      const adds =
        v.phrases(
          tokens
            .slice(i, i + n)
            .map((t) => t.word)
            .join(" "),
        ) ?? v.phrases(stems.slice(i, i + n).join(" "));
      if (!adds) continue;
      for (let k = i; k < i + n; k++) used[k] = true;
      add(
        tokens
          .slice(i, i + n)
          .map((t) => t.word)
          .join(" "),
        false,
        adds,
      );
    }
  }
  tokens.forEach((t, i) => {
    if (used[i]) return;
    if (t.cjk) {
      const chars = Array.from(t.word);
      if (chars.length === 1) return;
      for (let k = 0; k + 1 < chars.length; k++) add(chars[k]! + chars[k + 1]!, true);
      return;
    }
    const w = t.word;
    const s = stems[i]!;
    const known = (set: Set<string>) => set.has(w) || set.has(s);
    if (known(v.stop) || known(v.generic) || !/\p{L}/u.test(w)) return;
    if (w.length < 3 && !v.short.has(w) && !(/\d/.test(w) && /\p{L}/u.test(w))) return;
    // The hand-written vocabulary wins where it speaks; learned neighbours fill in where it does not.
    const alternatives = v.single(w) ?? v.single(s);
    add(w, false, alternatives ?? [], known(v.common), alternatives ? undefined : (neighbours(w) ?? neighbours(s)));
  });
  return out;
}
