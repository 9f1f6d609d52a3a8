/**
 * `coffer stats` (and the web UI): what distillation cost and what the hooks injected over a
 * window, from the ledger (tokens per model call) and the hooks' counts in index.db (characters
 * per host and event, deliveries per entry). Token figures for hooks are estimates from
 * characters; for distillation they are what the provider reported unless marked estimated.
 */

import type { Config } from "../config/config";
import { readNativeState } from "../import/harvest";
import { NATIVE_HOSTS } from "../import/native-sources";
import { localDay, localDayOf, nowMs } from "../lib/time";
import {
  createdTimes,
  type DeliveredCount,
  deliveryTotal,
  entriesBySource,
  injectionRows,
  mostDelivered,
  nativeEntryCounts,
  projectForSession,
  type Store,
  UNUSED_MIN,
  type UndeliveredEntry,
  type UnusedEntry,
  type UseCount,
  undelivered,
  unusedEntries,
  usageSince,
  useTotals,
} from "../store";
import { listSessions, sessionHead } from "../transcripts/discovery";
import { type BudgetStatus, budgetStatus } from "./budget";
import { isDistilled, ledgerRecords, readLedger } from "./ledger";
import { describeSettings, estimateTokens, type ModelChoice, resolveModel } from "./model";

/** The window `coffer stats` and the web UI's Stats page show unless asked for another. */
export const STATS_DEFAULT_DAYS = 7;

/** Entries not delivered for this many days are candidates to prune. */
export const STALE_DAYS = 90;

export type ModelSpend = {
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  /** Of input + output, the tokens estimated from characters. */
  estimated_tokens: number;
  /** The price the provider stated for these calls (Claude Code does), in US dollars; absent when none did. */
  cost_usd?: number;
};

export type HostInjection = { host: string; events: number; chars: number; tokens: number };
export type EventInjection = { event: string; events: number; chars: number; tokens: number };

export type Stats = {
  /** The window: from `since` (local day, inclusive) to `until` (today). */
  since: string;
  until: string;
  /** Every local day of the window, oldest first; each `per_day` series has one number per day. */
  days: string[];
  distill: {
    calls: number;
    input_tokens: number;
    output_tokens: number;
    tokens: number;
    estimated_tokens: number;
    by_model: ModelSpend[];
    per_day: number[];
    budget: BudgetStatus;
    /** The model in use now and why (zero configuration, [model], off). */
    model: { label: string | null; source: ModelChoice["source"]; why: string };
  };
  sessions: {
    /** Sessions distilled within the window (each once). */
    distilled: number;
    /** Sessions whose attempts within the window all failed and that were not distilled since. */
    failed: number;
    /** Sessions on disk active within the window, in a git project, not distilled in their current content. */
    pending: number;
  };
  hooks: {
    events: number;
    chars: number;
    /** Estimated from characters (about 4 per token). */
    tokens: number;
    by_host: HostInjection[];
    by_event: EventInjection[];
    per_day: number[];
    /** Entry bodies delivered (each delivery of a body counts one). */
    deliveries: number;
    /** The first day the hooks counted anything (null: not yet). */
    counted_since: string | null;
  };
  entries: {
    /** Entries created within the window, by source. */
    added: Record<string, number>;
    added_total: number;
    per_day: number[];
    most_delivered: DeliveredCount[];
    /** Entries older than STALE_DAYS not delivered in the last STALE_DAYS days (candidates to prune). */
    never_delivered: { days: number; total: number; entries: UndeliveredEntry[] };
  };
  /**
   * Whether the agent used what was delivered (issue 41; all time, not the window): deliveries judged
   * from finished sessions' transcripts (unknown ones left out) and used, per entry and per kind, and
   * the entries delivered at least UNUSED_MIN times and never used.
   */
  use: {
    judged: number;
    used: number;
    by_kind: { kind: string; judged: number; used: number }[];
    entries: UseCount[];
    unused: UnusedEntry[];
  };
  /** What the agents remembered natively and Coffer harvested: per host, all and within the window. */
  native: {
    total: number;
    added: number;
    by_host: Record<string, { total: number; added: number }>;
    /** Originals deleted at their source whose entries Coffer kept. */
    gone: number;
  };
};

const DAY_MS = 86_400_000;

/** The local days from the one `fromMs` falls on to the one `toMs` falls on, inclusive. */
export function daysBetween(fromMs: number, toMs: number): string[] {
  const out: string[] = [];
  const last = localDay(toMs);
  // Step by noon-anchored days so daylight-saving shifts never skip or repeat a day.
  const d = new Date(fromMs);
  let t = new Date(d.getFullYear(), d.getMonth(), d.getDate(), 12).getTime();
  for (let i = 0; i < 4000; i++) {
    const day = localDay(t);
    out.push(day);
    if (day >= last) break;
    t += DAY_MS;
  }
  return out;
}

function series(days: string[], add: (bump: (day: string, n: number) => void) => void): number[] {
  const index = new Map(days.map((d, i) => [d, i]));
  const out = days.map(() => 0);
  add((day, n) => {
    const i = index.get(day);
    if (i !== undefined) out[i]! += n;
  });
  return out;
}

export type StatsOptions = {
  config: Config;
  store: Store;
  /** Length of the window in ms; whole days (7 days) are today and the days before it. */
  windowMs: number;
  now?: number;
  /** How many entries to list as most delivered / never delivered. */
  top?: number;
};

export function collectStats(opts: StatsOptions): Stats {
  const now = opts.now ?? nowMs();
  const top = opts.top ?? 10;
  // Whole days ("7d") mean today and the days before it, from local midnight; hours are exact.
  const fromMs = opts.windowMs % DAY_MS === 0 ? localDayOf(now - opts.windowMs + DAY_MS).start : now - opts.windowMs;
  const days = daysBetween(fromMs, now);
  const since = days[0]!;
  const inWindow = (at: string) => {
    const t = Date.parse(at);
    return !Number.isNaN(t) && t >= fromMs && t <= now;
  };

  // Distillation, from the ledger.
  const ledger = readLedger();
  const records = ledgerRecords(ledger).filter((r) => inWindow(r.at));
  const byModel = new Map<string, ModelSpend>();
  let input = 0;
  let output = 0;
  let estimated = 0;
  let calls = 0;
  for (const r of records) {
    if (!r.model) continue; // no model call (an empty conversation)
    calls++;
    const m = byModel.get(r.model) ?? {
      model: r.model,
      calls: 0,
      input_tokens: 0,
      output_tokens: 0,
      estimated_tokens: 0,
    };
    m.calls++;
    m.input_tokens += r.input_tokens ?? 0;
    m.output_tokens += r.output_tokens ?? 0;
    if (r.tokens_estimated) m.estimated_tokens += (r.input_tokens ?? 0) + (r.output_tokens ?? 0);
    if (typeof r.cost_usd === "number") m.cost_usd = (m.cost_usd ?? 0) + r.cost_usd;
    byModel.set(r.model, m);
    input += r.input_tokens ?? 0;
    output += r.output_tokens ?? 0;
    if (r.tokens_estimated) estimated += (r.input_tokens ?? 0) + (r.output_tokens ?? 0);
  }
  const distillPerDay = series(days, (bump) => {
    for (const r of records) bump(localDay(Date.parse(r.at)), (r.input_tokens ?? 0) + (r.output_tokens ?? 0));
  });

  // Sessions: distilled / failed within the window, pending on disk.
  const lastBySession = new Map<string, { distilled: boolean; failed: boolean }>();
  for (const r of records) {
    const k = `${r.host}\u0000${r.session_id}`;
    const s = lastBySession.get(k) ?? { distilled: false, failed: false };
    if (r.outcome === "distilled") {
      s.distilled = true;
      s.failed = false;
    } else if (r.outcome === "failed" && !s.distilled) s.failed = true;
    lastBySession.set(k, s);
  }
  const sessionValues = [...lastBySession.values()];
  let pending = 0;
  for (const f of listSessions(undefined, fromMs)) {
    if (isDistilled(ledger, f)) continue;
    const head = sessionHead(f);
    if (head.subagent || !projectForSession(head.cwd, head.origin)) continue;
    pending++;
  }

  // Hooks, from their counts.
  const rows = injectionRows(opts.store, since);
  const hostMap = new Map<string, HostInjection>();
  const eventMap = new Map<string, EventInjection>();
  let hookEvents = 0;
  let hookChars = 0;
  for (const r of rows) {
    hookEvents += r.events;
    hookChars += r.chars;
    const h = hostMap.get(r.host) ?? { host: r.host, events: 0, chars: 0, tokens: 0 };
    h.events += r.events;
    h.chars += r.chars;
    hostMap.set(r.host, h);
    const e = eventMap.get(r.event) ?? { event: r.event, events: 0, chars: 0, tokens: 0 };
    e.events += r.events;
    e.chars += r.chars;
    eventMap.set(r.event, e);
  }
  for (const x of [...hostMap.values(), ...eventMap.values()]) x.tokens = estimateTokens(x.chars);
  const hookPerDay = series(days, (bump) => {
    for (const r of rows) bump(r.day, r.chars);
  }).map(estimateTokens);

  // Entries.
  const sinceIso = new Date(fromMs).toISOString().replace(/\.\d{3}Z$/, "Z");
  const added = entriesBySource(opts.store, sinceIso);
  const native = nativeEntryCounts(opts.store, NATIVE_HOSTS, sinceIso);
  const addedPerDay = series(days, (bump) => {
    for (const c of createdTimes(opts.store, sinceIso)) {
      const t = Date.parse(c);
      if (!Number.isNaN(t)) bump(localDay(t), 1);
    }
  });
  const staleSince = localDay(now - STALE_DAYS * DAY_MS);

  return {
    since,
    until: days[days.length - 1]!,
    days,
    distill: {
      calls,
      input_tokens: input,
      output_tokens: output,
      tokens: input + output,
      estimated_tokens: estimated,
      by_model: [...byModel.values()].sort(
        (a, b) => b.input_tokens + b.output_tokens - (a.input_tokens + a.output_tokens),
      ),
      per_day: distillPerDay,
      budget: budgetStatus(opts.config, now),
      model: modelInUse(opts.config),
    },
    sessions: {
      distilled: sessionValues.filter((s) => s.distilled).length,
      failed: sessionValues.filter((s) => s.failed).length,
      pending,
    },
    hooks: {
      events: hookEvents,
      chars: hookChars,
      tokens: estimateTokens(hookChars),
      by_host: [...hostMap.values()].sort((a, b) => b.chars - a.chars),
      by_event: [...eventMap.values()].sort((a, b) => b.chars - a.chars),
      per_day: hookPerDay,
      deliveries: deliveryTotal(opts.store, since),
      counted_since: usageSince(opts.store),
    },
    entries: {
      added,
      added_total: Object.values(added).reduce((n, x) => n + x, 0),
      per_day: addedPerDay,
      most_delivered: mostDelivered(opts.store, since, top),
      never_delivered: { days: STALE_DAYS, ...undelivered(opts.store, staleSince, top) },
    },
    use: { ...useTotals(opts.store, top), unused: unusedEntries(opts.store, UNUSED_MIN, top) },
    native: {
      total: Object.values(native).reduce((n, x) => n + x.total, 0),
      added: Object.values(native).reduce((n, x) => n + x.added, 0),
      by_host: native,
      gone: Object.keys(readNativeState().gone).length,
    },
  };
}

function modelInUse(config: Config): Stats["distill"]["model"] {
  const choice = resolveModel(config);
  return { label: choice.settings ? describeSettings(choice.settings) : null, source: choice.source, why: choice.why };
}
