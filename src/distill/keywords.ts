/**
 * Write-time expansion for routing: a model lists, per entry, the other words people use for its
 * topic (synonyms, the tools it names by category, the question it answers). They are stored as
 * `keywords:` and indexed like tags, so a paraphrase reaches the entry at hook time without any
 * model call there. One call covers a batch of entries.
 */
import {
  type Entry,
  KEYWORD_MAX_CHARS,
  KEYWORD_MAX_WORDS,
  KEYWORDS_MAX,
  type Located,
  replaceEntryText,
  type Store,
  serializeEntry,
} from "../store";
import { scrubTexts } from "../transcripts/scrub";
import { checkBudget, OUTPUT_ALLOWANCE_TOKENS } from "./budget";
import { complete } from "./complete";
import { type CallOptions, estimateTokens, ModelError, type ModelSettings, type Usage } from "./model";

export const KEYWORDS_BATCH = 20;

export const KEYWORDS_SYSTEM = [
  "You help a developer's memory tool find notes when the developer words a question differently.",
  `For each numbered note, give up to ${KEYWORDS_MAX} short keywords (one to three words each, lowercase) that someone`,
  "might type when they need that note but do not use its words: synonyms, the general category of the tools it names",
  '(e.g. "database" for PostgreSQL, "package manager" for pnpm), and the question it answers.',
  "Do not repeat words already in the note's title. No sentences.",
  'Answer with JSON only: {"keywords": [["...", "..."], ...]} with one list per note, in order.',
].join("\n");

export type KeywordItem = Pick<Entry, "title" | "body" | "tags">;

export function keywordsPrompt(items: KeywordItem[]): string {
  return items
    .map((e, i) => {
      const body = e.body.length > 600 ? `${e.body.slice(0, 600)}…` : e.body;
      return `${i + 1}. ${e.title}${e.tags.length ? ` [${e.tags.join(", ")}]` : ""}\n${body}`;
    })
    .join("\n\n");
}

/**
 * Clean one keyword list: strings, trimmed, lowercase, short, deduplicated, at most KEYWORDS_MAX.
 * A keyword is scrubbed before it is lowercased (`AKIAQ3…` lowercased is a token no rule knows), and
 * one that held a secret is dropped.
 */
export function cleanKeywords(raw: unknown, title = ""): string[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  const lowTitle = title.toLowerCase();
  const out: string[] = [];
  const strings = raw.filter((k): k is string => typeof k === "string" && k.length <= KEYWORD_MAX_CHARS * 4);
  const scrubbed = scrubTexts(strings);
  for (const [i, k] of strings.entries()) {
    if (scrubbed[i]!.redactions) continue;
    const w = k.replace(/\s+/g, " ").trim().toLowerCase();
    if (!w || w.length > KEYWORD_MAX_CHARS || w.split(" ").length > KEYWORD_MAX_WORDS || seen.has(w) || lowTitle === w)
      continue;
    if (!/^[\p{L}\p{N}][\p{L}\p{N} ._/+#-]*$/u.test(w)) continue;
    seen.add(w);
    out.push(w);
    if (out.length >= KEYWORDS_MAX) break;
  }
  return out;
}

/**
 * The model's answer as one keyword list per item ([] where it gave none or something unusable
 * for that item). An answer that holds no list of lists at all is a ModelError ("malformed"), as
 * for `distill`.
 */
export function parseKeywords(text: string, items: KeywordItem[]): string[][] {
  const m = /[[{][\s\S]*[\]}]/.exec(text);
  let lists: unknown;
  try {
    const parsed = JSON.parse(m ? m[0] : text);
    lists = Array.isArray(parsed) ? parsed : (parsed as { keywords?: unknown })?.keywords;
  } catch {
    lists = undefined;
  }
  if (!Array.isArray(lists))
    throw new ModelError(
      "malformed",
      `the model's answer is not a JSON list of keyword lists (it began: ${JSON.stringify(text.trim().slice(0, 80))})`,
    );
  return items.map((item, i) => cleanKeywords(lists[i], item.title));
}

/** One model call for up to KEYWORDS_BATCH items. */
export async function writeKeywords(
  settings: ModelSettings,
  items: KeywordItem[],
  opts: CallOptions = {},
): Promise<{ keywords: string[][]; usage: Usage }> {
  const res = await complete(settings, KEYWORDS_SYSTEM, keywordsPrompt(items), opts);
  try {
    return { keywords: parseKeywords(res.text, items), usage: res.usage };
  } catch (err) {
    if (err instanceof ModelError) err.usage = res.usage; // a malformed answer is still paid for
    throw err;
  }
}

export type EnrichResult = { enriched: number; tokens: number; error?: string };

/**
 * Give entries keywords, one model call per KEYWORDS_BATCH of them, and rewrite their files
 * (validated and re-indexed like an edit). Stops at the first failed call, or when the call would
 * pass `distill.daily_token_budget`: what is left keeps working without keywords, and `coffer
 * enrich` adds them later.
 */
export async function enrichEntries(
  store: Store,
  settings: ModelSettings,
  hits: Located[],
  opts: CallOptions = {},
): Promise<EnrichResult> {
  let enriched = 0;
  let tokens = 0;
  for (let i = 0; i < hits.length; i += KEYWORDS_BATCH) {
    const batch = hits.slice(i, i + KEYWORDS_BATCH);
    const prompt = keywordsPrompt(batch.map((h) => h.entry));
    const needed = estimateTokens(KEYWORDS_SYSTEM.length + prompt.length) + OUTPUT_ALLOWANCE_TOKENS;
    const budget = checkBudget(store.config, needed);
    if (!budget.ok) return { enriched, tokens, error: budget.message };
    let keywords: string[][];
    try {
      const res = await writeKeywords(
        settings,
        batch.map((h) => h.entry),
        opts,
      );
      keywords = res.keywords;
      tokens += res.usage.input_tokens + res.usage.output_tokens;
    } catch (err) {
      if (err instanceof ModelError) return { enriched, tokens, error: err.message };
      throw err;
    }
    batch.forEach((hit, k) => {
      const words = keywords[k] ?? [];
      if (!words.length) return;
      replaceEntryText(store, hit, serializeEntry({ ...hit.entry, keywords: words }), hit.entry.actor);
      enriched++;
    });
  }
  return { enriched, tokens };
}
