/**
 * Did the agent use what it was given? (issue 41) A cheap judgement, no model: an entry delivered
 * to a session counts as used when, after the delivery, the agent
 *
 * - fetched it through Coffer's MCP tools (a recall or read whose answer carries its id),
 * - cited its id (the whole id or the 8-character handle the hooks show), or
 * - said or did something with its distinctive content: a path, identifier, command, flag or number
 *   of the entry in its messages or tool inputs (one is enough), or several of its rarer words
 *   (three, and a quarter of them).
 *
 * Distinctive means not everyday words (stopwords, the routing vocabulary's generic and common
 * words) and not what the user's own prompts already held: the agent echoing the user proves nothing.
 * Tool results are not the agent's doing (a file it read may hold anything) and are only read for
 * Coffer's own MCP answers. Nothing here keeps text: a verdict and the kind of evidence, no more.
 */
import { isEverydayWord } from "../retrieval/analysis/text";
import type { Act } from "../transcripts/types";

export type Verdict = "used" | "unused" | "unknown";
/** The evidence behind a verdict (what the Sessions page and `coffer show --json` can tell). */
export type UseWhy = "mcp" | "id" | "content" | "words" | "none" | "no_activity" | "entry_gone" | "no_transcript";
export type UseJudgement = { verdict: Verdict; why: UseWhy };

/** What is judged of an entry: its id and the text that was delivered (title, body, tags). */
export type JudgedEntry = { id: string; title: string; body: string; tags?: readonly string[] };

/** One distinctive term of an entry: `strong` terms (paths, identifiers, commands...) prove use alone. */
export type Term = { text: string; strong: boolean };

/** How many rarer words must come back, and which share of the entry's rarer words at least. */
export const WORDS_NEEDED = 3;
export const WORDS_SHARE = 0.25;

const STOP = new Set(
  (
    "a an and are as at be been but by can could did do does doing for from had has have how i if in into is it its " +
    "just me my no not of on or our should so than that the their them then there these they this those to too us " +
    "was we were what when where which while who why will with would you your also any some all get got use using " +
    "used via etc each every never always only must before after instead other others same here than more most " +
    "less first last next like need needs want wants keep keeps make makes made without within across because " +
    "until unless since does don't doesn't isn't aren't it's that's there's one two three"
  ).split(" "),
);
/** Everyday words: these, and the routing vocabulary's (retrieval/analysis/text.ts, read from its tables, not the 290 KB JSON). */
const everyday = (w: string) => STOP.has(w) || isEverydayWord(w);

/** File names every project has: naming one says little about a particular entry. */
const COMMON_FILES = new Set([
  "package.json",
  "readme.md",
  "tsconfig.json",
  ".gitignore",
  "makefile",
  "dockerfile",
  "cargo.toml",
  "go.mod",
  "pyproject.toml",
  "index.ts",
  "index.js",
  "main.py",
]);

const PATHISH = /(?:~|\.{0,2}\/)?[\w@.+-]+(?:\/[\w@.+-]+)+\/?|\b[\w-]+\.[a-z][a-z0-9]{0,7}\b/gi;
const FLAG = /(?<![\w-])--?[a-z][\w-]*(?:=[^\s`'"]+)?/gi;
const IDENT = /\b[A-Za-z_$][\w$]*(?:[.:][A-Za-z_$][\w$]*)*\b/g;
const NUMBER = /\b\d+(?:\.\d+)+\b|\b\d{3,}\b/g;
const BACKTICK = /`([^`\n]{2,120})`/g;
const WORD = /\p{L}[\p{L}\p{N}'-]*/gu;

/** An identifier as code writes it: camelCase, snake_case, CONSTANT_CASE, dotted or with digits. */
function isCodeIdentifier(w: string): boolean {
  if (w.length < 4) return false;
  if (/[._:$]/.test(w.slice(1, -1))) return /[a-z]/i.test(w.replace(/[._:$]/g, ""));
  if (/[a-z][A-Z]/.test(w)) return true;
  if (/^[A-Z][A-Z0-9]{3,}$/.test(w) && /\d/.test(w)) return true;
  return /[A-Za-z]\d|\d[A-Za-z]/.test(w) && /[a-z]{2}/i.test(w);
}

const lightStem = (w: string) => w.replace(/(?:ies|ing|ed|es|s)$/, "") || w;

/** The distinctive terms of an entry (lowercased), strong ones first, without repeats. */
export function distinctTerms(entry: JudgedEntry): Term[] {
  const text = `${entry.title}\n${entry.body}\n${(entry.tags ?? []).join(" ")}`;
  const strong = new Set<string>();
  const add = (t: string) => {
    const s = t.toLowerCase().replace(/[.,;:)]+$/, "");
    if (s.length >= 3 && !COMMON_FILES.has(s) && !everyday(s)) strong.add(s);
  };
  for (const m of text.matchAll(BACKTICK)) {
    // A command of several words is distinctive as a whole (up to a placeholder such as `<file>`:
    // the agent fills it in); a single word only if it looks like code.
    const span = m[1]!
      .split(/<[^>]*>|…|\.\.\./)[0]!
      .trim()
      .replace(/\s+/g, " ")
      .replace(/[\s'"=]+$/, "");
    if (span.includes(" ") && span.length >= 8) add(span);
  }
  for (const m of text.matchAll(PATHISH)) {
    const p = m[0];
    // "e.g", "i.e" and version numbers are not paths; a URL's host is.
    if (/^\d+(?:\.\d+)+$/.test(p) || /^(?:e\.g|i\.e|etc)\b/i.test(p)) continue;
    if (p.includes("/") || /\.[a-z]{1,5}$/i.test(p)) add(p);
  }
  for (const m of text.matchAll(FLAG)) if (m[0].replace(/^-+/, "").length >= 3) add(m[0]);
  for (const m of text.matchAll(IDENT)) if (isCodeIdentifier(m[0])) add(m[0]);
  // Ports, sizes, versions; not years, which any date in a session repeats.
  for (const m of text.matchAll(NUMBER))
    if ((m[0].length >= 4 || m[0].includes(".")) && !/^(?:19|20)\d\d$/.test(m[0])) add(m[0]);
  const words = new Set<string>();
  for (const m of text.matchAll(WORD)) {
    const w = m[0].toLowerCase().replace(/'s$/, "");
    if (w.length < 4 || everyday(w) || everyday(lightStem(w))) continue;
    if (strong.has(w)) continue;
    words.add(lightStem(w));
  }
  return [
    ...[...strong].map((t) => ({ text: t, strong: true })),
    ...[...words].map((t) => ({ text: t, strong: false })),
  ];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `term` in `text` as a whole token (a path may sit inside a longer path: `/repo/src/x.ts`). */
function hasTerm(text: string, term: string): boolean {
  if (!text.includes(term)) return false;
  return new RegExp(`(?<![\\w-])${escapeRe(term)}(?![\\w])`).test(text);
}

/** The light stems of the words of a text. */
function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(WORD)) {
    const w = m[0].toLowerCase().replace(/'s$/, "");
    if (w.length >= 4) out.add(lightStem(w));
  }
  return out;
}

/** Coffer's MCP tools whose answer hands the agent an entry (the MCP names carry `coffer__`). */
const FETCHES = /coffer__(?:recall|read|show|resume)\b/;

/**
 * Judge one delivery of `entry` at `deliveredAt` (ms; undefined: the session's start) against what
 * the session did. Acts without a time count as after (they cannot be placed).
 */
export function judgeDelivery(entry: JudgedEntry, deliveredAt: number | undefined, acts: Act[]): UseJudgement {
  const after = acts.filter((a) => deliveredAt === undefined || a.at === undefined || a.at >= deliveredAt);
  const id = entry.id.toUpperCase();
  if (after.some((a) => a.kind === "result" && a.tool && FETCHES.test(a.tool) && a.text.toUpperCase().includes(id)))
    return { verdict: "used", why: "mcp" };
  const agent = after.filter((a) => a.kind === "say" || a.kind === "tool");
  if (!agent.length) return { verdict: "unknown", why: "no_activity" };
  const upper = agent.map((a) => a.text.toUpperCase()).join("\n");
  const short = id.slice(-8);
  if (upper.includes(id) || (id.length === 26 && new RegExp(`(?<![A-Z0-9])${short}(?![A-Z0-9])`).test(upper)))
    return { verdict: "used", why: "id" };
  // What the user's prompts held: a term one held by the delivery proves nothing; one a later
  // prompt brings up counts only where the agent said or did it first (it followed the memory,
  // not the user).
  const prompts = acts
    .filter((a) => a.kind === "prompt")
    .map((a) => ({ at: a.at ?? -Infinity, lower: a.text.toLowerCase(), stems: stems(a.text) }));
  const since = deliveredAt ?? Infinity;
  const heard = (has: (p: (typeof prompts)[number]) => boolean) => Math.min(...prompts.filter(has).map((p) => p.at));
  const mine = agent.map((a) => ({ at: a.at ?? -Infinity, lower: a.text.toLowerCase(), stems: stems(a.text) }));
  const first = (has: (p: (typeof prompts)[number]) => boolean, inAct: (a: (typeof mine)[number]) => boolean) => {
    const user = heard(has);
    if (user <= since) return false;
    return mine.some((a) => (a.at === -Infinity || a.at < user) && inAct(a));
  };
  const terms = distinctTerms(entry);
  for (const t of terms)
    if (
      t.strong &&
      first(
        (p) => hasTerm(p.lower, t.text),
        (a) => hasTerm(a.lower, t.text),
      )
    )
      return { verdict: "used", why: "content" };
  const words = terms.filter((t) => !t.strong && heard((p) => p.stems.has(t.text)) > since);
  if (words.length) {
    const hit = words.filter((t) =>
      first(
        (p) => p.stems.has(t.text),
        (a) => a.stems.has(t.text),
      ),
    ).length;
    if (hit >= WORDS_NEEDED && hit >= WORDS_SHARE * words.length) return { verdict: "used", why: "words" };
  }
  return { verdict: "unused", why: "none" };
}
