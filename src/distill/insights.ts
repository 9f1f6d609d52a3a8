/**
 * The model's answer, validated: a JSON array of `{kind, title, body}` (code fences stripped,
 * invalid items dropped, at most 8). Anything that is not such an array is malformed output.
 */
import * as v from "valibot";
import { KEYWORD_MAX_CHARS, KEYWORDS_MAX } from "../store";
import { ModelError } from "./model";

export const INSIGHT_KINDS = ["decision", "gotcha", "convention", "todo"] as const;
export const INSIGHTS_MAX = 8;

const text = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));

/** An entry id as the model was shown it (ULID-like); anything else is ignored, not fatal. */
const entryRef = v.optional(
  v.pipe(
    v.unknown(),
    v.transform((x) => (typeof x === "string" && /^[0-9A-Za-z]{8,40}$/.test(x.trim()) ? x.trim() : undefined)),
  ),
);

export const InsightSchema = v.object({
  kind: v.picklist(INSIGHT_KINDS),
  title: text(80),
  body: text(1000),
  /** The existing entry (listed with the transcript) this insight replaces. */
  supersedes: entryRef,
  /** An existing entry this insight contradicts without the session settling it: for a person. */
  contradicts: entryRef,
  /** For every contributor to the repository: proposed for the team lane. Anything but `true` is false. */
  team: v.optional(
    v.pipe(
      v.unknown(),
      v.transform((x) => x === true),
    ),
  ),
  /**
   * Other words for the topic (for routing); anything unusable is dropped, never the insight. Kept
   * as written (only strings, bounded): the writer scrubs them with the other fields before
   * cleanKeywords lowercases them.
   */
  keywords: v.optional(
    v.pipe(
      v.unknown(),
      v.transform((x) =>
        Array.isArray(x)
          ? x
              .filter((k): k is string => typeof k === "string" && k.length <= KEYWORD_MAX_CHARS * 4)
              .slice(0, 4 * KEYWORDS_MAX)
          : [],
      ),
    ),
  ),
});
export type Insight = v.InferOutput<typeof InsightSchema>;

export type ParsedInsights = { insights: Insight[]; dropped: number };

/** The JSON inside a reply: fences removed, or the outermost [...] when prose surrounds it. */
function jsonPart(reply: string): string {
  let t = reply.trim();
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(t);
  if (fence) t = fence[1]!.trim();
  if (!t.startsWith("[") && !t.startsWith("{")) {
    const start = t.indexOf("[");
    const end = t.lastIndexOf("]");
    if (start >= 0 && end > start) t = t.slice(start, end + 1);
  }
  return t;
}

/**
 * Keep `supersedes`/`contradicts` only for ids that were shown to the model (a model can invent
 * ids); an insight that names both supersedes (it settled the question).
 */
export function checkReferences(insights: Insight[], shown: ReadonlySet<string>): Insight[] {
  return insights.map((ins) => {
    const out: Insight = { kind: ins.kind, title: ins.title, body: ins.body };
    if (ins.keywords?.length) out.keywords = ins.keywords;
    if (ins.team) out.team = true;
    if (ins.supersedes && shown.has(ins.supersedes)) out.supersedes = ins.supersedes;
    else if (ins.contradicts && shown.has(ins.contradicts)) out.contradicts = ins.contradicts;
    return out;
  });
}

export function parseInsights(reply: string): ParsedInsights {
  let doc: unknown;
  try {
    doc = JSON.parse(jsonPart(reply));
  } catch {
    throw new ModelError(
      "malformed",
      `the model's answer is not a JSON array of insights (it began: ${JSON.stringify(reply.trim().slice(0, 80))})`,
    );
  }
  // Some models wrap the list: {"insights": [...]}.
  if (
    doc &&
    typeof doc === "object" &&
    !Array.isArray(doc) &&
    Array.isArray((doc as { insights?: unknown }).insights)
  ) {
    doc = (doc as { insights: unknown[] }).insights;
  }
  if (!Array.isArray(doc)) throw new ModelError("malformed", "the model's answer is JSON but not an array of insights");
  const insights: Insight[] = [];
  let dropped = 0;
  for (const item of doc) {
    const r = v.safeParse(InsightSchema, item);
    if (r.success && insights.length < INSIGHTS_MAX) insights.push(r.output);
    else dropped++;
  }
  if (doc.length > 0 && insights.length === 0) {
    throw new ModelError(
      "malformed",
      `none of the model's ${doc.length} items is a valid insight ({kind: decision|gotcha|convention|todo, title <= 80, body <= 1000})`,
    );
  }
  return { insights, dropped };
}
