/**
 * The delivered-set cache in index.db: per (host, cwd, session) — or `<session>#agent:<id>` for a
 * subagent — which entry bodies were sent (id + body hash), and the signature of the rules
 * bundle / context slot last sent. Never prompt text.
 */
import type { Database } from "bun:sqlite";
import { sha256 } from "../lib/hash";
import type { Host } from "./config";
import { dbOf } from "./db";
import type { Store } from "./store";

/**
 * The cache's tables, created on first use by each open (a no-op read once they exist: no write
 * lock). A schema upgrade of index.db drops them with the rest.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS hook_sessions(
  skey TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  cwd TEXT NOT NULL,
  session TEXT NOT NULL,
  subagent INTEGER NOT NULL,
  bundle_sig TEXT,
  slot_sig TEXT,
  updated_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS hook_sessions_age ON hook_sessions(subagent, updated_ms);
CREATE TABLE IF NOT EXISTS hook_delivered(
  skey TEXT NOT NULL,
  entry_id TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  PRIMARY KEY(skey, entry_id)
) WITHOUT ROWID;
`;

export const KEEP_DAYS = 7;
export const KEEP_PARENTS = 200;
export const KEEP_SUBAGENTS = 100;

export type SessionKey = { skey: string; host: Host; cwd: string; session: string; subagent: boolean };

export function sessionKey(host: Host, cwd: string, sessionId: string, agentId?: string): SessionKey {
  const session = agentId ? `${sessionId}#agent:${agentId}` : sessionId;
  return { skey: sha256(`${host}\0${cwd}\0${session}`).slice(0, 32), host, cwd, session, subagent: !!agentId };
}

const ready = new WeakSet<Database>();

function cacheDb(store: Store): Database {
  const db = dbOf(store);
  if (!ready.has(db)) {
    db.run(SCHEMA);
    ready.add(db);
  }
  return db;
}

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

/** Anything over the limits or past its age? (Index-only reads: cheaper than pruning every time.) */
function needsPrune(db: Database, now: number): boolean {
  const cutoff = now - KEEP_DAYS * 86_400_000;
  for (const [subagent, keep] of [
    [0, KEEP_PARENTS],
    [1, KEEP_SUBAGENTS],
  ] as const) {
    const r = db
      .query("SELECT count(*) AS n, min(updated_ms) AS oldest FROM hook_sessions WHERE subagent = ?")
      .get(subagent) as { n: number; oldest: number | null };
    if (r.n > keep || (r.oldest !== null && r.oldest < cutoff)) return true;
  }
  return false;
}

/** Drop records older than 7 days; keep the newest 200 parent and 100 subagent sessions. */
function prune(db: Database, now: number): void {
  const cutoff = now - KEEP_DAYS * 86_400_000;
  db.query("DELETE FROM hook_sessions WHERE updated_ms < ?").run(cutoff);
  for (const [subagent, keep] of [
    [0, KEEP_PARENTS],
    [1, KEEP_SUBAGENTS],
  ] as const) {
    db.query(
      `DELETE FROM hook_sessions WHERE subagent = ?1 AND skey NOT IN
         (SELECT skey FROM hook_sessions WHERE subagent = ?1 ORDER BY updated_ms DESC, skey LIMIT ?2)`,
    ).run(subagent, keep);
  }
  db.query("DELETE FROM hook_delivered WHERE at_ms < ? OR skey NOT IN (SELECT skey FROM hook_sessions)").run(cutoff);
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
