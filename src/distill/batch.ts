/**
 * Distilling many sessions, one after the other, with one stopping rule for every caller (`coffer
 * distill run`, the sweep, `coffer serve`'s HTTP batch): stop at the daily token budget (the rest
 * waits for tomorrow's), when the model itself failed (logged out, rate limited, down, not
 * installed: the rest would fail the same way, each with its own ledger line), and at the
 * caller's deadline.
 */
import type { SessionFile } from "../transcripts/discovery";
import { readLedger, stopsSweep } from "./ledger";
import { type DistillOptions, type DistillResult, distillFile } from "./session";

/** Why a batch stopped before its last session, if it did. */
export type BatchStop = "over_budget" | "model_down" | "deadline";

export type BatchResult = {
  results: DistillResult[];
  stopped?: BatchStop;
  /** Sessions not tried because the batch stopped. */
  waiting: number;
};

export async function distillBatch(
  files: SessionFile[],
  opts: DistillOptions & {
    /** Epoch ms after which no further session is started. */
    deadline?: number;
    /** Called after each session (a progress bar). */
    onResult?: (r: DistillResult, done: number) => void;
    /** Results already gathered by the caller, kept in front (and counted by the rule). */
    results?: DistillResult[];
  },
): Promise<BatchResult> {
  const { deadline, onResult, results: before, ...distill } = opts;
  const ledger = distill.ledger ?? readLedger();
  const results: DistillResult[] = before ?? [];
  let stopped: BatchStop | undefined;
  let tried = 0;
  for (const f of files) {
    if (deadline !== undefined && Date.now() >= deadline) {
      stopped = "deadline";
      break;
    }
    const r = await distillFile(f, { ...distill, ledger });
    results.push(r);
    tried++;
    onResult?.(r, tried);
    if (r.outcome === "over_budget") stopped = "over_budget";
    else if (r.outcome === "failed" && stopsSweep(r.error)) stopped = "model_down";
    if (stopped) break;
  }
  return { results, ...(stopped ? { stopped } : {}), waiting: files.length - tried };
}
