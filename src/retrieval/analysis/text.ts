/**
 * Text shaping for the FTS index. unicode61 reads a run of CJK characters as one token, so
 * runs are expanded into overlapping bigrams on both sides (index and query): "部署流程" ->
 * "部署 署流 流程", and the query "部署" finds it. English goes through porter stemming.
 */

import { irregularForms } from "./irregular";
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

const STOPWORDS = wordList(
  (
    "a an and are as at be been but by can could did do does doing for from had has have how i if in into is it its " +
    "just me my no not of on or our please should so than that the their them then there these they this those to " +
    "too us was we were what when where which while who why will with would you your yours let lets make sure about " +
    "also any some all get got use using used via vs etc ok okay hi hello thanks thank " +
    // pronouns, determiners and auxiliaries that never name a topic
    "he him his she her hers herself himself itself myself ourselves themselves yourself yourselves theirs ours " +
    "whom am being having each few own such very both once further during until"
  ).split(" "),
);

/** A set of words that is one string ("\n<word>\n<word>\n"): no set to build on a cold start. */
type WordSet = { has(word: string): boolean };
function wordSet(list: string): WordSet {
  return { has: (word) => word !== "" && !word.includes("\n") && list.includes(`\n${word}\n`) };
}
function wordList(words: string[]): WordSet {
  return wordSet(`\n${words.join("\n")}\n`);
}

/** The single token a row carries in the FTS `scope` column: "sglobal" or "s<project id>". */
export function scopeToken(scope: string): string {
  return `s${scope.toLowerCase()}`;
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
  stop: WordSet;
  generic: WordSet;
  /** Two-letter words that are still topics (ci, db, ui). */
  short: WordSet;
  /** Stems of everyday English words: weaker evidence of a topic than their rarity suggests. */
  common: WordSet;
  /** Openings of a general-knowledge question, and words that tie a prompt to the project (as word sequences). */
  general: string[][];
  project: string[][];
  /** Words a question starts with, and words an edit instruction starts with. */
  question: WordSet;
  instruction: WordSet;
  /** Expansions of a one-word trigger, and of a phrase (words joined by one space). */
  single: (key: string) => string[] | undefined;
  phrases: (key: string) => string[] | undefined;
  /** Whether a phrase is this run of words, or starts with it (a run of two words or more). */
  isPhrase: (key: string) => boolean;
  startsPhrase: (key: string) => boolean;
  longest: number;
};
let vocabulary: Vocabulary | undefined;
/**
 * The macro's tables, made once per process. A `let`: from a `const` the bundler would copy the
 * literal into every place that reads it, and rebuild a whole table on every lookup.
 */
let tables: ReturnType<typeof vocabularyTables> | undefined;

type Parts = { text: string; offsets: number[] };

/** Part `i` of a table of the macro's. */
const part = (t: Parts, i: number) => t.text.slice(t.offsets[i], t.offsets[i + 1]);

/** The bucket of a lookup table of the macro's that `key` falls in ("" when empty). */
const bucketOf = (t: Parts, key: string) => part(t, Bun.hash.crc32(key) % (t.offsets.length - 1));

/**
 * A trigger's expansions, from the macro's tables: `table` holds "<trigger>\t<groups>" lines in
 * buckets by the trigger's hash (each bucket between line breaks), `groups` one line of
 * tab-separated expansions per group. Several groups merge, the earlier first.
 */
function lookup(groups: Parts, table: Parts, key: string): string[] | undefined {
  const bucket = bucketOf(table, key);
  const at = bucket.indexOf(`\n${key}\t`);
  if (at < 0) return undefined;
  const from = at + key.length + 2;
  const lists = bucket
    .slice(from, bucket.indexOf("\n", from))
    .split(",")
    .map((i) => {
      const g = Number(i);
      return g >= 0 && g < groups.offsets.length - 1 ? part(groups, g).split("\t") : [];
    });
  return lists.length === 1 ? lists[0] : [...new Set(lists.flat())];
}

/** Whether a table of the macro's holds `key`. */
const holds = (table: Parts, key: string) => bucketOf(table, key).includes(`\n${key}\t`);

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
  const groups = data.groups;
  vocabulary = {
    stop: STOPWORDS,
    generic: wordSet(data.generic),
    short: wordSet(data.short),
    common: wordSet(data.common),
    general: sequences(data.general),
    project: sequences(data.project),
    question: wordSet(data.question),
    instruction: wordSet(data.instruction),
    single: (key) => lookup(groups, data.single, key),
    phrases: (key) => lookup(groups, data.phrases, key),
    isPhrase: (key) => holds(data.phrases, key),
    startsPhrase: (key) => holds(data.starts, key),
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
  const words = promptWords(prompt);
  return holdsPhrase(words, vocab().general) && !holdsPhrase(words, vocab().project);
}

/** Whether `words` hold one of the phrases (each a word sequence) in a row. */
const holdsPhrase = (words: string[], phrases: string[][]) =>
  phrases.some((seq) => words.some((_, i) => seq.every((w, k) => words[i + k] === w)));

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

/** Words in a prompt (as the question and instruction checks read them). */
export function wordCount(prompt: string): number {
  return promptWords(prompt).length;
}

/**
 * An everyday word: a stopword, or one of the vocabulary's generic coding words ("fix", "file") or
 * common English words ("open", "costs"). Lowercase `word`, as written (no stemming here).
 */
export function isEverydayWord(word: string): boolean {
  const v = vocab();
  return v.stop.has(word) || v.generic.has(word) || v.common.has(word);
}

/** Whether a prompt speaks of the project or the team ("we", "our", "this repo"): vocabulary "project". */
export function mentionsProject(prompt: string): boolean {
  return holdsPhrase(promptWords(prompt), vocab().project);
}

/** Whether a prompt names a code identifier: `LOG_INF`, `useEffect`, `HttpClient` (snake, camel or Pascal case with two humps). */
export function namesIdentifier(prompt: string): boolean {
  return /\b(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)\b/.test(
    prompt.slice(0, 2000),
  );
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
  const text = prompt.slice(0, 2000).trim().toLowerCase();
  const first = /^[\p{L}]+/u.exec(text)?.[0];
  if (first !== undefined && vocab().instruction.has(first)) return true;
  // "the merchant name is cut off in the header, widen it": an instruction after a comma, semicolon or colon.
  for (const m of text.matchAll(/[,;:]\s*(?:(?:and|then|so|please)\s+)?(\p{L}+)/gu))
    if (vocab().instruction.has(m[1]!)) return true;
  return false;
}

/**
 * Another word an entry may use for one of the query's words: where it comes from (`source`:
 * "vocabulary" for the coding vocabulary, "inflection" for an irregular verb's other forms; another
 * source adds its own label) and how much a match through it counts against the word itself (0..1).
 */
export type Alternative = { text: string; source: string; weight: number };

/**
 * Where alternatives come from, in order: each is asked for a word (as written and its light
 * stem) or a phrase, and answers with weighted alternatives. The vocabulary is the first; another
 * source plugs in through `analyzeQuery`'s `sources` option (or by joining this list).
 */
export type AlternativeSource = {
  name: string;
  /** Alternatives for a single word (`word` as written, `stem` its light stem). */
  word(word: string, stem: string): Alternative[] | undefined;
  /** Alternatives for a phrase of 2+ words (as written, and as stems joined by one space). */
  phrase(words: string, stems: string): Alternative[] | undefined;
  /** The longest phrase it knows, in words. */
  longest(): number;
  /**
   * How many of `words` (a prompt's words from one on, as written, with their light stems) a
   * phrase it knows may span from the first: longer runs from there are not looked up. Without
   * it, any run may be a phrase.
   */
  reach?(words: string[], stems: string[]): number;
};

const asAlternatives = (list: string[] | undefined, source: string): Alternative[] | undefined =>
  list?.map((text) => ({ text, source, weight: 1 }));

/** The coding vocabulary (vocabulary.json): database -> postgres, "package manager" -> pnpm, ... */
const VOCABULARY_SOURCE: AlternativeSource = {
  name: "vocabulary",
  word: (w, s) => asAlternatives(vocab().single(w) ?? vocab().single(s), "vocabulary"),
  phrase: (w, s) => asAlternatives(vocab().phrases(w) ?? vocab().phrases(s), "vocabulary"),
  longest: () => vocab().longest,
  reach: (words, stems) => {
    const v = vocab();
    let n = 1;
    while (n < words.length) {
      const w = words.slice(0, n + 1).join(" ");
      const s = stems.slice(0, n + 1).join(" ");
      if (v.startsPhrase(w) || v.startsPhrase(s)) n++;
      else {
        if (v.isPhrase(w) || v.isPhrase(s)) n++;
        break;
      }
    }
    return n;
  },
};

/** An irregular verb's other forms (irregular.ts): what a stemmer would join if it could. */
const INFLECTION_SOURCE: AlternativeSource = {
  name: "inflection",
  // Everyday forms (got, gone, kept) would find everything: only forms the vocabulary does not
  // count as function, generic or common words are offered.
  word: (w) =>
    asAlternatives(
      irregularForms(w)?.filter((f) => !vocab().stop.has(f) && !vocab().generic.has(f) && !vocab().common.has(f)),
      "inflection",
    ),
  phrase: () => undefined,
  longest: () => 1,
  reach: () => 1,
};

const SOURCES: AlternativeSource[] = [INFLECTION_SOURCE, VOCABULARY_SOURCE];

/**
 * One thing a query is about: its own words (`text`, a word or a phrase), the words entries may
 * use instead, and hints for weighing it: an everyday English word (`common`, weaker evidence of
 * a topic), a phrase a source knows (`phrase`), a single CJK character (`prefix`: it matches as
 * the start of a bigram).
 */
export type TermGroup = {
  text: string;
  cjk: boolean;
  alternatives: Alternative[];
  common?: boolean;
  phrase?: boolean;
  prefix?: boolean;
};

/**
 * What the analysis is for. `route` (the prompt hook): only a prompt's specific content, so
 * generic coding words ("fix", "rename"), stopwords and short words go. `recall` (a question
 * someone chose to ask): every word but function words, numbers and single CJK characters included.
 */
export type Purpose = "route" | "recall";

/** Function words that still name something in a search ("make release", "use pnpm"). */
const RECALL_KEEP = new Set(["make", "use", "used", "using", "get", "got", "set"]);

/** The tokens of a query: words and CJK runs, in order (NFKC, lowercase, first 8,000 characters). */
function tokens(query: string): { word: string; cjk: boolean }[] {
  const out: { word: string; cjk: boolean }[] = [];
  const normalized = query.slice(0, 8000).normalize("NFKC").toLowerCase();
  for (const m of normalized.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const token = m[0];
    if (!CJK_ONE.test(token)) {
      out.push({ word: token, cjk: false });
      continue;
    }
    // Mixed runs: Latin parts are words, CJK runs are phrases.
    let last = 0;
    for (const c of token.matchAll(CJK_RUN)) {
      if (c.index! > last) out.push({ word: token.slice(last, c.index), cjk: false });
      out.push({ word: c[0], cjk: true });
      last = c.index! + c[0].length;
    }
    if (last < token.length) out.push({ word: token.slice(last), cjk: false });
  }
  return out;
}

/**
 * The one query analysis every reader shares (the prompt hook's routing, and recall on the CLI,
 * MCP, HTTP and the web UI): term groups of a query. Phrases a source knows ("package manager",
 * "ship to production") come first, each with its alternatives; then the remaining words, each
 * with the alternatives of the word or its light stem; CJK runs as bigrams. Which words count
 * depends on `purpose` (see Purpose). An empty result means the query has no content to match.
 * At most `max` groups.
 */
export function analyzeQuery(
  query: string,
  purpose: Purpose,
  opts: { max?: number; sources?: AlternativeSource[] } = {},
): TermGroup[] {
  const v = vocab();
  const max = opts.max ?? 24;
  const sources = opts.sources ? [...SOURCES, ...opts.sources] : SOURCES;
  const out: TermGroup[] = [];
  const seen = new Set<string>();
  const add = (group: TermGroup) => {
    if (seen.has(group.text) || out.length >= max) return;
    seen.add(group.text);
    group.alternatives = merge(group.alternatives).filter((a) => a.text !== group.text);
    out.push(group);
  };
  const toks = tokens(query);
  // Phrases, longest first, over the plain word sequence.
  const used = new Array<boolean>(toks.length).fill(false);
  const stems = toks.map((t) => (t.cjk ? "" : stem(t.word)));
  const longest = Math.max(1, ...sources.map((s) => s.longest()));
  // Looking up every run of two to `longest` words costs a cold hook milliseconds: from each
  // word, only runs some source's phrase may span are looked up.
  const reach = toks.map((_, i) => {
    let end = i;
    while (end < toks.length && end - i < longest && !toks[end]!.cjk) end++;
    const words = toks.slice(i, end).map((t) => t.word);
    const run = stems.slice(i, end);
    return words.length < 2 ? 1 : Math.max(...sources.map((s) => s.reach?.(words, run) ?? words.length));
  });
  for (let n = longest; n >= 2; n--) {
    for (let i = 0; i + n <= toks.length; i++) {
      if (n > reach[i]! || used.slice(i, i + n).some(Boolean) || toks.slice(i, i + n).some((t) => t.cjk)) continue;
      const words = toks
        .slice(i, i + n)
        .map((t) => t.word)
        .join(" ");
      const stemmed = stems.slice(i, i + n).join(" ");
      const adds = sources.flatMap((s) => s.phrase(words, stemmed) ?? []);
      if (!adds.length) continue;
      for (let k = i; k < i + n; k++) used[k] = true;
      add({ text: words, cjk: false, alternatives: adds, phrase: true });
    }
  }
  const recall = purpose === "recall";
  toks.forEach((t, i) => {
    if (used[i]) return;
    if (t.cjk) {
      const chars = Array.from(t.word);
      if (chars.length === 1) {
        if (recall) add({ text: t.word, cjk: true, alternatives: [], prefix: true });
        return;
      }
      for (let k = 0; k + 1 < chars.length; k++) add({ text: chars[k]! + chars[k + 1]!, cjk: true, alternatives: [] });
      return;
    }
    const w = t.word;
    const s = stems[i]!;
    const known = (set: WordSet) => set.has(w) || set.has(s);
    if (recall) {
      if (w.length < 2 && !/\d/.test(w)) return;
      if (known(v.stop) && !RECALL_KEEP.has(w)) return;
    } else {
      if (known(v.stop) || known(v.generic) || !/\p{L}/u.test(w)) return;
      if (w.length < 3 && !v.short.has(w) && !(/\d/.test(w) && /\p{L}/u.test(w))) return;
    }
    const alternatives: Alternative[] = [];
    for (const src of sources) alternatives.push(...(src.word(w, s) ?? []));
    add({ text: w, cjk: false, alternatives, ...(known(v.common) ? { common: true } : {}) });
  });
  // A query made only of function words ("what is this") still asks for them in recall.
  if (recall && !out.length)
    for (const t of toks) if (!t.cjk && t.word.length > 1) add({ text: t.word, cjk: false, alternatives: [] });
  return out;
}

/** One alternative per text (the heaviest, the earlier source on a tie), in first-seen order. */
function merge(list: Alternative[]): Alternative[] {
  const byText = new Map<string, Alternative>();
  for (const a of list) {
    const prev = byText.get(a.text);
    if (!prev || a.weight > prev.weight) byText.set(a.text, a);
  }
  return [...byText.values()];
}
