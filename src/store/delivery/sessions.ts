/**
 * The delivered-set cache of the hooks: per (host, cwd, session) — or `<session>#agent:<id>` for a
 * subagent — which entry bodies were sent (id + body hash), the signature of the rules bundle /
 * context slot last sent, the hook events seen, the outside files a hook watches, and the
 * session-start text cache. Never prompt text. Its tables are declared here.
 */
import type { Database } from "bun:sqlite";
import { basename } from "node:path";
import { handle } from "../../lib/handle";
import { sha256 } from "../../lib/hash";
import type { Host } from "../../lib/hosts";
import { dbOf } from "../db";
import type { ScopeKey } from "../scope";
import type { Store } from "../store";

// ---------------------------------------------------------------------------------------------
// Delivered-set cache

const KEEP_DAYS = 7;
export const KEEP_PARENTS = 200;
export const KEEP_SUBAGENTS = 100;

export type SessionKey = { skey: string; host: Host; cwd: string; session: string; subagent: boolean };

export function sessionKey(host: Host, cwd: string, sessionId: string, agentId?: string): SessionKey {
  const session = agentId ? `${sessionId}#agent:${agentId}` : sessionId;
  return { skey: sha256(`${host}\0${cwd}\0${session}`).slice(0, 32), host, cwd, session, subagent: !!agentId };
}

/** The hook cache tables live in index.db's schema (db.ts). */
const cacheDb = (store: Store): Database => dbOf(store);

export type SessionState = { bundleSig: string | null; slotSig: string | null; delivered: Map<string, string> };

export function readSession(store: Store, key: SessionKey): SessionState | undefined {
  const db = cacheDb(store);
  const row = db.query("SELECT bundle_sig, slot_sig FROM hook_sessions WHERE skey = ?").get(key.skey) as {
    bundle_sig: string | null;
    slot_sig: string | null;
  } | null;
  if (!row) return undefined;
  const delivered = new Map<string, string>();
  for (const r of db.query("SELECT entry_id, body_hash FROM hook_delivered WHERE skey = ?").all(key.skey) as {
    entry_id: string;
    body_hash: string;
  }[]) {
    delivered.set(r.entry_id, r.body_hash);
  }
  return { bundleSig: row.bundle_sig, slotSig: row.slot_sig, delivered };
}

export type SessionUpdate = {
  /** Forget every delivered body first (startup, clear, compact). */
  reset?: boolean;
  bundleSig?: string | null;
  slotSig?: string | null;
  delivered?: { id: string; hash: string }[];
};

/**
 * Run one hook event's writes (session record, event log, counters) in one write transaction:
 * one lock and one commit instead of three. The writes inside nest as savepoints.
 */
export function inOneWrite(store: Store, fn: () => void): void {
  cacheDb(store).transaction(fn).immediate();
}

/** Apply one hook's changes in one short write transaction; a new session prunes old records. */
export function updateSession(store: Store, key: SessionKey, update: SessionUpdate, now = Date.now()): void {
  const db = cacheDb(store);
  db.transaction(() => {
    const exists = db.query("SELECT 1 FROM hook_sessions WHERE skey = ?").get(key.skey);
    if (!exists) {
      db.query(
        "INSERT INTO hook_sessions(skey, host, cwd, session, subagent, bundle_sig, slot_sig, updated_ms) VALUES(?,?,?,?,?,?,?,?)",
      ).run(
        key.skey,
        key.host,
        key.cwd,
        key.session,
        key.subagent ? 1 : 0,
        update.bundleSig ?? null,
        update.slotSig ?? null,
        now,
      );
      if (needsPrune(db, now)) prune(db, now);
    } else {
      const sets = ["updated_ms = ?"];
      const args: (string | number | null)[] = [now];
      if (update.bundleSig !== undefined) {
        sets.push("bundle_sig = ?");
        args.push(update.bundleSig);
      }
      if (update.slotSig !== undefined) {
        sets.push("slot_sig = ?");
        args.push(update.slotSig);
      }
      db.query(`UPDATE hook_sessions SET ${sets.join(", ")} WHERE skey = ?`).run(...args, key.skey);
    }
    if (update.reset) db.query("DELETE FROM hook_delivered WHERE skey = ?").run(key.skey);
    if (update.delivered?.length) {
      const put = db.query(
        "INSERT INTO hook_delivered(skey, entry_id, body_hash, at_ms) VALUES(?,?,?,?) ON CONFLICT(skey, entry_id) DO UPDATE SET body_hash = excluded.body_hash, at_ms = excluded.at_ms",
      );
      for (const d of update.delivered) put.run(key.skey, d.id, d.hash, now);
    }
  }).immediate();
}

/**
 * Anything over the limits or past its age? (One index-only read: cheaper than pruning every time.)
 * A prune leaves room behind it (PRUNE_SLACK), so a store that has reached the limits prunes once
 * every few dozen sessions, not at every session start.
 */
function needsPrune(db: Database, now: number): boolean {
  const cutoff = now - KEEP_DAYS * 86_400_000;
  const rows = db
    .query("SELECT subagent, count(*) AS n, min(updated_ms) AS oldest FROM hook_sessions GROUP BY subagent")
    .all() as { subagent: number; n: number; oldest: number }[];
  return rows.some((r) => r.n > (r.subagent ? KEEP_SUBAGENTS : KEEP_PARENTS) || r.oldest < cutoff);
}

/** What a prune frees below each limit, and the age it drops below (an hour under KEEP_DAYS). */
const PRUNE_SLACK = 0.1;
const PRUNE_AGE_SLACK_MS = 3_600_000;

/**
 * Drop records older than 7 days (less PRUNE_AGE_SLACK_MS) and keep the newest 180 parent and
 * 90 subagent sessions (the limits less PRUNE_SLACK): the cache never holds more than 200 and 100.
 */
function prune(db: Database, now: number): void {
  const cutoff = now - KEEP_DAYS * 86_400_000 + PRUNE_AGE_SLACK_MS;
  db.query("DELETE FROM hook_sessions WHERE updated_ms < ?").run(cutoff);
  for (const [subagent, keep] of [
    [0, KEEP_PARENTS],
    [1, KEEP_SUBAGENTS],
  ] as const) {
    db.query(
      `DELETE FROM hook_sessions WHERE subagent = ?1 AND skey NOT IN
         (SELECT skey FROM hook_sessions WHERE subagent = ?1 ORDER BY updated_ms DESC, skey LIMIT ?2)`,
    ).run(subagent, Math.floor(keep * (1 - PRUNE_SLACK)));
  }
  db.query("DELETE FROM hook_delivered WHERE at_ms < ? OR skey NOT IN (SELECT skey FROM hook_sessions)").run(cutoff);
  db.query("DELETE FROM hook_events WHERE at_ms < ? OR skey NOT IN (SELECT skey FROM hook_sessions)").run(cutoff);
  db.query("DELETE FROM hook_event_entries WHERE at_ms < ? OR skey NOT IN (SELECT skey FROM hook_sessions)").run(
    cutoff,
  );
}

export const KEEP_EVENTS = 100;

/**
 * Why an entry went out (recall --explain's terms, in short): the prompt's terms it matched (the
 * field, and the word found instead when through an alternative), its similarity in meaning,
 * `meaning` when it joined on meaning alone, the path the prompt named or the agent touched, a
 * subagent's inheritance from its parent session, a session-start card. Never prompt text beyond
 * the matched terms themselves.
 */
export type DeliveryWhy = {
  terms?: { term: string; field: string; via?: string }[];
  similarity?: number;
  meaning?: boolean;
  path?: string;
  inherited?: boolean;
  card?: boolean;
};

/**
 * This process's routing reasons and shown session-start cards, until the event's log takes them:
 * retrieval/route.ts notes each routed entry's reason, the start cache what its text showed.
 */
const whys = new WeakMap<Store, Map<string, DeliveryWhy>>();
const startShown = new WeakMap<Store, StartCache>();

export function noteWhy(store: Store, id: string, why: DeliveryWhy): void {
  const m = whys.get(store) ?? new Map<string, DeliveryWhy>();
  whys.set(store, m);
  m.set(id, why);
}

/** The cards a session-start text shows: its shown files whose handle the text names. */
function shownCardIds(shown: StartCache): string[] {
  const ids = shown.shown.map(([, file]) => basename(file).replace(/\.md$/, ""));
  return [...new Set(ids)].filter((id) => shown.text.includes(`[${handle(id)}]`));
}

/**
 * The delivery log (the web UI's Sessions page): per hook event, when, which event, which entry
 * bodies it delivered and why (ids and DeliveryWhy, kept apart from the delivered set so a compact
 * does not erase them), a session start's memory cards, and how many characters it injected. Ids,
 * reasons and counts, never prompt text; the newest 100 events per session are kept, and they go
 * with their session when it is pruned.
 */
export function logHookEvent(store: Store, key: SessionKey, event: string, chars: number, now: number): void {
  const db = cacheDb(store);
  const why = whys.get(store);
  whys.delete(store);
  const shown = startShown.get(store);
  startShown.delete(store);
  db.transaction(() => {
    // Only for a session the cache knows (so nothing is left without a session to prune it with).
    db.query(
      `INSERT INTO hook_events(skey, event, at_ms, entries, chars)
       SELECT ?1, ?2, ?3, (SELECT count(*) FROM hook_delivered WHERE skey = ?1 AND at_ms = ?3), ?4
       WHERE EXISTS (SELECT 1 FROM hook_sessions WHERE skey = ?1)`,
    ).run(key.skey, event, now, chars);
    const put = db.query(
      `INSERT INTO hook_event_entries(skey, at_ms, entry_id, why) SELECT ?1, ?2, ?3, ?4
       WHERE EXISTS (SELECT 1 FROM hook_sessions WHERE skey = ?1)`,
    );
    const bodies = db.query("SELECT entry_id FROM hook_delivered WHERE skey = ? AND at_ms = ?").all(key.skey, now) as {
      entry_id: string;
    }[];
    for (const { entry_id } of bodies) {
      const w = why?.get(entry_id);
      put.run(key.skey, now, entry_id, w ? JSON.stringify(w) : "");
    }
    // A session start's cards (its rules are the session's bundle): listed, marked as cards.
    if (event === "session-start" && chars > 0 && shown)
      for (const id of shownCardIds(shown)) put.run(key.skey, now, id, CARD_WHY);
    db.query(
      `DELETE FROM hook_events WHERE skey = ?1 AND rowid <=
         (SELECT rowid FROM hook_events WHERE skey = ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2)`,
    ).run(key.skey, KEEP_EVENTS);
    db.query(
      "DELETE FROM hook_event_entries WHERE skey = ?1 AND at_ms < (SELECT min(at_ms) FROM hook_events WHERE skey = ?1)",
    ).run(key.skey);
  }).immediate();
}

/** Record counts (parents, subagents, delivered rows whose session is gone): for tests and status. */
export function sessionCounts(store: Store): { parents: number; subagents: number; orphans: number } {
  const db = cacheDb(store);
  const n = (sql: string, ...args: number[]) => (db.query(sql).get(...args) as { n: number }).n;
  return {
    parents: n("SELECT count(*) AS n FROM hook_sessions WHERE subagent = ?", 0),
    subagents: n("SELECT count(*) AS n FROM hook_sessions WHERE subagent = ?", 1),
    orphans: n("SELECT count(*) AS n FROM hook_delivered WHERE skey NOT IN (SELECT skey FROM hook_sessions)"),
  };
}

// ---------------------------------------------------------------------------------------------
// Watched files: the signature of outside files a hook last acted on (the agents' native memory)

/** The signature recorded for `key`, or undefined (never seen, or the index was rebuilt since). */
export function watchedSig(store: Store, key: string): string | undefined {
  const row = cacheDb(store).query("SELECT sig FROM watched WHERE key = ?").get(key) as { sig: string } | null;
  return row?.sig;
}

export function setWatchedSig(store: Store, key: string, sig: string, now = Date.now()): void {
  cacheDb(store)
    .query(
      "INSERT INTO watched(key, sig, at_ms) VALUES(?, ?, ?) ON CONFLICT(key) DO UPDATE SET sig = excluded.sig, at_ms = excluded.at_ms",
    )
    .run(key, sig, now);
}

// ---------------------------------------------------------------------------------------------
// Session-start text cache

/**
 * The change counters of `scopes` (scope_counts.gen, bumped by triggers on every insert, update
 * and delete of their entries): equal strings mean no entry of those scopes changed in the index.
 */
export function scopeGens(store: Store, scopes: ScopeKey[]): string {
  const rows = dbOf(store)
    .query("SELECT scope, n, gen FROM scope_counts WHERE scope IN (SELECT value FROM json_each(?)) ORDER BY scope")
    .all(JSON.stringify(scopes)) as { scope: string; n: number; gen: number }[];
  return rows.map((r) => `${r.scope}:${r.n}:${r.gen}`).join(",");
}

/** A card session start showed: its file as indexed then, so a later reuse can check it is unchanged. */
export type ShownFile = [scope: ScopeKey, file: string, size: number, mtimeMs: number];

export type StartCache = { gens: string; text: string; shown: ShownFile[] };

/**
 * In one statement: the current gens of `scopes` (as `scopeGens` gives them) and the text
 * session start rendered last for `ckey` (what it depends on, hashed), if any.
 */
export function lookStartCache(store: Store, ckey: string, scopes: ScopeKey[]): { gens: string; hit?: StartCache } {
  const row = cacheDb(store)
    .query(
      `SELECT (SELECT coalesce(group_concat(g, ','), '') FROM (SELECT scope || ':' || n || ':' || gen AS g FROM scope_counts
                WHERE scope IN (SELECT value FROM json_each(?1)) ORDER BY scope)) AS now,
              c.gens AS gens, c.text AS text, c.shown AS shown
       FROM (SELECT 1) LEFT JOIN start_cache AS c ON c.ckey = ?2`,
    )
    .get(JSON.stringify(scopes), ckey) as {
    now: string;
    gens: string | null;
    text: string | null;
    shown: string | null;
  };
  if (row.gens === null || row.text === null || row.shown === null) return { gens: row.now };
  try {
    const hit = { gens: row.gens, text: row.text, shown: JSON.parse(row.shown) as ShownFile[] };
    startShown.set(store, hit); // the text sent, unless a fresh render replaces it (writeStartCache)
    return { gens: row.now, hit };
  } catch {
    return { gens: row.now };
  }
}

const CARD_WHY = JSON.stringify({ card: true } satisfies DeliveryWhy);

/** Rows kept: one per project, host and setting in use; the oldest go past this. */
const START_CACHE_KEEP = 64;

export function writeStartCache(store: Store, ckey: string, value: StartCache, now = Date.now()): void {
  const db = cacheDb(store);
  if (!ckey.startsWith("scrubbed:")) startShown.set(store, value);
  db.query(
    "INSERT INTO start_cache(ckey, gens, text, shown, at_ms) VALUES(?, ?, ?, ?, ?) ON CONFLICT(ckey) DO UPDATE SET gens = excluded.gens, text = excluded.text, shown = excluded.shown, at_ms = excluded.at_ms",
  ).run(ckey, value.gens, value.text, JSON.stringify(value.shown), now);
  // Pruned now and then (the table only grows by a new project, host or setting).
  if (Math.random() < 1 / 16)
    db.query(
      "DELETE FROM start_cache WHERE ckey NOT IN (SELECT ckey FROM start_cache ORDER BY at_ms DESC, ckey LIMIT ?)",
    ).run(START_CACHE_KEEP);
}

/**
 * Texts the hook scrubs on the way out (rules files, issue 36 item 9), scrubbed once per content:
 * the scrubber's start-up costs more than the rest of a session start. Rows of start_cache under
 * `scrubbed:<hash of the text>` (valid whatever the scopes hold; pruned with the rest).
 */
export function lookScrubbed(store: Store, hashes: string[]): Map<string, string> {
  const rows = cacheDb(store)
    .query("SELECT ckey, text FROM start_cache WHERE ckey IN (SELECT 'scrubbed:' || value FROM json_each(?))")
    .all(JSON.stringify(hashes)) as { ckey: string; text: string }[];
  return new Map(rows.map((r) => [r.ckey.slice("scrubbed:".length), r.text]));
}

export function writeScrubbed(store: Store, hash: string, text: string, now = Date.now()): void {
  writeStartCache(store, `scrubbed:${hash}`, { gens: "*", text, shown: [] }, now);
}
