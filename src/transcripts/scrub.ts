/**
 * The size budgets for conversations, and `scrubText`, the transcript-side name for the one
 * scrubber (src/scrub): every text is scrubbed before it is sent to a model or stored anywhere.
 */
import { type Found, REDACTED, scrub, scrubTogether } from "../scrub/index";
import type { Turn } from "./types";

export { REDACTED };
export const MESSAGE_MAX = 2000;
export const CONVERSATION_BUDGET = 12000;

export type Scrubbed = { text: string; redactions: number; found: Found[] };

/** Replace every secret in `text` with [redacted] and drop `<private>` spans. */
export function scrubText(text: string): Scrubbed {
  const r = scrub(text);
  return { text: r.text, redactions: r.redactions, found: r.found };
}

/**
 * Scrub the turns of one conversation together: a secret found in one turn (the key the user
 * pasted) is redacted in every turn (the agent echoing it back, bare).
 */
export function scrubTexts(texts: readonly string[]): Scrubbed[] {
  return scrubTogether(texts).map((r) => ({ text: r.text, redactions: r.redactions, found: r.found }));
}

/** Cut one message to `max` characters. */
export function cutMessage(text: string, max = MESSAGE_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

export type Budgeted = { turns: Turn[]; omitted: number; omittedAt: number };

/**
 * Fit the conversation into `budget` characters (counting each turn's text plus a small
 * per-turn overhead for its label), keeping the start (about a third) and the most recent turns.
 */
export function fitBudget(turns: Turn[], budget = CONVERSATION_BUDGET, overhead = 16): Budgeted {
  const cost = (t: Turn) => t.text.length + overhead;
  const total = turns.reduce((n, t) => n + cost(t), 0);
  if (total <= budget) return { turns, omitted: 0, omittedAt: -1 };
  const head: Turn[] = [];
  let used = 0;
  const headBudget = Math.floor(budget / 3);
  let i = 0;
  for (; i < turns.length; i++) {
    const c = cost(turns[i]!);
    if (used + c > headBudget && head.length > 0) break;
    if (used + c > budget) break;
    head.push(turns[i]!);
    used += c;
  }
  const tail: Turn[] = [];
  for (let j = turns.length - 1; j >= i; j--) {
    const c = cost(turns[j]!);
    if (used + c > budget) break;
    tail.unshift(turns[j]!);
    used += c;
  }
  const omitted = turns.length - head.length - tail.length;
  return { turns: [...head, ...tail], omitted, omittedAt: omitted > 0 ? head.length : -1 };
}
