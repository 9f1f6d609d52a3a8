import type { Config } from "../config/config";
import { writeErr } from "../lib/output";
import { type Periodic, startPeriodic } from "../lib/periodic";
import { isSyncRepo, memoryDir } from "./git";

export type AutoSyncOptions = {
  /** Override `sync.interval_minutes` (tests). */
  intervalMs?: number;
  /** Delay before the first sync (default 10 s, so serve starts without waiting on the network). */
  firstDelayMs?: number;
  /** Where results and errors go (default stderr). */
  log?: (message: string) => void;
};

/** What startAutoSync returns when `sync.auto` is off: nothing runs, stop() resolves at once. */
const IDLE: Periodic = { running: () => false, stop: async () => {} };

/**
 * Start periodic sync inside `coffer serve` when `[sync] auto = true`. Errors are logged (and
 * recorded in state/sync.json for `coffer status`), never thrown; runs never overlap; `stop()`
 * resolves after the sync in progress has finished (a commit, rebase or push is never cut short).
 */
export function startAutoSync(
  config: Pick<Config, "sync.auto" | "sync.interval_minutes">,
  opts: AutoSyncOptions = {},
): Periodic {
  if (config["sync.auto"] !== true) return IDLE;
  const log = opts.log ?? ((m: string) => writeErr(`coffer: ${m}\n`));
  let warnedOff = false;

  const syncOnce = async () => {
    if (!isSyncRepo(memoryDir())) {
      if (!warnedOff) log("auto sync is on but sync is not set up; run `coffer sync --init <remote-url>`");
      warnedOff = true;
      return;
    }
    try {
      const { runSync, summarize } = await import("./sync");
      const report = await runSync({ interactive: false });
      if (report.committed || report.received.commits || report.pushed || report.conflicts.length) {
        log(`auto sync: ${summarize(report)}`);
        for (const c of report.conflicts) log(`auto sync: ${c.resolution}`);
      }
    } catch (err) {
      log(`auto sync failed: ${(err as Error).message}`);
    }
  };

  return startPeriodic(syncOnce, {
    intervalMs: opts.intervalMs ?? config["sync.interval_minutes"] * 60_000,
    firstDelayMs: opts.firstDelayMs ?? 10_000,
    onError: (err) => log(`auto sync failed: ${(err as Error)?.message ?? String(err)}`),
  });
}
