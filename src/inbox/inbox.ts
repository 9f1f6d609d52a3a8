/**
 * `inbox/`: observed session traces waiting for review. A trace is the cleaned, scrubbed,
 * injection-stripped conversation in a wrapper (host, session, hashes, counts) that holds no
 * machine path. Traces are never recalled or injected; approving one distills it into entries.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../lib/atomic";
import { namesId } from "../lib/handle";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";

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

const ID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

const traceFile = (id: string) => join(paths.inbox(), `${id}.json`);

function traceIds(): string[] {
  try {
    return readdirSync(paths.inbox())
      .filter((n) => n.endsWith(".json") && ID_RE.test(n.slice(0, -5)))
      .map((n) => n.slice(0, -5))
      .sort();
  } catch {
    return [];
  }
}

export function countTraces(): number {
  return traceIds().length;
}

export function readTrace(id: string): Trace | undefined {
  try {
    const r = v.safeParse(TraceSchema, JSON.parse(readOwnText(traceFile(id))));
    return r.success ? r.output : undefined;
  } catch {
    return undefined;
  }
}

/** Every readable trace, oldest first. */
export function listTraces(): Trace[] {
  return traceIds()
    .map(readTrace)
    .filter((t): t is Trace => Boolean(t));
}

export function summary(t: Trace): TraceSummary {
  const { turns: _turns, version: _version, ...rest } = t;
  return rest;
}

/** A trace by id, or 4+ of its first or last characters (its handle) when unique (ids are ULIDs). */
export function findTrace(idOrPrefix: string): Trace | undefined {
  const want = idOrPrefix.trim().toUpperCase();
  if (!/^[0-9A-Z]{4,26}$/.test(want)) return undefined;
  const hits = traceIds().filter((id) => namesId(id, want));
  return hits.length === 1 ? readTrace(hits[0]!) : undefined;
}

export function traceForSession(host: string, session: string): Trace | undefined {
  return listTraces().find((t) => t.host === host && t.session === session);
}

export function writeTrace(trace: Trace): void {
  writeFileAtomic(traceFile(trace.id), `${JSON.stringify(trace, null, 2)}\n`, 0o600);
}

export function deleteTrace(id: string): boolean {
  const file = traceFile(id);
  if (!ID_RE.test(id) || !existsSync(file)) return false;
  rmSync(file, { force: true });
  return true;
}
