/**
 * `inbox/`: observed session traces waiting for review. A trace is the cleaned, scrubbed,
 * injection-stripped conversation in a wrapper (host, session, hashes, counts) that holds no
 * machine path. Traces are never recalled or injected; approving one distills it into entries.
 */
import * as v from "valibot";
import { inboxFiles } from "./files";

const TurnSchema = v.object({ role: v.picklist(["user", "assistant"]), text: v.string(), at: v.optional(v.string()) });

export const TraceSchema = v.object({
  version: v.literal(1),
  id: v.pipe(v.string(), v.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/)),
  host: v.string(),
  session: v.string(),
  title: v.string(),
  created: v.string(),
  /** The project scope approved insights go to: id, label and origin only. */
  project: v.nullable(v.object({ id: v.string(), label: v.string(), origin: v.optional(v.string()) })),
  source_sha256: v.string(),
  source_size: v.number(),
  source_mtime_ms: v.number(),
  trace_sha256: v.string(),
  messages: v.number(),
  omitted: v.number(),
  /** Index of the first turn after the omitted middle (-1: nothing omitted). */
  omitted_at: v.number(),
  redactions: v.number(),
  /** The secrets those redactions were, per family (traces written before this field have none). */
  scrubbed: v.optional(v.array(v.object({ family: v.string(), count: v.number() }))),
  removed_lines: v.number(),
  turns: v.array(TurnSchema),
});
export type Trace = v.InferOutput<typeof TraceSchema>;

export type TraceSummary = Omit<Trace, "turns" | "version">;

/** Traces are the inbox's items without a prefix: `inbox/<ULID>.json`. */
const traces = inboxFiles("", TraceSchema);

export const countTraces = traces.count;

export const readTrace = traces.read;

/** Every readable trace, oldest first. */
export const listTraces = traces.list;

export function summary(t: Trace): TraceSummary {
  const { turns: _turns, version: _version, ...rest } = t;
  return rest;
}

/** A trace by id, or 4+ of its first or last characters (its handle) when unique (ids are ULIDs). */
export const findTrace = traces.find;

export function traceForSession(host: string, session: string): Trace | undefined {
  return listTraces().find((t) => t.host === host && t.session === session);
}

export const writeTrace = traces.write;

export const deleteTrace = traces.remove;
