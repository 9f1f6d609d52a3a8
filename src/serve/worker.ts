/**
 * The background worker inside `coffer serve`: on an interval, one capture pass (drain the
 * session-end queue, then sweep idle transcripts) under the sweep lock, so it never runs beside a
 * background sweep or `coffer distill sweep`. Passes never overlap; stop() asks the pass in
 * progress to end after the session it is distilling and waits for it, so shutdown never cuts a
 * write in half. The staleness check runs in a child process (`coffer stale --all`): walking
 * checkouts and matching globs for seconds never holds up the server's requests.
 */
import { type Periodic, startPeriodic } from "../lib/periodic";
import { selfCommand } from "../lib/platform";

/** Past this, the staleness child is ended (its own budget is STALE_BUDGET_MS; this is for a hung one). */
const STALE_CHILD_MS = 120_000;

/**
 * One staleness check of the projects checked on this machine, in a child process; the number of
 * stale entries it found, or an error message.
 */
async function staleInChild(signal: AbortSignal): Promise<number | string> {
  const child = Bun.spawn([...selfCommand(), "stale", "--all", "--json"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const end = () => child.kill();
  signal.addEventListener("abort", end);
  const timer = setTimeout(end, STALE_CHILD_MS);
  try {
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (code !== 0) return `stale check exited with ${code}: ${err.trim().split("\n").pop() ?? ""}`;
    const { projects } = JSON.parse(out) as { projects: { stale: number }[] };
    return projects.reduce((n, p) => n + p.stale, 0);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", end);
  }
}

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
      const flagged = await staleInChild(signal);
      if (typeof flagged === "string") opts.log(`worker: ${flagged}`);
      else if (flagged)
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
