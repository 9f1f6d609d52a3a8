/**
 * The secret scrubber: one place that decides what is a secret, for every way text comes in
 * (transcripts, remember, handoff, rules, inbox, distilled insights, hand-edited files, scan).
 *
 *   scrub(text) -> { text, found: [{ family, count }], redactions }
 *
 * Rules only find spans in the original text; the spans are then merged and each merged span is
 * replaced once by `[redacted]` (or removed, for `<private>` spans). So rules never see each
 * other's output, a value is replaced whole, and overlapping findings count once.
 *
 * Linear time: provider patterns run only when one of their keywords occurs (one keyword pass
 * decides), every pattern starts with a literal behind a left boundary and has bounded repetition,
 * and the generic finders parse bounded windows by hand. Imports nothing outside src/scrub.
 */
import { assignmentSpans } from "./assign";
import { echoSpans, foundValues, knownSecrets } from "./echo";
import { insideBase64, KNOWN_PUBLIC, PROVIDERS, plausibleToken, TOKEN_TAIL } from "./providers";
import {
  bearerSpans,
  commandSpans,
  cookieSpans,
  credentialPairSpans,
  dsnSpans,
  hostNearSpans,
  jwtSpans,
  kubernetesSpans,
  nameValueSpans,
  passFlagSpans,
  pemSpans,
  pgpassSpans,
  prefixedSpans,
  privateSpans,
  puttySpans,
  sqlPasswordSpans,
  urlSpans,
  wordPrefixedSpans,
} from "./structural";
import type { Found, ScrubResult, Span } from "./types";
import { isPlaceholder } from "./values";

export type { Found, ScrubResult } from "./types";

export const REDACTED = "[redacted]";

type Compiled = {
  family: string;
  source: (typeof PROVIDERS)[number];
  /** Built by `expressions` the first time a text holds one of the rule's keywords. */
  res?: { re: RegExp; exact: boolean }[];
  check: (t: string) => boolean;
};

/**
 * A rule's expressions, built on first use: a text turns on a few rules by their keywords, and
 * building every rule's up front cost each scrubbing process about a millisecond (issue 38).
 */
function expressions(rule: Compiled): { re: RegExp; exact: boolean }[] {
  rule.res ??= rule.source.patterns.map((p) => ({
    re: new RegExp(typeof p === "string" ? p : p.exact, rule.source.ci ? "gi" : "g"),
    exact: typeof p !== "string",
  }));
  return rule.res;
}
type Keywords = {
  /** Every keyword once, and the rules each one turns on. */
  list: string[];
  rules: number[][];
  /**
   * Keyword indexes by their first two characters (ASCII: c0 << 7 | c1), then by the third (128:
   * the two-character keywords); one-character keywords apart. `pairs` marks the pairs in use.
   */
  byPair: ((number[] | undefined)[] | undefined)[];
  pairs: Uint8Array;
  single: number[];
};
let compiled: { rules: Compiled[]; keywords: Keywords } | null = null;

function compile() {
  if (compiled) return compiled;
  const rules: Compiled[] = [];
  const byKeyword = new Map<string, number[]>();
  PROVIDERS.forEach((r, i) => {
    rules.push({ family: r.family, source: r, check: r.check ?? plausibleToken });
    for (const k of r.keywords) {
      const list = byKeyword.get(k) ?? [];
      list.push(i);
      byKeyword.set(k, list);
    }
  });
  const keywords: Keywords = { list: [], rules: [], byPair: [], pairs: new Uint8Array(1 << 14), single: [] };
  for (const [k, ruleIds] of byKeyword) {
    const ki = keywords.list.length;
    keywords.list.push(k);
    keywords.rules.push(ruleIds);
    if (k.length === 1) {
      keywords.single.push(ki);
      continue;
    }
    const c0 = k.charCodeAt(0);
    const c1 = k.charCodeAt(1);
    const c2 = k.length > 2 ? k.charCodeAt(2) : 128;
    if (c0 >= 128 || c1 >= 128 || c2 > 128) throw new Error(`provider keyword ${k} is not ASCII`);
    const pair = (c0 << 7) | c1;
    keywords.byPair[pair] ??= [];
    const third = keywords.byPair[pair]!;
    third[c2] ??= [];
    third[c2]!.push(ki);
    keywords.pairs[pair] = 1;
  }
  compiled = { rules, keywords };
  return compiled;
}

/**
 * Which provider rules have a keyword in the text: one pass over the text, looking each position's
 * first three characters up in a table (a long literal alternation as a regex costs ~50x more).
 */
function activeRules(text: string): number[] {
  const { keywords: kw } = compile();
  const found = new Uint8Array(kw.list.length);
  let left = kw.list.length;
  const n = text.length - 1;
  for (let i = 0; i < n && left > 0; i++) {
    const c0 = text.charCodeAt(i);
    if (c0 >= 128) continue;
    const c1 = text.charCodeAt(i + 1);
    if (c1 >= 128) continue;
    const pair = (c0 << 7) | c1;
    if (!kw.pairs[pair]) continue;
    const third = kw.byPair[pair]!;
    const short = third[128];
    if (short)
      for (const ki of short)
        if (!found[ki]) {
          found[ki] = 1;
          left--;
        }
    const c2 = text.charCodeAt(i + 2);
    const long = c2 < 128 ? third[c2] : undefined;
    if (long)
      for (const ki of long)
        if (!found[ki] && text.startsWith(kw.list[ki]!, i)) {
          found[ki] = 1;
          left--;
        }
  }
  for (const ki of kw.single) if (!found[ki] && text.includes(kw.list[ki]!)) found[ki] = 1;
  const active = new Set<number>();
  for (let ki = 0; ki < found.length; ki++) if (found[ki]) for (const r of kw.rules[ki]!) active.add(r);
  return [...active].sort((a, b) => a - b);
}

function providerSpans(text: string, spans: Span[]): void {
  const c = compile();
  for (const i of activeRules(text)) {
    const rule = c.rules[i]!;
    for (const { re, exact } of expressions(rule)) {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
      while ((m = re.exec(text))) {
        const g = m[1];
        let start = m.index;
        let end = m.index + m[0].length;
        if (g !== undefined) {
          start = m.index + m[0].lastIndexOf(g);
          end = start + g.length;
        }
        if (!exact) {
          // a token longer than the pattern allows is still one token
          let k = 0;
          while (end < text.length && k++ < 2048 && TOKEN_TAIL.test(text[end]!)) end++;
        }
        // a rejected token is skipped whole, so a long run of prefixes is looked at once
        if (re.lastIndex < end) re.lastIndex = end;
        if (insideBase64(text, m.index)) continue;
        const value = text.slice(start, end);
        if (/^[#*•]{3}/.test(text.slice(end, end + 3))) continue; // partly masked: xoxp-5723...-####
        if (KNOWN_PUBLIC.has(value) || isPlaceholder(value.replace(/^[A-Za-z0-9]{1,12}[_-]/, ""))) continue;
        if (!exact && !rule.check(value)) continue;
        spans.push({ start, end, family: rule.family, rank: 1 });
      }
    }
  }
}

/** Families whose prefixes are specific enough that a non-matching value is a malformed example. */
const STRICT_PREFIX = new Set(["slack", "settlemint"]);

/**
 * A value that starts with a provider's prefix (`xoxp-`, `sm_pat_`) but matches none of that
 * provider's patterns is a malformed example, not a token (`"token1": "xoxp-1234567890"`). With
 * `anyLong`, every provider prefix of 8+ characters counts (`bedrock-api-key-` and a body that is
 * not one), for values found with less context around them.
 */
export function malformedProviderToken(value: string, anyLong = false): boolean {
  const c = compile();
  strictPrefixes ??= c.keywords.list.flatMap((kw, ki) =>
    /[_.-]$/.test(kw) && (kw.length >= 8 || c.keywords.rules[ki]!.some((i) => STRICT_PREFIX.has(c.rules[i]!.family)))
      ? [
          {
            kw,
            rules: c.keywords.rules[ki]!,
            strict: c.keywords.rules[ki]!.some((i) => STRICT_PREFIX.has(c.rules[i]!.family)),
          },
        ]
      : [],
  );
  for (const { kw, rules, strict } of strictPrefixes) {
    if (!(strict || anyLong) || !value.startsWith(kw)) continue;
    for (const i of rules)
      for (const { re } of expressions(c.rules[i]!)) {
        re.lastIndex = 0;
        const m = re.exec(value);
        if (m && m.index === 0) return false;
      }
    return true;
  }
  return false;
}
let strictPrefixes: { kw: string; rules: number[]; strict: boolean }[] | undefined;

/** Spans of every secret in `text` (unmerged, in no particular order). */
export function findSecrets(text: string): Span[] {
  const spans: Span[] = [];
  if (!text) return spans;
  privateSpans(text, spans);
  pemSpans(text, spans);
  if (text.includes("Private-Lines:")) puttySpans(text, spans);
  providerSpans(text, spans);
  prefixedSpans(text, spans);
  wordPrefixedSpans(text, spans);
  jwtSpans(text, spans);
  urlSpans(text, spans);
  bearerSpans(text, spans);
  dsnSpans(text, spans);
  if (/:(?:\d{1,5}|\*):/.test(text)) pgpassSpans(text, spans);
  kubernetesSpans(text, spans);
  commandSpans(text, spans);
  passFlagSpans(text, spans);
  cookieSpans(text, spans);
  hostNearSpans(text, spans);
  sqlPasswordSpans(text, spans);
  credentialPairSpans(text, spans);
  nameValueSpans(text, spans);
  assignmentSpans(text, spans, malformedProviderToken);
  return spans;
}

/**
 * Replace every secret in `text` with `[redacted]` (and drop `<private>` spans). A value found once
 * is redacted wherever else it occurs in `text` too.
 */
export function scrub(text: string): ScrubResult {
  return scrubTogether([text])[0]!;
}

/**
 * Scrub texts that belong together (the fields of one write, the turns of one transcript): a value
 * found to be a secret in any of them is redacted wherever it occurs in all of them (echo.ts).
 */
export function scrubTogether(texts: readonly string[]): ScrubResult[] {
  const spans = texts.map(findSecrets);
  const values = new Map<string, string>();
  texts.forEach((t, i) => {
    foundValues(t, spans[i]!, values);
  });
  const known = knownSecrets(values);
  return texts.map((t, i) => {
    if (known) echoSpans(t, known, spans[i]!);
    return redact(t, spans[i]!);
  });
}

/**
 * Overlapping (and touching) spans merged, in text order: each group's start, end and the span of
 * the lowest rank, which names its family. Scrubbing replaces each group once; scan counts them.
 */
export function mergedSpans(spans: Span[]): { start: number; end: number; best: Span }[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.rank - b.rank || b.end - a.end);
  const groups: { start: number; end: number; best: Span }[] = [];
  let i = 0;
  while (i < sorted.length) {
    const first = sorted[i]!;
    let end = first.end;
    let best = first;
    let j = i + 1;
    while (j < sorted.length && sorted[j]!.start <= end) {
      const s = sorted[j]!;
      if (s.end > end) end = s.end;
      if (s.rank < best.rank) best = s;
      j++;
    }
    groups.push({ start: first.start, end, best });
    i = j;
  }
  return groups;
}

/** Merge the spans and replace each merged span once. */
function redact(text: string, spans: Span[]): ScrubResult {
  if (!spans.length) return { text, found: [], redactions: 0 };
  const out: string[] = [];
  const counts = new Map<string, number>();
  let pos = 0;
  for (const g of mergedSpans(spans)) {
    const start = Math.max(g.start, pos);
    if (g.end > start) {
      out.push(text.slice(pos, start), g.best.with ?? REDACTED);
      counts.set(g.best.family, (counts.get(g.best.family) ?? 0) + 1);
      pos = g.end;
    }
  }
  out.push(text.slice(pos));
  const found: Found[] = [...counts].map(([family, count]) => ({ family, count }));
  const redactions = found.reduce((n, f) => n + f.count, 0);
  return { text: out.join(""), found, redactions };
}

/** "1 secret (stripe)", "3 secrets (password, jwt)". */
export function describeFound(found: Found[]): string {
  const n = found.reduce((a, f) => a + f.count, 0);
  return `${n} secret${n === 1 ? "" : "s"} (${found.map((f) => f.family).join(", ")})`;
}
