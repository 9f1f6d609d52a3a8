/**
 * What the hooks inject, counted for `coffer stats`: per local day, host and event, how many hook
 * events injected something and how many characters; per entry and day, how often its body was
 * delivered. Counts only, never prompt or context text. The tables live in index.db next to the
 * delivered-set cache but are not pruned with its sessions: rows are kept for KEEP_USAGE_DAYS
 * (a schema upgrade of index.db starts the counts afresh, like every other cached table).
 */
import type { Database } from "bun:sqlite";
import { dbOf } from "./db";
import type { Store } from "./store";

export const KEEP_USAGE_DAYS = 400;

/** The usage tables live in index.db's schema (db.ts). */
const usageDb = (store: Store): Database => dbOf(store);

/** The tables exist only once a hook counted something; reads before that see nothing. */
function hasUsage(db: Database): boolean {
  return !!db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_usage'").get();
}

/**
 * The local day `now` falls in, without paying for the time-zone database on every hook: the first
 * local-time call of a process costs ~4 ms (ICU), a third of a hook's budget. The UTC offset is kept
 * in index.db for the current UTC hour (offsets change on the hour), so at most one hook an hour
 * computes it; the others shift UTC by it.
 */
function localDayCached(db: Database, now: number): string {
  const hour = Math.floor(now / 3_600_000);
  const tz = process.env.TZ ?? "";
  const row = db.query("SELECT hour, tz, offset_min FROM usage_clock WHERE id = 1").get() as {
    hour: number;
    tz: string;
    offset_min: number;
  } | null;
  let offset: number;
  if (row && row.hour === hour && row.tz === tz) offset = row.offset_min;
  else {
    offset = -new Date(now).getTimezoneOffset();
    db.query("INSERT OR REPLACE INTO usage_clock(id, hour, tz, offset_min) VALUES(1, ?, ?, ?)").run(hour, tz, offset);
  }
  return new Date(now + offset * 60_000).toISOString().slice(0, 10);
}

export type Injection = {
  host: string;
  event: string;
  /** Characters of context the hook answered with (0: it injected nothing). */
  chars: number;
  /** The delivered-set key of the session: the bodies this event delivered are its rows stamped `now`. */
  skey: string;
  /** Where the event came from (the last event per host is kept for `coffer doctor`). */
  cwd: string;
  project: string | null;
};

/**
 * Record one hook event (inside the hook's one write transaction): every event becomes its host's
 * last event seen (`coffer doctor`: proof the hooks fire); one that injected something is also
 * counted per day, host and event, from what it answered and from the delivery records it just
 * wrote (hook_delivered rows of its session stamped with its time). The first count of a day
 * drops rows older than KEEP_USAGE_DAYS.
 */
export function recordInjection(store: Store, inj: Injection, now = Date.now()): void {
  const db = usageDb(store);
  db.query(
    `INSERT INTO hook_last(host, event, at_ms, cwd, project) VALUES(?, ?, ?, ?, ?)
     ON CONFLICT(host) DO UPDATE SET event = excluded.event, at_ms = excluded.at_ms, cwd = excluded.cwd, project = excluded.project`,
  ).run(inj.host, inj.event, now, inj.cwd, inj.project);
  if (inj.chars <= 0) return;
  const day = localDayCached(db, now);
  const delivered = (
    db.query("SELECT entry_id FROM hook_delivered WHERE skey = ? AND at_ms = ?").all(inj.skey, now) as {
      entry_id: string;
    }[]
  ).map((r) => r.entry_id);
  db.transaction(() => {
    const firstToday = !db.query("SELECT 1 FROM hook_usage WHERE day = ? LIMIT 1").get(day);
    db.query(
      `INSERT INTO hook_usage(day, host, event, events, chars) VALUES(?, ?, ?, 1, ?)
       ON CONFLICT(day, host, event) DO UPDATE SET events = events + 1, chars = chars + excluded.chars`,
    ).run(day, inj.host, inj.event, Math.max(0, inj.chars));
    const put = db.query(
      "INSERT INTO entry_deliveries(entry_id, day, n) VALUES(?, ?, 1) ON CONFLICT(entry_id, day) DO UPDATE SET n = n + 1",
    );
    for (const id of new Set(delivered)) put.run(id, day);
    if (firstToday) {
      const cutoff = new Date(Date.parse(`${day}T00:00:00Z`) - KEEP_USAGE_DAYS * 86_400_000).toISOString().slice(0, 10);
      db.query("DELETE FROM hook_usage WHERE day < ?").run(cutoff);
      db.query("DELETE FROM entry_deliveries WHERE day < ?").run(cutoff);
    }
  }).immediate();
}

export type LastHookEvent = { host: string; event: string; at_ms: number; cwd: string; project: string | null };

/** The last hook event Coffer received from each host (none: no hook ever reached this index). */
export function lastHookEvents(store: Store): LastHookEvent[] {
  const db = dbOf(store);
  if (!db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_last'").get()) return [];
  return db.query("SELECT host, event, at_ms, cwd, project FROM hook_last ORDER BY host").all() as LastHookEvent[];
}

export type InjectionRow = { day: string; host: string; event: string; events: number; chars: number };

/** Injection counts from `sinceDay` (YYYY-MM-DD, inclusive) on, by day, host and event. */
export function injectionRows(store: Store, sinceDay: string): InjectionRow[] {
  const db = dbOf(store);
  if (!hasUsage(db)) return [];
  return db
    .query("SELECT day, host, event, events, chars FROM hook_usage WHERE day >= ? ORDER BY day, host, event")
    .all(sinceDay) as InjectionRow[];
}

/** The first day anything was counted (null: never). */
export function usageSince(store: Store): string | null {
  const db = dbOf(store);
  if (!hasUsage(db)) return null;
  const r = db.query("SELECT min(day) AS day FROM hook_usage").get() as { day: string | null };
  return r.day;
}

export type DeliveredCount = { id: string; scope: string | null; title: string | null; deliveries: number };

/** Entries delivered most often from `sinceDay` on, most first (ties by id). */
export function mostDelivered(store: Store, sinceDay: string, limit: number): DeliveredCount[] {
  const db = dbOf(store);
  if (!hasUsage(db)) return [];
  return db
    .query(
      `SELECT d.id AS id, e.scope AS scope, e.title AS title, d.total AS deliveries
       FROM (SELECT entry_id AS id, sum(n) AS total FROM entry_deliveries WHERE day >= ? GROUP BY entry_id) AS d
       LEFT JOIN entries AS e ON e.id = d.id
       GROUP BY d.id ORDER BY d.total DESC, d.id LIMIT ?`,
    )
    .all(sinceDay, limit) as DeliveredCount[];
}

/** Total deliveries from `sinceDay` on (every entry body sent once counts one). */
export function deliveryTotal(store: Store, sinceDay: string): number {
  const db = dbOf(store);
  if (!hasUsage(db)) return 0;
  return (
    db.query("SELECT coalesce(sum(n), 0) AS n FROM entry_deliveries WHERE day >= ?").get(sinceDay) as { n: number }
  ).n;
}

export type UndeliveredEntry = { id: string; scope: string; title: string; created: string; source: string };

/**
 * Entries created before `sinceDay` and not delivered on or after it (candidates to prune),
 * oldest first, at most `limit`; `total` counts them all.
 */
export function undelivered(
  store: Store,
  sinceDay: string,
  limit: number,
): { total: number; entries: UndeliveredEntry[] } {
  const db = dbOf(store);
  const delivered = hasUsage(db)
    ? "AND NOT EXISTS (SELECT 1 FROM entry_deliveries d WHERE d.entry_id = e.id AND d.day >= ?1)"
    : "";
  const where = `FROM entries AS e WHERE substr(e.created, 1, 10) < ?1 ${delivered}`;
  const total = (db.query(`SELECT count(*) AS n ${where}`).get(sinceDay) as { n: number }).n;
  const entries = db
    .query(`SELECT e.id AS id, e.scope AS scope, e.title AS title, e.created AS created, e.source AS source ${where}
            ORDER BY e.created, e.id LIMIT ?2`)
    .all(sinceDay, limit) as UndeliveredEntry[];
  return { total, entries };
}

/** Entries created from `sinceIso` on, counted by source (cli, mcp, distill, http, import). */
export function entriesBySource(store: Store, sinceIso: string): Record<string, number> {
  const rows = dbOf(store)
    .query("SELECT source, count(*) AS n FROM entries WHERE created >= ? GROUP BY source ORDER BY source")
    .all(sinceIso) as { source: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.source, r.n]));
}

/** Entries created per local day from `sinceIso` on (UTC timestamps bucketed by the day they fall on here). */
export function createdTimes(store: Store, sinceIso: string): string[] {
  return (
    dbOf(store).query("SELECT created FROM entries WHERE created >= ? ORDER BY created").all(sinceIso) as {
      created: string;
    }[]
  ).map((r) => r.created);
}

/**
 * Entries harvested from the agents' own memory (actor `import:<host>`, written by `coffer import
 * native`, the sweep and the session-start hook), per host: all of them, and those created from
 * `sinceIso` on.
 */
export function nativeEntryCounts(
  store: Store,
  hosts: readonly string[],
  sinceIso: string,
): Record<string, { total: number; added: number }> {
  const rows = dbOf(store)
    .query(
      `SELECT actor, count(*) AS total, sum(created >= ?) AS added FROM entries
       WHERE actor IN (${hosts.map(() => "?").join(",")}) GROUP BY actor`,
    )
    .all(sinceIso, ...hosts.map((h) => `import:${h}`)) as { actor: string; total: number; added: number }[];
  return Object.fromEntries(
    hosts.map((h) => {
      const r = rows.find((x) => x.actor === `import:${h}`);
      return [h, { total: r?.total ?? 0, added: r?.added ?? 0 }];
    }),
  );
}
