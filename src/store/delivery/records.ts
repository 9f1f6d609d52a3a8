import { dbOf } from "../db";
import { type Store, withHealing } from "../store";
import type { DeliveryWhy } from "./sessions";

export type DeliveredEntry = { id: string; at: string; title: string | null; scope: string | null; chars: number };
export type EventEntry = { id: string; title: string | null; scope: string | null; why?: DeliveryWhy };
export type HookEventRecord = {
  event: string;
  at: string;
  entries: number;
  chars: number;
  /** The entry bodies it delivered, each with why (absent for a record older than the reasons). */
  delivered: EventEntry[];
  /** A session start's memory cards (titles the agent may read through MCP). */
  cards: EventEntry[];
};
export type SessionRecord = {
  host: string;
  session: string;
  cwd: string;
  subagent: boolean;
  updated: string;
  bundle_sig: string | null;
  /** The session's delivered set now (a compact or /clear empties it; the events keep what was sent). */
  delivered: DeliveredEntry[];
  /** Characters of the delivered bodies, as they are now. */
  chars: number;
  /** Every entry body an event of this session delivered, first delivery first, once each. */
  sent: (EventEntry & { at: string })[];
  /** The delivery log, newest first (absent before the hooks kept one). */
  events: HookEventRecord[];
};

/** The hooks create the delivered-set tables on first use; before that there is nothing to show. */
function hasCache(store: Store): boolean {
  return !!dbOf(store).query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_delivered'").get();
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * What the hooks delivered, per (host, cwd, session): the delivered-set cache (ids and times,
 * never prompt text), with each entry's current title and body size. Newest first.
 */
export function deliveryRecords(store: Store, limit = 100): SessionRecord[] {
  return withHealing(store, () => {
    if (!hasCache(store)) return [];
    const sessions = dbOf(store)
      .query(
        "SELECT skey, host, cwd, session, subagent, bundle_sig, updated_ms FROM hook_sessions ORDER BY updated_ms DESC LIMIT ?",
      )
      .all(limit) as {
      skey: string;
      host: string;
      cwd: string;
      session: string;
      subagent: number;
      bundle_sig: string | null;
      updated_ms: number;
    }[];
    const delivered = dbOf(store).query(
      `SELECT d.entry_id AS id, d.at_ms, e.title, e.scope, length(e.body) AS chars
       FROM hook_delivered d LEFT JOIN entries e ON e.id = d.entry_id
       WHERE d.skey = ? GROUP BY d.entry_id ORDER BY d.at_ms, d.entry_id`,
    );
    const logged = !!dbOf(store)
      .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_events'")
      .get();
    const events = logged
      ? dbOf(store).query(
          "SELECT event, at_ms, entries, chars FROM hook_events WHERE skey = ? ORDER BY at_ms DESC, rowid DESC LIMIT 100",
        )
      : undefined;
    const perEvent = dbOf(store)
      .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_event_entries'")
      .get()
      ? dbOf(store).query(
          `SELECT x.at_ms, x.entry_id AS id, x.why, e.title, e.scope FROM hook_event_entries x
           LEFT JOIN entries e ON e.id = x.entry_id WHERE x.skey = ? GROUP BY x.rowid ORDER BY x.at_ms, x.rowid`,
        )
      : undefined;
    return sessions.map((s) => {
      const items = (
        delivered.all(s.skey) as {
          id: string;
          at_ms: number;
          title: string | null;
          scope: string | null;
          chars: number | null;
        }[]
      ).map((d) => ({ id: d.id, at: iso(d.at_ms), title: d.title, scope: d.scope, chars: d.chars ?? 0 }));
      const byTime = new Map<number, EventEntry[]>();
      const cardsAt = new Map<number, EventEntry[]>();
      const sent = new Map<string, EventEntry & { at: string }>();
      for (const x of (perEvent?.all(s.skey) ?? []) as {
        at_ms: number;
        id: string;
        why: string;
        title: string | null;
        scope: string | null;
      }[]) {
        let why: DeliveryWhy | undefined;
        try {
          why = x.why ? (JSON.parse(x.why) as DeliveryWhy) : undefined;
        } catch {}
        const e = { id: x.id, title: x.title, scope: x.scope, ...(why ? { why } : {}) };
        const into = why?.card ? cardsAt : byTime;
        into.set(x.at_ms, [...(into.get(x.at_ms) ?? []), e]);
        if (!why?.card && !sent.has(x.id)) sent.set(x.id, { ...e, at: iso(x.at_ms) });
      }
      return {
        host: s.host,
        session: s.session,
        cwd: s.cwd,
        subagent: !!s.subagent,
        updated: iso(s.updated_ms),
        bundle_sig: s.bundle_sig,
        delivered: items,
        chars: items.reduce((n, d) => n + d.chars, 0),
        sent: [...sent.values()],
        events: ((events?.all(s.skey) ?? []) as { event: string; at_ms: number; entries: number; chars: number }[]).map(
          (e) => ({
            event: e.event,
            at: iso(e.at_ms),
            entries: e.entries,
            chars: e.chars,
            delivered: byTime.get(e.at_ms) ?? [],
            cards: cardsAt.get(e.at_ms) ?? [],
          }),
        ),
      };
    });
  });
}

/** The sessions an entry's body was delivered to (newest first): host, session id, when. */
export function deliveriesOf(store: Store, id: string, limit = 20): { host: string; session: string; at: string }[] {
  return withHealing(store, () => {
    if (!hasCache(store)) return [];
    return (
      dbOf(store)
        .query(
          `SELECT s.host AS host, s.session AS session, d.at_ms AS at_ms FROM hook_delivered d
           JOIN hook_sessions s ON s.skey = d.skey WHERE d.entry_id = ? ORDER BY d.at_ms DESC LIMIT ?`,
        )
        .all(id, limit) as { host: string; session: string; at_ms: number }[]
    ).map((r) => ({ host: r.host, session: r.session, at: iso(r.at_ms) }));
  });
}

/** Working directories the hooks have seen (candidates for rendering a project's session-start bundle). */
export function knownCwds(store: Store): string[] {
  return withHealing(store, () =>
    !hasCache(store)
      ? []
      : (
          dbOf(store).query("SELECT DISTINCT cwd FROM hook_sessions ORDER BY updated_ms DESC LIMIT 200").all() as {
            cwd: string;
          }[]
        ).map((r) => r.cwd),
  );
}
