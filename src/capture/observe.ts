/**
 * `coffer observe --queue`: turn finished sessions from `queue/session-queue.json` into inbox
 * traces. The queue is read without holding its lock (writes are atomic), the transcripts are
 * processed, and only then is the queue rewritten under its lock, keeping whatever was added
 * meanwhile and every item that could not be stored yet (inbox at its quota, `--limit`).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Config } from "../config/config";
import { isDistilled, readLedger } from "../distill/ledger";
import { budgetChars } from "../distill/session";
import { countTraces, deleteTrace, type Trace, traceForSession, writeTrace } from "../inbox/traces";
import { sha256 } from "../lib/hash";
import { isoNow } from "../lib/time";
import { ulid } from "../lib/ulid";
import { audit } from "../scrub/write";
import { projectForSession } from "../store";
import { stripInjectionLines } from "../transcripts/clean";
import { foldHome, prepareConversation } from "../transcripts/conversation";
import { keptInDatabase, parseTranscriptText, readSessionText, sessionFileAt } from "../transcripts/discovery";
import { scrubText } from "../transcripts/scrub";
import { isTranscriptHost, type TranscriptHost } from "../transcripts/types";
import { type QueueItem, readQueue, updateQueue } from "./queue";

export const TRANSCRIPT_MAX_BYTES = 5 * 1024 * 1024;

export type ObserveOutcome = "stored" | "skipped" | "kept" | "would_store";
export type ObserveResult = { host: string; session: string; outcome: ObserveOutcome; reason: string; trace?: string };
export type ObserveReport = {
  results: ObserveResult[];
  stored: number;
  skipped: number;
  kept: number;
  dry_run: boolean;
};

type Checked = { ok: true; text: string; size: number; mtimeMs: number } | { ok: false; reason: string };

/** The transcript must be a regular file (not a symlink), with no other hard link, at most 5 MiB. */
export function readTranscriptSafely(path: string): Checked {
  if (!isAbsolute(path)) return { ok: false, reason: "transcript path is not absolute" };
  let st: import("node:fs").Stats;
  try {
    st = lstatSync(path);
  } catch {
    return { ok: false, reason: "transcript file is gone" };
  }
  if (st.isSymbolicLink()) return { ok: false, reason: "transcript is a symbolic link" };
  if (!st.isFile()) return { ok: false, reason: "transcript is not a regular file" };
  if (st.nlink !== 1) return { ok: false, reason: `transcript has ${st.nlink} hard links` };
  if (st.size > TRANSCRIPT_MAX_BYTES)
    return { ok: false, reason: `transcript is ${(st.size / 1048576).toFixed(1)} MiB (limit 5 MiB)` };
  // Open without following links and check the opened file again: it may have been swapped.
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return { ok: false, reason: "transcript cannot be opened safely" };
  }
  try {
    const f = fstatSync(fd);
    if (!f.isFile() || f.nlink !== 1 || f.size > TRANSCRIPT_MAX_BYTES || f.ino !== st.ino)
      return { ok: false, reason: "transcript changed while being read" };
    const buf = Buffer.alloc(f.size);
    let off = 0;
    while (off < f.size) {
      const n = readSync(fd, buf, off, f.size - off, off);
      if (n <= 0) break;
      off += n;
    }
    return { ok: true, text: buf.subarray(0, off).toString("utf8"), size: f.size, mtimeMs: f.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** A session's text, checked as above: a file, or a database session's rows (the same bound). */
export function readSessionSafely(host: TranscriptHost, path: string): Checked {
  if (!keptInDatabase(host)) return readTranscriptSafely(path);
  try {
    const file = sessionFileAt(path, host);
    const text = readSessionText(file);
    if (text.length > TRANSCRIPT_MAX_BYTES)
      return { ok: false, reason: `session is ${(text.length / 1048576).toFixed(1)} MiB (limit 5 MiB)` };
    return { ok: true, text, size: file.size, mtimeMs: file.mtimeMs };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

type Planned = { result: ObserveResult; trace?: Trace; replaces?: string };

function plan(item: QueueItem, config: Config, ledger: ReturnType<typeof readLedger>): Planned {
  const skip = (reason: string): Planned => ({
    result: { host: item.host, session: item.session, outcome: "skipped", reason },
  });
  if (!isTranscriptHost(item.host)) return skip(`no transcript parser for ${item.host}`);
  const file = readSessionSafely(item.host, item.transcript_path);
  if (!file.ok) return skip(file.reason);
  const parsed = parseTranscriptText(item.host, file.text, item.transcript_path);
  const session = item.session || parsed.session_id || "";
  if (parsed.subagent) return skip("a subagent's transcript");
  const project = projectForSession(parsed.cwd, parsed.origin);
  if (!project) return skip("not a git project");
  const state = {
    host: item.host,
    session_id: session,
    path: item.transcript_path,
    size: file.size,
    mtimeMs: file.mtimeMs,
  };
  if (isDistilled(ledger, state)) return skip("already distilled");
  const conv = prepareConversation(parsed.turns, { budget: budgetChars(config), stripInjection: true });
  if (!conv.turns.length) return skip("no conversation left after cleaning");
  const title = stripInjectionLines(scrubText(foldHome(parsed.title)).text);
  const turnsText = JSON.stringify(conv.turns);
  const trace: Trace = {
    version: 1,
    id: ulid(),
    host: item.host,
    session,
    title: title.removed ? "(title removed)" : title.text,
    created: isoNow(),
    project: { id: project.id, label: project.label, ...(project.origin ? { origin: project.origin } : {}) },
    source_sha256: sha256(file.text),
    source_size: file.size,
    source_mtime_ms: file.mtimeMs,
    trace_sha256: sha256(turnsText),
    messages: conv.turns.length,
    omitted: conv.omitted,
    omitted_at: conv.omittedAt,
    redactions: conv.redactions,
    ...(conv.found.length ? { scrubbed: conv.found } : {}),
    removed_lines: conv.removed_lines + title.removed,
    turns: conv.turns,
  };
  return {
    result: { host: item.host, session, outcome: "stored", reason: "", trace: trace.id },
    trace,
    replaces: traceForSession(item.host, session)?.id,
  };
}

export function observeQueue(opts: { config: Config; dryRun?: boolean; limit?: number }): ObserveReport {
  const items = readQueue();
  const ledger = readLedger();
  const max = opts.config["inbox.max_files"];
  const limit = opts.limit ?? Infinity;
  let count = countTraces();
  const done = new Set<QueueItem>();
  const results: ObserveResult[] = [];
  let handled = 0;
  for (const item of items) {
    if (handled >= limit) {
      results.push({ host: item.host, session: item.session, outcome: "kept", reason: "over --limit" });
      continue;
    }
    handled++;
    const p = plan(item, opts.config, ledger);
    if (!p.trace) {
      results.push(p.result);
      done.add(item);
      continue;
    }
    if (!p.replaces && count >= max) {
      results.push({
        ...p.result,
        outcome: "kept",
        reason: `inbox is full (${count}/${max} traces; inbox.max_files)`,
        trace: undefined,
      });
      continue;
    }
    if (opts.dryRun) {
      results.push({
        ...p.result,
        outcome: "would_store",
        reason: p.replaces ? "would replace the older trace of this session" : "",
        trace: undefined,
      });
      if (!p.replaces) count++;
      continue;
    }
    writeTrace(p.trace);
    if (p.replaces) deleteTrace(p.replaces);
    else count++;
    audit({
      event: "trace_observed",
      actor: `agent:${p.trace.host}`,
      id: p.trace.id,
      redactions: p.trace.redactions,
      removed_lines: p.trace.removed_lines,
    });
    results.push({ ...p.result, reason: p.replaces ? "replaced the older trace of this session" : "" });
    done.add(item);
  }
  if (!opts.dryRun && done.size) {
    const same = (a: QueueItem, b: QueueItem) =>
      a.host === b.host && a.session === b.session && a.at === b.at && a.transcript_path === b.transcript_path;
    const gone = [...done];
    updateQueue((current) => ({ keep: current.filter((c) => !gone.some((g) => same(c, g))), result: undefined }));
  }
  const n = (o: ObserveOutcome) => results.filter((r) => r.outcome === o).length;
  return {
    results,
    stored: n("stored") + n("would_store"),
    skipped: n("skipped"),
    kept: n("kept"),
    dry_run: Boolean(opts.dryRun),
  };
}
