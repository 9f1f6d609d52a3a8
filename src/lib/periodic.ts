import { writeErr } from "./output";
/**
 * A task that runs on an interval in the background (serve's worker, auto sync). Runs never
 * overlap: the next one is scheduled when the previous one ends. `stop()` prevents new runs and
 * resolves once the run in progress (if any) has finished, so a caller that awaits it before
 * exiting never cuts a write, a rebase or a push in half. The task gets an AbortSignal that is
 * aborted by stop(): a long task may end early at a safe point. Timers never keep the process alive.
 */

export type Periodic = {
  /** Whether a run is in progress now. */
  running: () => boolean;
  /** No new runs; resolves when the run in progress has finished (at once when none is). */
  stop: () => Promise<void>;
};

export type PeriodicOptions = {
  intervalMs: number;
  /** Delay before the first run (default: intervalMs). */
  firstDelayMs?: number;
  /** Called with anything the task throws (default: written to stderr). The schedule goes on. */
  onError?: (err: unknown) => void;
};

export function startPeriodic(task: (signal: AbortSignal) => Promise<void>, opts: PeriodicOptions): Periodic {
  const abort = new AbortController();
  const onError = opts.onError ?? ((err: unknown) => writeErr(`coffer: ${(err as Error)?.stack ?? String(err)}\n`));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: Promise<void> | undefined;

  const run = async () => {
    try {
      await task(abort.signal);
    } catch (err) {
      onError(err);
    }
  };

  const schedule = (ms: number) => {
    if (abort.signal.aborted) return;
    timer = setTimeout(() => {
      timer = undefined;
      current = run().finally(() => {
        current = undefined;
        schedule(opts.intervalMs);
      });
    }, ms);
    timer.unref?.();
  };
  schedule(opts.firstDelayMs ?? opts.intervalMs);

  return {
    running: () => current !== undefined,
    stop: async () => {
      abort.abort();
      if (timer) clearTimeout(timer);
      timer = undefined;
      await current;
    },
  };
}
