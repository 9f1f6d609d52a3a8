/**
 * From a parsed transcript to the conversation that may leave the parser: machine paths folded,
 * secrets scrubbed, each message cut, the whole fitted into the budget. Everything that is sent
 * to a model or stored (inbox traces) goes through `prepareConversation` first.
 */
import { homeDir } from "../lib/paths";
import type { Found } from "../scrub/index";
import { mergeFound } from "../scrub/write";
import { stripInjectionLines } from "./clean";
import { scrubTexts } from "./scrub";
import type { Turn } from "./types";

/** A message is cut at this many characters, and a conversation sent to the model at this many. */
export const MESSAGE_MAX = 2000;
export const CONVERSATION_BUDGET = 12000;

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

export type PreparedConversation = {
  turns: Turn[];
  /** Turns left out in the middle to fit the budget, and where they were. */
  omitted: number;
  omittedAt: number;
  redactions: number;
  /** The secrets scrubbed, per family (their total is `redactions`). */
  found: Found[];
  removed_lines: number;
};

export type PrepareOptions = { budget?: number; messageMax?: number; stripInjection?: boolean };

/** The user's home directory written as "~": machine paths need not leave the machine. */
export function foldHome(text: string): string {
  const home = homeDir().replace(/\/+$/, "");
  return home.length > 1 && text.includes(home) ? text.split(home).join("~") : text;
}

export function prepareConversation(turns: Turn[], opts: PrepareOptions = {}): PreparedConversation {
  let redactions = 0;
  let found: Found[] = [];
  let removed = 0;
  const cleaned: Turn[] = [];
  // all turns at once: a secret found in one turn goes from every turn
  const scrubbed = scrubTexts(turns.map((t) => foldHome(t.text)));
  for (const [i, t] of turns.entries()) {
    const s = scrubbed[i]!;
    redactions += s.redactions;
    if (s.redactions) found = mergeFound(found, s.found);
    let text = s.text;
    if (opts.stripInjection) {
      const r = stripInjectionLines(text);
      removed += r.removed;
      text = r.text;
    }
    text = cutMessage(text, opts.messageMax ?? MESSAGE_MAX);
    if (text.trim()) cleaned.push({ role: t.role, text, ...(t.at ? { at: t.at } : {}) });
  }
  const fit = fitBudget(cleaned, opts.budget ?? CONVERSATION_BUDGET);
  return {
    turns: fit.turns,
    omitted: fit.omitted,
    omittedAt: fit.omittedAt,
    redactions,
    found,
    removed_lines: removed,
  };
}
