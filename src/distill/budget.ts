import { join } from "node:path";
import type { Config } from "../config/config";
import { writeFileAtomic } from "../lib/atomic";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";
import { thousands as fmt, isoNow, type LocalDay, localDayOf, nowMs } from "../lib/time";
import { ledgerRecords, readLedger, recordTokens } from "./ledger";
import { estimateTokens, modelLabel, modelSettings } from "./model";
import { SYSTEM_PROMPT } from "./prompt";

/** Room kept for the answer when estimating a session's cost before sending it. */
export const OUTPUT_ALLOWANCE_TOKENS = 500;

export type BudgetStatus = {
  /** The local day the figures are for, YYYY-MM-DD. */
  day: string;
  /** Tokens per day; 0 means no limit. */
  budget: number;
  /** Tokens spent distilling today (input + output), estimates included. */
  spent: number;
  /** Of `spent`, the part estimated from characters (the provider reported no usage). */
  estimated: number;
  /** Tokens left today; null without a limit. */
  remaining: number | null;
  /** A sweep stopped today because the next session would have gone over the budget. */
  paused: boolean;
  /** When it stopped, and how many tokens the session it stopped at needed. */
  paused_at: string | null;
  needed: number | null;
  /** When the sweep goes on by itself (the next local midnight), when paused. */
  resumes_at: string | null;
  /** One line for `coffer status` and the web UI. */
  summary: string;
};

type StopNote = { day: string; at: string; spent: number; budget: number; needed: number };

const stateFile = () => join(paths.state(), "distill-budget.json");

function readStop(): StopNote | undefined {
  try {
    const n = JSON.parse(readOwnText(stateFile())) as StopNote;
    return typeof n.day === "string" && typeof n.at === "string" ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Tokens the ledger records for a local day (total, and the estimated part). */
function spentOn(day: LocalDay): { spent: number; estimated: number } {
  let spent = 0;
  let estimated = 0;
  for (const r of ledgerRecords(readLedger())) {
    const t = Date.parse(r.at);
    if (Number.isNaN(t) || t < day.start || t >= day.end) continue;
    const n = recordTokens(r);
    spent += n;
    if (r.tokens_estimated) estimated += n;
  }
  return { spent, estimated };
}

/** Today's budget, spend and whether the sweep is paused (what `coffer status` and the web UI show). */
export function budgetStatus(config: Config, now = nowMs()): BudgetStatus {
  const today = localDayOf(now);
  const day = today.day;
  const budget = config["distill.daily_token_budget"];
  const { spent, estimated } = spentOn(today);
  const stop = readStop();
  const paused = budget > 0 && stop?.day === day && spent + stop.needed > budget;
  const resumes = paused ? isoNow(new Date(today.end)) : null;
  const est = estimated ? ` (${fmt(estimated)} estimated)` : "";
  const summary =
    budget === 0
      ? `${fmt(spent)} tokens distilling today${est}; no daily budget (distill.daily_token_budget = 0)`
      : paused
        ? `paused: ${fmt(spent)} of ${fmt(budget)} tokens spent today${est}; the next session needs about ${fmt(stop!.needed)}. The sweep resumes tomorrow (${resumes}); coffer distill run <session> --force goes ahead now`
        : `${fmt(spent)} of ${fmt(budget)} tokens spent today${est}`;
  return {
    day,
    budget,
    spent,
    estimated,
    remaining: budget > 0 ? Math.max(0, budget - spent) : null,
    paused,
    paused_at: paused ? stop!.at : null,
    needed: paused ? stop!.needed : null,
    resumes_at: resumes,
    summary,
  };
}

/** What sending `text` is expected to cost: the system prompt and the text, plus room for the answer. */
export function estimateSession(text: string): number {
  return estimateTokens(SYSTEM_PROMPT.length + text.length) + OUTPUT_ALLOWANCE_TOKENS;
}

export type BudgetCheck = { ok: true } | { ok: false; spent: number; budget: number; needed: number; message: string };

/**
 * May a session expected to cost `needed` tokens be sent now? When not, the stop is noted (the
 * sweep is paused for the rest of the day) and the message says what to do.
 */
export function checkBudget(config: Config, needed: number, now = nowMs()): BudgetCheck {
  const budget = config["distill.daily_token_budget"];
  if (budget === 0) return { ok: true };
  const today = localDayOf(now);
  const day = today.day;
  const { spent } = spentOn(today);
  if (spent + needed <= budget) return { ok: true };
  const prev = readStop();
  if (prev?.day !== day || prev.needed !== needed || prev.spent !== spent) {
    const note: StopNote = { day, at: isoNow(new Date(now)), spent, budget, needed };
    try {
      writeFileAtomic(stateFile(), `${JSON.stringify(note)}\n`, 0o600);
    } catch {} // the note only feeds status; the stop itself does not depend on it
  }
  return {
    ok: false,
    spent,
    budget,
    needed,
    message: `daily token budget reached: ${fmt(spent)} of ${fmt(budget)} tokens spent today, this session needs about ${fmt(needed)}; it waits until tomorrow (distill.daily_token_budget), or run it now with --force`,
  };
}

/** The distillation budget as `coffer status` and the web UI show it, with the configured model. */
export type DistillBudget = BudgetStatus & { model: string | null };

/** Today's token spend against `distill.daily_token_budget`, whether the sweep is paused, and the model. */
export function distillBudget(config: Config): DistillBudget {
  const m = modelSettings(config);
  return { ...budgetStatus(config), model: m ? modelLabel(m) : null };
}
