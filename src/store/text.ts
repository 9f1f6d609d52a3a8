/**
 * Text shaping for the FTS index. unicode61 reads a run of CJK characters as one token, so
 * runs are expanded into overlapping bigrams on both sides (index and query): "部署流程" ->
 * "部署 署流 流程", and the query "部署" finds it. English goes through porter stemming.
 */

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
