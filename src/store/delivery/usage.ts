/**
 * What the hooks inject, counted for `coffer stats`: per local day, host and event, how many hook
 * events injected something and how many characters; per entry and day, how often its body was
 * delivered. Counts only, never prompt or context text. The tables live in index.db next to the
 * delivered-set cache but are not pruned with its sessions: rows are kept for KEEP_USAGE_DAYS
 * (a schema upgrade of index.db starts the counts afresh, like every other cached table).
 */
import type { Database } from "bun:sqlite";
import { localDay } from "../../lib/time";
import { dbOf } from "../db";
import type { ScopeKey } from "../scope";
import type { Store } from "../store";

export const KEEP_USAGE_DAYS = 400;

/** The usage tables live in index.db's schema (db.ts). */
const usageDb = (store: Store): Database => dbOf(store);

/** The tables exist only once a hook counted something; reads before that see nothing. */
function hasUsage(db: Database): boolean {
  return !!db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_usage'").get();
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
  const day = localDay(now);
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

// ---------------------------------------------------------------------------------------------
// Use of deliveries (issue 41): whether the agent used each entry body the hooks delivered, as the
// use pass (capture/use-pass.ts) judged it from the finished session's transcript. Per delivery
// of the delivery log (ids, a verdict and the kind of evidence; pruned with the log's sessions) and
// per entry (counts, kept like the delivery counts). Created on the first judgement.

const USE_SCHEMA = `
CREATE TABLE IF NOT EXISTS delivery_use(
  skey TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  entry_id TEXT NOT NULL,
  verdict TEXT NOT NULL,
  why TEXT NOT NULL,
  PRIMARY KEY(skey, at_ms, entry_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entry_use(
  entry_id TEXT PRIMARY KEY,
  judged INTEGER NOT NULL,
  used INTEGER NOT NULL,
  unknown INTEGER NOT NULL,
  last_ms INTEGER NOT NULL,
  kept INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
`;

const hasTable = (db: Database, name: string) =>
  !!db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name);

export type UseVerdict = "used" | "unused" | "unknown";

/** A delivery of the log not judged yet, with its session (parent sessions only: a subagent's acts are in its own file). */
export type PendingDelivery = {
  skey: string;
  at_ms: number;
  entry_id: string;
  host: string;
  cwd: string;
  session: string;
  updated_ms: number;
};

/** Deliveries of the log not judged yet, oldest session first (at most `limit`). */
export function pendingDeliveries(store: Store, limit = 5000): PendingDelivery[] {
  const db = dbOf(store);
  const judged = hasTable(db, "delivery_use")
    ? "AND NOT EXISTS (SELECT 1 FROM delivery_use u WHERE u.skey = x.skey AND u.at_ms = x.at_ms AND u.entry_id = x.entry_id)"
    : "";
  // x.*: the log may say why an entry was listed (`why`); a session start's cards (titles only)
  // are not deliveries of the entry's body, which is what is judged (and what entry_deliveries counts).
  const rows = db
    .query(
      `SELECT x.*, s.host AS host, s.cwd AS cwd, s.session AS session, s.updated_ms AS updated_ms
       FROM hook_event_entries AS x JOIN hook_sessions AS s ON s.skey = x.skey
       WHERE s.subagent = 0 ${judged}
       ORDER BY s.updated_ms, x.skey, x.at_ms LIMIT ?`,
    )
    .all(limit) as (PendingDelivery & { why?: string })[];
  return rows
    .filter((r) => !r.why?.includes('"card":true'))
    .map(({ skey, at_ms, entry_id, host, cwd, session, updated_ms }) => ({
      skey,
      at_ms,
      entry_id,
      host,
      cwd,
      session,
      updated_ms,
    }));
}

/** Title, body and tags (JSON text) of `ids` as indexed now, one row per id: what the use pass judges against. */
export function entryTexts(store: Store, ids: string[]): { id: string; title: string; body: string; tags: string }[] {
  return dbOf(store)
    .query("SELECT id, title, body, tags FROM entries WHERE id IN (SELECT value FROM json_each(?)) GROUP BY id")
    .all(JSON.stringify(ids)) as { id: string; title: string; body: string; tags: string }[];
}

export type UseRecord = { skey: string; at_ms: number; entry_id: string; verdict: UseVerdict; why: string };

/**
 * Record judgements (one write transaction); a delivery judged before is left as it was, so a pass
 * that runs twice counts nothing twice. Judgements of sessions the log no longer holds go.
 */
export function recordUse(store: Store, records: UseRecord[], now = Date.now()): number {
  const db = dbOf(store);
  let added = 0;
  db.transaction(() => {
    db.run(USE_SCHEMA);
    const put = db.query(
      "INSERT OR IGNORE INTO delivery_use(skey, at_ms, entry_id, verdict, why) VALUES(?, ?, ?, ?, ?)",
    );
    const count = db.query(
      `INSERT INTO entry_use(entry_id, judged, used, unknown, last_ms) VALUES(?1, 1, ?2, ?3, ?4)
       ON CONFLICT(entry_id) DO UPDATE SET judged = judged + 1, used = used + ?2, unknown = unknown + ?3, last_ms = ?4`,
    );
    for (const r of records) {
      if (put.run(r.skey, r.at_ms, r.entry_id, r.verdict, r.why).changes === 0) continue;
      count.run(r.entry_id, r.verdict === "used" ? 1 : 0, r.verdict === "unknown" ? 1 : 0, now);
      added++;
    }
    db.run("DELETE FROM delivery_use WHERE skey NOT IN (SELECT skey FROM hook_sessions)");
  }).immediate();
  return added;
}

/** One entry's use: deliveries counted by the hooks, and of the judged ones how many were used or could not be told. */
export type EntryUse = { delivered: number; judged: number; used: number; unknown: number };

/** The use of `ids` (entries never judged have judged = 0). */
export function entryUses(store: Store, ids: string[]): Map<string, EntryUse> {
  const db = dbOf(store);
  const out = new Map<string, EntryUse>(ids.map((id) => [id, { delivered: 0, judged: 0, used: 0, unknown: 0 }]));
  if (!ids.length) return out;
  const list = JSON.stringify(ids);
  if (hasUsage(db))
    for (const r of db
      .query(
        "SELECT entry_id AS id, sum(n) AS n FROM entry_deliveries WHERE entry_id IN (SELECT value FROM json_each(?)) GROUP BY entry_id",
      )
      .all(list) as { id: string; n: number }[])
      out.get(r.id)!.delivered = r.n;
  if (hasTable(db, "entry_use"))
    for (const r of db
      .query(
        "SELECT entry_id AS id, judged, used, unknown FROM entry_use WHERE entry_id IN (SELECT value FROM json_each(?))",
      )
      .all(list) as { id: string; judged: number; used: number; unknown: number }[])
      Object.assign(out.get(r.id)!, { judged: r.judged, used: r.used, unknown: r.unknown });
  return out;
}

/** "delivered 3 times, used 2" (and how many were judged, when not all were). */
export function describeUse(u: EntryUse): string {
  const times = (n: number) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`);
  const delivered = Math.max(u.delivered, u.judged);
  if (!delivered) return "never delivered";
  const told = u.judged - u.unknown;
  if (!u.judged) return `delivered ${times(delivered)}, use not judged yet`;
  const used = u.used === 0 ? "never used" : `used ${times(u.used)}`;
  const of = told < delivered ? ` (of ${told} judged)` : "";
  return `delivered ${times(delivered)}, ${used}${of}`;
}

/** Entries delivered (and judged) this many times and never used are listed by `coffer stats` and `list --unused`. */
export const UNUSED_MIN = 5;

export type UnusedEntry = { id: string; scope: ScopeKey; kind: string; title: string; judged: number; used: number };

/** Entries whose deliveries were judged (told apart: not unknown) at least `min` times and never used, most first. */
export function unusedEntries(store: Store, min: number, limit: number): UnusedEntry[] {
  const db = dbOf(store);
  if (!hasTable(db, "entry_use")) return [];
  return db
    .query(
      `SELECT e.id AS id, e.scope AS scope, e.kind AS kind, e.title AS title, u.judged - u.unknown AS judged, u.used AS used
       FROM entry_use AS u JOIN entries AS e ON e.id = u.entry_id
       WHERE u.used = 0 AND u.judged - u.unknown >= ? AND e.status = ''
       GROUP BY e.id ORDER BY judged DESC, e.id LIMIT ?`,
    )
    .all(min, limit) as UnusedEntry[];
}

export type UseCount = { id: string; scope: string | null; title: string | null; judged: number; used: number };

/** Per entry and per kind: deliveries judged (unknown left out) and used, the most judged first. */
export function useTotals(
  store: Store,
  limit: number,
): { entries: UseCount[]; by_kind: { kind: string; judged: number; used: number }[]; judged: number; used: number } {
  const db = dbOf(store);
  if (!hasTable(db, "entry_use")) return { entries: [], by_kind: [], judged: 0, used: 0 };
  const entries = db
    .query(
      `SELECT u.entry_id AS id, e.scope AS scope, e.title AS title, u.judged - u.unknown AS judged, u.used AS used
       FROM entry_use AS u LEFT JOIN entries AS e ON e.id = u.entry_id
       WHERE u.judged > u.unknown GROUP BY u.entry_id ORDER BY judged DESC, used DESC, u.entry_id LIMIT ?`,
    )
    .all(limit) as UseCount[];
  const byKind = db
    .query(
      `SELECT coalesce(k.kind, '(gone)') AS kind, sum(u.judged - u.unknown) AS judged, sum(u.used) AS used
       FROM entry_use AS u LEFT JOIN (SELECT id, min(kind) AS kind FROM entries GROUP BY id) AS k ON k.id = u.entry_id
       GROUP BY 1 HAVING sum(u.judged - u.unknown) > 0 ORDER BY judged DESC, kind`,
    )
    .all() as { kind: string; judged: number; used: number }[];
  const t = db
    .query("SELECT coalesce(sum(judged - unknown), 0) AS judged, coalesce(sum(used), 0) AS used FROM entry_use")
    .get() as { judged: number; used: number };
  return { entries, by_kind: byKind, judged: t.judged, used: t.used };
}

/** The most the use prior moves a routed entry's score, either way (a share of the score). */
export const USE_PRIOR_BOUND = 0.1;
/** Deliveries judged (unknown left out) before an entry's use moves its score at all, and at full weight. */
export const USE_PRIOR_MIN = 3;
export const USE_PRIOR_FULL = 10;

/**
 * An entry's score factor from its use: 1 below USE_PRIOR_MIN judged deliveries, else up to
 * 1 + USE_PRIOR_BOUND when always used and down to 1 - USE_PRIOR_BOUND when never, reached at
 * USE_PRIOR_FULL judged deliveries.
 */
export function usePriorFactor(judged: number, used: number): number {
  if (judged < USE_PRIOR_MIN) return 1;
  const rate = Math.min(1, Math.max(0, used / judged));
  return 1 + USE_PRIOR_BOUND * (2 * rate - 1) * Math.min(1, judged / USE_PRIOR_FULL);
}

/** Scale routed entries' scores by their use (`ranking.use_prior = on`); one indexed look-up, no write. */
export function applyUsePrior(store: Store, routed: { id: string; score: number }[]): void {
  const db = dbOf(store);
  if (!routed.length || !hasTable(db, "entry_use")) return;
  const rows = db
    .query(
      "SELECT entry_id AS id, judged - unknown AS judged, used FROM entry_use WHERE entry_id IN (SELECT value FROM json_each(?))",
    )
    .all(JSON.stringify(routed.map((r) => r.id))) as { id: string; judged: number; used: number }[];
  const factor = new Map(rows.map((r) => [r.id, usePriorFactor(r.judged, r.used)]));
  for (const r of routed) {
    const f = factor.get(r.id);
    if (f !== undefined && f !== 1) r.score = Number((r.score * f).toFixed(9));
  }
}

/** Entries offered in the inbox: judged at least `min` times since last kept, never used (rules are not entries: never offered). */
export function unusedOffers(store: Store, min: number, limit = 100): UnusedEntry[] {
  const db = dbOf(store);
  if (!hasTable(db, "entry_use")) return [];
  return db
    .query(
      `SELECT e.id AS id, e.scope AS scope, e.kind AS kind, e.title AS title, u.judged - u.unknown AS judged, u.used AS used
       FROM entry_use AS u JOIN entries AS e ON e.id = u.entry_id
       WHERE u.used = 0 AND u.judged - u.unknown - u.kept >= ? AND e.status = ''
       GROUP BY e.id ORDER BY judged DESC, e.id LIMIT ?`,
    )
    .all(min, limit) as UnusedEntry[];
}

/** Keep an offered entry as it is: offered again only after as many more deliveries without use. */
export function keepUnused(store: Store, id: string): boolean {
  const db = dbOf(store);
  if (!hasTable(db, "entry_use")) return false;
  return db.query("UPDATE entry_use SET kept = judged - unknown WHERE entry_id = ? AND used = 0").run(id).changes > 0;
}

/** A session's judged deliveries: verdict by `<entry id>@<delivery time in ms>`. */
export function sessionVerdicts(store: Store, skey: string): Map<string, UseVerdict> {
  const db = dbOf(store);
  if (!hasTable(db, "delivery_use")) return new Map();
  const rows = db.query("SELECT entry_id, at_ms, verdict FROM delivery_use WHERE skey = ?").all(skey) as {
    entry_id: string;
    at_ms: number;
    verdict: UseVerdict;
  }[];
  return new Map(rows.map((r) => [`${r.entry_id}@${r.at_ms}`, r.verdict]));
}
