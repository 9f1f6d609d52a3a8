/**
 * The use pass (issue 41): judge every delivery of the delivery log whose session has finished,
 * from the session's transcript, and record the verdicts (store/usage.ts). No model, no network:
 * it runs in every background pass (capture/pass.ts) and before `coffer show`, `coffer stats` and
 * `coffer list --unused` report use. A session counts as finished when neither its transcript nor
 * its hooks moved for `distill.settle_minutes`; a delivery of a host whose transcripts Coffer does
 * not read, or whose transcript is gone or unreadable, is recorded as unknown once settled.
 */
import type { Config } from "../config/config";
import { entryTexts, type PendingDelivery, pendingDeliveries, recordUse, type Store, type UseRecord } from "../store";
import { ADAPTERS, listSessions, type SessionFile } from "../transcripts/discovery";
import { isTranscriptHost, type TranscriptHost } from "../transcripts/types";
import { readSessionSafely } from "./observe";
import { type JudgedEntry, judgeDelivery } from "./use";

export type UsePassReport = {
  /** Sessions whose deliveries were judged in this pass. */
  sessions: number;
  judged: number;
  used: number;
  unknown: number;
  /** Deliveries of sessions not finished yet (judged by a later pass). */
  waiting: number;
};

/** The entries judged, as indexed now (an entry deleted since its delivery is unknown). */
function entriesById(store: Store, ids: string[]): Map<string, JudgedEntry> {
  return new Map(
    entryTexts(store, ids).map((r) => {
      let tags: string[] = [];
      try {
        tags = JSON.parse(r.tags) as string[];
      } catch {}
      return [r.id, { id: r.id, title: r.title, body: r.body, tags }];
    }),
  );
}

export function usePass(
  store: Store,
  config: Pick<Config, "distill.settle_minutes">,
  opts: { now?: number } = {},
): UsePassReport {
  const now = opts.now ?? Date.now();
  const settleMs = config["distill.settle_minutes"] * 60_000;
  const report: UsePassReport = { sessions: 0, judged: 0, used: 0, unknown: 0, waiting: 0 };
  const pending = pendingDeliveries(store);
  if (!pending.length) return report;
  const bySession = new Map<string, PendingDelivery[]>();
  for (const d of pending) bySession.set(d.skey, [...(bySession.get(d.skey) ?? []), d]);
  // Transcript files of the hosts concerned, touched since the oldest pending session (a day of slack).
  const hosts = [...new Set(pending.map((d) => d.host).filter(isTranscriptHost))] as TranscriptHost[];
  const since = Math.min(...pending.map((d) => d.updated_ms)) - 86_400_000;
  const files = new Map<string, SessionFile>();
  for (const f of hosts.length ? listSessions(hosts, since) : []) {
    const key = `${f.host}\u0000${f.session_id}`;
    if (!files.has(key)) files.set(key, f); // newest first: the live file of a resumed session
  }
  const entries = entriesById(store, [...new Set(pending.map((d) => d.entry_id))]);
  const records: UseRecord[] = [];
  for (const deliveries of bySession.values()) {
    const first = deliveries[0]!;
    const file = isTranscriptHost(first.host) ? files.get(`${first.host}\u0000${first.session}`) : undefined;
    const quietSince = Math.max(first.updated_ms, file?.mtimeMs ?? 0);
    if (now - quietSince < settleMs) {
      report.waiting += deliveries.length;
      continue;
    }
    const activity = file ? ADAPTERS[file.host].activity : undefined; // a host without one: unknown
    const read = file && activity ? readSessionSafely(file.host, file.path) : undefined;
    const acts = read?.ok && activity ? activity(read.text) : undefined;
    for (const d of deliveries) {
      const entry = entries.get(d.entry_id);
      const j = !acts
        ? { verdict: "unknown" as const, why: "no_transcript" }
        : !entry
          ? { verdict: "unknown" as const, why: "entry_gone" }
          : judgeDelivery(entry, d.at_ms, acts);
      records.push({ skey: d.skey, at_ms: d.at_ms, entry_id: d.entry_id, verdict: j.verdict, why: j.why });
    }
    report.sessions++;
  }
  recordUse(store, records, now);
  report.judged = records.length;
  report.used = records.filter((r) => r.verdict === "used").length;
  report.unknown = records.filter((r) => r.verdict === "unknown").length;
  return report;
}
