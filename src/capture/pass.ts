/**
 * One background capture pass (what `coffer serve`'s worker runs on its interval): harvest the
 * agents' native memories when their files moved, drain the session-end queue into the inbox, then
 * (when `distill.sweep` is on and a model is configured) distill idle sessions, stopping at the
 * daily token budget and at a failure of the model itself (then later passes wait:
 * `sweepBackoff`). An aborted `signal` (serve shutting down) ends the sweep after the session
 * being distilled.
 */
import { distillFile } from "../distill/distill";
import { type Backoff, readLedger, stopsSweep, sweepBackoff } from "../distill/ledger";
import { modelSettings } from "../distill/model";
import type { HarvestReport } from "../import/harvest";
import { type Config, loadConfig } from "../store/config";
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
};

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

export async function workerPass(opts: { signal?: AbortSignal } = {}): Promise<WorkerReport> {
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
  if (config["distill.sweep"] === true && modelSettings(config)) {
    const ledger = readLedger();
    const backoff = sweepBackoff(ledger);
    if (backoff) report.backoff = backoff;
    for (const file of backoff ? [] : selectSweep(sweepPolicy(config), { ledger })) {
      if (opts.signal?.aborted) break;
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
