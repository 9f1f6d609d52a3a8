import type { Config } from "../store/config";
import { isSyncRepo, memoryDir } from "./git";

export type AutoSyncOptions = {
  /** Override `sync.interval_minutes` (tests). */
  intervalMs?: number;
  /** Delay before the first sync (default 10 s, so serve starts without waiting on the network). */
  firstDelayMs?: number;
  /** Where results and errors go (default stderr). */
  log?: (message: string) => void;
};

/**
 * Start periodic sync inside `coffer serve` when `[sync] auto = true`. Returns a stop function.
 * Errors are logged (and recorded in state/sync.json for `coffer status`), never thrown; runs never overlap.
 */
export function startAutoSync(config: Config, opts: AutoSyncOptions = {}): () => void {
  if (config["sync.auto"] !== true) return () => {};
  const log = opts.log ?? ((m: string) => process.stderr.write(`coffer: ${m}\n`));
  const intervalMs = opts.intervalMs ?? Number(config["sync.interval_minutes"] ?? 15) * 60_000;
  let running = false;
  let stopped = false;
  let warnedOff = false;

  const tick = async () => {
    if (running || stopped) return;
    if (!isSyncRepo(memoryDir())) {
      if (!warnedOff) log("auto sync is on but sync is not set up; run `coffer sync --init <remote-url>`");
      warnedOff = true;
      return;
    }
    running = true;
    try {
      const { runSync, summarize } = await import("./sync");
      const report = await runSync({ interactive: false });
      if (report.committed || report.received.commits || report.pushed || report.conflicts.length) {
        log(`auto sync: ${summarize(report)}`);
        for (const c of report.conflicts) log(`auto sync: ${c.resolution}`);
      }
    } catch (err) {
      log(`auto sync failed: ${(err as Error).message}`);
    } finally {
      running = false;
    }
  };

  const first = setTimeout(() => void tick(), opts.firstDelayMs ?? 10_000);
  const timer = setInterval(() => void tick(), intervalMs);
  // Timers alone never keep serve alive.
  first.unref?.();
  timer.unref?.();
  return () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(timer);
  };
}
