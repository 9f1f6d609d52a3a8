/** Approving (distilling into entries) and rejecting inbox traces. */

import type { Config } from "../config/config";
import { deleteTrace, type Trace } from "../inbox/traces";
import { CofferError } from "../lib/errors";
import { audit, mergeFound, scrubbedNote } from "../scrub/write";
import type { Insight } from "./insights";
import { appendLedger } from "./ledger";
import { CONFIGURE_MODEL_HINT, ModelError, resolveModel } from "./model";
import { renderConversation } from "./prompt";
import { type RelatedEntry, relatedEntries, renderRelated } from "./related";
import { askModel, type WrittenEntry, writeInsights } from "./session";

/** The model's view of a trace: exactly what approve sends. */
export function traceText(trace: Trace): string {
  return renderConversation(
    { turns: trace.turns, omitted: trace.omitted, omittedAt: trace.omitted_at },
    { host: trace.host, project: trace.project?.label },
  );
}

/**
 * What approve sends: the trace's conversation, then the project's existing entries it relates to
 * (an insight may supersede one of them). `coffer inbox show` prints exactly this.
 */
export function approveRequest(trace: Trace): { text: string; related: RelatedEntry[] } {
  const related = trace.project ? relatedEntries(trace.project, trace.title, trace.turns) : [];
  return { text: traceText(trace) + renderRelated(related), related };
}

export type ApproveResult = {
  id: string;
  status: "approved" | "cancelled";
  entries: WrittenEntry[];
  insights: Insight[];
  dropped: number;
  /**
   * "scrubbed 2 secrets (password, token)": what was redacted on the way, in the trace when it was
   * captured (never sent to the model) and in the insights before they were written.
   */
  scrubbed?: string;
};

/**
 * Distill a trace: one model call, then `confirm` sees the insights (the preview) before anything
 * is written. Approved: entries written, the session recorded in the ledger, the trace deleted.
 */
export async function approveTrace(
  trace: Trace,
  config: Config,
  confirm: (insights: Insight[]) => Promise<boolean> | boolean = () => true,
): Promise<ApproveResult> {
  const choice = resolveModel(config);
  const model = choice.settings;
  if (!model)
    throw new CofferError(
      `no model configured or found (${choice.why}): approving a trace distills it with a model`,
      1,
      choice.source === "off"
        ? "Turn distillation on: coffer config set model.provider <provider>"
        : CONFIGURE_MODEL_HINT,
    );
  if (!trace.project)
    throw new CofferError(
      `trace ${trace.id} names no project scope to write into`,
      1,
      `Reject it: coffer inbox reject ${trace.id}`,
    );
  const request = approveRequest(trace);
  let asked: Awaited<ReturnType<typeof askModel>>;
  try {
    asked = await askModel(model, request.text, request.related);
  } catch (err) {
    if (err instanceof ModelError)
      throw new CofferError(
        `${err.message}; the trace stays in the inbox`,
        1,
        "Try again later, or check the [model] settings (coffer doctor).",
      );
    throw err;
  }
  if (!(await confirm(asked.insights))) return { id: trace.id, status: "cancelled", entries: [], ...asked };
  const written = asked.insights.length
    ? writeInsights(trace.project, asked.insights, { host: trace.host, session: trace.session }, request.related)
    : { entries: [], found: [] };
  const entries = written.entries;
  const scrubbed = scrubbedNote(mergeFound(trace.scrubbed, written.found));
  appendLedger({
    host: trace.host,
    session_id: trace.session,
    sha256: trace.source_sha256,
    size: trace.source_size,
    mtime_ms: trace.source_mtime_ms,
    outcome: "distilled",
    entries: entries.length,
    via: "inbox",
    ...asked.cost,
  });
  deleteTrace(trace.id);
  audit({ event: "trace_approved", actor: "user", id: trace.id, entries: entries.length });
  return { id: trace.id, status: "approved", entries, ...asked, ...(scrubbed ? { scrubbed } : {}) };
}

export function rejectTrace(trace: Trace): void {
  deleteTrace(trace.id);
  audit({ event: "trace_rejected", actor: "user", id: trace.id });
}
