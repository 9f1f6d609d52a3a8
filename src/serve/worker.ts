/**
 * The background worker inside `coffer serve`: on an interval, one capture pass (drain the
 * session-end queue, then sweep idle transcripts) under the sweep lock, so it never runs beside a
 * background sweep or `coffer distill sweep`. Passes never overlap; stop() asks the pass in
 * progress to end after the session it is distilling and waits for it, so shutdown never cuts a
 * write in half.
 */
import { type Periodic, startPeriodic } from "../lib/periodic";

export type WorkerStatus = { running: boolean; passes: number; last_pass: string | null; last_error: string | null };

export type Worker = { status: () => WorkerStatus; stop: () => Promise<void> };

export function startWorker(opts: { intervalMs: number; firstDelayMs?: number; log: (m: string) => void }): Worker {
  const state: WorkerStatus = { running: false, passes: 0, last_pass: null, last_error: null };

  const pass = async (signal: AbortSignal) => {
    state.running = true;
    try {
      // The full walk of memory/ (freshness.ts): an in-place hand edit that the CLI's quick check
      // did not sample is indexed within one interval while the server runs.
      const { walkAllScopes, withOpenStore } = await import("../store/store");
      await withOpenStore({ freshness: "none", notice: opts.log }, walkAllScopes);
      // Staleness (store/stale.ts): the projects checked on this machine, against their checkouts.
      const { checkKnownProjects } = await import("../store/stale");
      const stale = await withOpenStore({ freshness: "none", notice: opts.log }, checkKnownProjects);
      const flagged = stale.reduce((n, r) => n + r.stale.length, 0);
      if (flagged)
        opts.log(`worker: ${flagged} stale ${flagged === 1 ? "entry" : "entries"} (coffer stale lists them)`);
      const { sweepPass } = await import("../capture/pass");
      const { backoffMessage } = await import("../distill/ledger");
      // One sweep at a time: while another (a background sweep a hook started, `coffer distill
      // sweep`) runs, this pass leaves the capture to it.
      const outcome = await sweepPass("serve", { signal });
      state.passes++;
      if (!("report" in outcome)) return;
      const { report } = outcome;
      // While the sweep waits after the model failed, the failure stays visible.
      state.last_error = report.errors[0] ?? (report.backoff ? backoffMessage(report.backoff) : null);
      if (report.harvested || report.observed || report.distilled || report.errors.length) {
        opts.log(
          `worker: harvested ${report.harvested}, observed ${report.observed}, distilled ${report.distilled}, skipped ${report.skipped}${report.errors.length ? `, errors: ${report.errors.join("; ")}` : ""}`,
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

  const loop: Periodic = startPeriodic(pass, { intervalMs: opts.intervalMs, firstDelayMs: opts.firstDelayMs ?? 2000 });
  return { status: () => ({ ...state }), stop: loop.stop };
}
