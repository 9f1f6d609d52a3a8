/**
 * From a parsed transcript to the conversation that may leave the parser: machine paths folded,
 * secrets scrubbed, each message cut, the whole fitted into the budget. Everything that is sent
 * to a model or stored (inbox traces) goes through `prepareConversation` first.
 */
import { homeDir } from "../lib/paths";
import type { Found } from "../scrub/index";
import { mergeFound } from "../scrub/write";
import { stripInjectionLines } from "./clean";
import { CONVERSATION_BUDGET, cutMessage, fitBudget, MESSAGE_MAX, scrubTexts } from "./scrub";
import type { Turn } from "./types";

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
