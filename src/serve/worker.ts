/**
 * The background worker inside `coffer serve`: on an interval, one distillation pass (drain the
 * session-end queue, then sweep idle transcripts). Passes never overlap; stop() waits for the
 * current one (bounded) so shutdown never cuts a write in half.
 */
import type { WorkerReport } from "../capture/pass";

export type WorkerStatus = { running: boolean; passes: number; last_pass: string | null; last_error: string | null };

export type Worker = { status: () => WorkerStatus; stop: (waitMs?: number) => Promise<void> };

export function startWorker(opts: { intervalMs: number; firstDelayMs?: number; log: (m: string) => void }): Worker {
  const state: WorkerStatus = { running: false, passes: 0, last_pass: null, last_error: null };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let current: Promise<void> | undefined;
  let stopped = false;

  const pass = async () => {
    state.running = true;
    try {
      const { workerPass } = await import("../capture/pass");
      const report: WorkerReport = await workerPass();
      state.passes++;
      state.last_error = report.errors[0] ?? null;
      if (report.observed || report.distilled || report.errors.length) {
        opts.log(
          `worker: observed ${report.observed}, distilled ${report.distilled}, skipped ${report.skipped}${report.errors.length ? `, errors: ${report.errors.join("; ")}` : ""}`,
        );
      }
    } catch (err) {
      state.last_error = (err as Error)?.message ?? String(err);
      opts.log(`worker pass failed: ${(err as Error)?.stack ?? String(err)}`);
    } finally {
      state.running = false;
      state.last_pass = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    }
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = pass().finally(() => {
        current = undefined;
        schedule(opts.intervalMs);
      });
    }, ms);
  };
  schedule(opts.firstDelayMs ?? 2000);

  return {
    status: () => ({ ...state }),
    stop: async (waitMs = 10_000) => {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (current) await Promise.race([current, Bun.sleep(waitMs)]);
    },
  };
}
