/**
 * One background capture pass (what `coffer serve`'s worker runs on its interval): harvest the
 * agents' native memories when their files moved, drain the session-end queue into the inbox, then (when `distill.sweep` is on and a model is configured)
 * distill idle sessions, stopping at the daily token budget. An aborted `signal` (serve shutting down) ends the sweep after the
 * session being distilled.
 */
import { distillFile } from "../distill/distill";
import { readLedger } from "../distill/ledger";
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
    for (const file of selectSweep(sweepPolicy(config), { ledger })) {
      if (opts.signal?.aborted) break;
      const r = await distillFile(file, { config, ledger, via: "sweep" });
      if (r.outcome === "over_budget") {
        report.over_budget = true;
        break;
      }
      if (r.outcome === "distilled") report.distilled++;
      else if (r.outcome === "failed") report.errors.push(`${file.host} ${file.session_id}: ${r.message}`);
      else report.skipped++;
    }
  }
  return report;
}
