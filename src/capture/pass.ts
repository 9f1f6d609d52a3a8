/**
 * One background capture pass (what `coffer serve`'s worker runs on its interval, and the
 * background sweep a session-start hook starts): harvest the agents' native memories when their
 * files moved, drain the session-end queue into the inbox, then (unless the sweep is turned off, and
 * when a model is available) distill idle sessions, at most `distill.max_sessions_per_sweep`,
 * stopping at the daily token budget and at a failure of the model itself (then later passes wait:
 * `sweepBackoff`). An aborted `signal` (serve shutting down) ends the sweep after the session
 * being distilled. `sweepPass` runs it under the sweep lock (one sweep at a time) and records it.
 */

import { type Config, loadConfig } from "../config/config";
import { type Backoff, readLedger, stopsSweep, sweepBackoff } from "../distill/ledger";
import { resolveModel } from "../distill/model";
import { distillFile } from "../distill/session";
import type { HarvestReport } from "../import/harvest";
import { closeStore, openStore } from "../store";
import { holdSweep, type SweepResult, type SweepVia, sweepOffReason } from "./background";
import { observeQueue } from "./observe";
import { readQueue } from "./queue";
import { selectSweep, sweepPolicy } from "./sweep";

export type WorkerReport = {
  /** Native memories the harvest added or updated (Claude auto memory, Gemini, Codex). */
  harvested: number;
  observed: number;
  distilled: number;
  skipped: number;
  errors: string[];
  /** The sweep stopped at the daily token budget (it resumes the next day). */
  over_budget?: boolean;
  /** The model failed in a row (logged out, rate limited, missing...): the sweep waits until then. */
  backoff?: Backoff;
  /** Why no session was distilled: the sweep is off, or no model is available. */
  not_distilling?: string;
  /** Deliveries whose use was judged from finished sessions (issue 41; no model needed). */
  judged?: number;
};

/** Judge the use of what finished sessions were given (capture/use-pass.ts): no model, so before the distillation. */
async function judgeUse(config: Config): Promise<number> {
  const { usePass } = await import("./use-pass");
  const store = openStore({ config, freshness: "none", notice: () => {} });
  try {
    return usePass(store, config).judged;
  } finally {
    closeStore(store);
  }
}

/**
 * What the agents remembered natively since the last pass, harvested into their projects (nothing
 * to do, and no manifest, when their files did not move). Off with `native_memory.harvest = false`.
 */
export async function harvestPass(
  config: Config,
  opts: { cwd?: string; hosts?: readonly string[] } = {},
): Promise<HarvestReport | undefined> {
  if (!config["native_memory.harvest"]) return undefined;
  const { sweepNative } = await import("../import/harvest");
  return await sweepNative({ cwd: opts.cwd ?? process.cwd(), hosts: opts.hosts ? [...opts.hosts] : undefined });
}

export async function workerPass(
  opts: { signal?: AbortSignal /** Before each session: false stops the sweep. */; keepGoing?: () => boolean } = {},
): Promise<WorkerReport> {
  const config = loadConfig();
  const report: WorkerReport = { harvested: 0, observed: 0, distilled: 0, skipped: 0, errors: [] };
  try {
    const h = await harvestPass(config);
    report.harvested = (h?.created ?? 0) + (h?.updated ?? 0);
  } catch (err) {
    report.errors.push(`native memory: ${(err as Error).message}`);
  }
  if (readQueue().length && !opts.signal?.aborted) {
    try {
      const obs = observeQueue({ config });
      report.observed = obs.results.filter((r) => r.outcome === "stored").length;
      report.skipped += obs.skipped;
    } catch (err) {
      report.errors.push(`observe: ${(err as Error).message}`);
    }
  }
  if (!opts.signal?.aborted) {
    try {
      const judged = await judgeUse(config);
      if (judged) report.judged = judged;
    } catch (err) {
      report.errors.push(`use: ${(err as Error).message}`);
    }
  }
  const off = sweepOffReason(config);
  const model = off ? undefined : resolveModel(config);
  if (off || !model?.settings) report.not_distilling = off ? `the sweep is off (${off})` : `no model: ${model?.why}`;
  else {
    const ledger = readLedger();
    const backoff = sweepBackoff(ledger);
    if (backoff) report.backoff = backoff;
    for (const file of backoff ? [] : selectSweep(sweepPolicy(config), { ledger })) {
      if (opts.signal?.aborted || opts.keepGoing?.() === false) break;
      const r = await distillFile(file, { config, ledger, via: "sweep" });
      if (r.outcome === "over_budget") {
        report.over_budget = true;
        break;
      }
      if (r.outcome === "distilled") report.distilled++;
      else if (r.outcome === "failed") {
        report.errors.push(`${file.host} ${file.session_id}: ${r.message}`);
        // The model itself is unusable (logged out, rate limited, missing): the rest would fail alike.
        if (stopsSweep(r.error)) break;
      } else report.skipped++;
    }
  }
  return report;
}

/** What a finished pass did, as `state/sweep.json` keeps it. */
export function sweepResult(r: WorkerReport): SweepResult {
  return {
    harvested: r.harvested,
    observed: r.observed,
    distilled: r.distilled,
    skipped: r.skipped,
    errors: r.errors,
    ...(r.over_budget ? { over_budget: true } : {}),
    ...(r.backoff ? { backoff_until: r.backoff.until } : {}),
    ...(r.not_distilling ? { not_distilling: r.not_distilling } : {}),
  };
}

/**
 * `workerPass` under the sweep lock, recorded in `state/sweep.json`: `coffer serve`'s worker and
 * the background sweep. `busy` (the holder's pid, when known) when another sweep is running;
 * `gone` when COFFER_HOME vanished (nothing more is written then).
 */
export async function sweepPass(
  via: SweepVia,
  opts: { signal?: AbortSignal; handoff?: number } = {},
): Promise<{ report: WorkerReport } | { busy: number | undefined } | { gone: true }> {
  const hold = holdSweep(via, opts.handoff);
  if ("busy" in hold || "gone" in hold) return hold;
  let report: WorkerReport | undefined;
  try {
    if (!hold.keepGoing()) return { gone: true };
    report = await workerPass({ signal: opts.signal, keepGoing: hold.keepGoing });
    return hold.keepGoing() ? { report } : { gone: true };
  } catch (err) {
    report = {
      harvested: 0,
      observed: 0,
      distilled: 0,
      skipped: 0,
      errors: [`sweep failed: ${(err as Error)?.message ?? String(err)}`],
    };
    throw err;
  } finally {
    hold.release(report && sweepResult(report));
  }
}
