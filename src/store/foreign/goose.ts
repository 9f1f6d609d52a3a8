/**
 * Goose's sessions, read from its SQLite database (`sessions/sessions.db` in Goose's data folder,
 * Goose 1.10 and later), read-only (./open.ts). Goose was not run here: the schema is the one its
 * source creates (block/goose `crates/goose/src/session/session_manager.rs` at dbec1655,
 * `CURRENT_SCHEMA_VERSION` 9): `sessions` (id `YYYYMMDD_N`, name, session_type, working_dir,
 * created_at/updated_at as SQLite timestamps) and `messages` (session_id, role, content_json: the
 * message's content array, created_timestamp in seconds, timestamp, metadata_json). Rows come back as
 * stored; transcripts/goose.ts reads their JSON.
 */
import { type ForeignRead, readForeign } from "./open";

const WHAT = "Goose's session database";

const NEED = {
  sessions: ["id", "name", "session_type", "working_dir", "created_at", "updated_at"],
  messages: ["id", "session_id", "role", "content_json", "created_timestamp", "timestamp", "metadata_json"],
} as const;

/** At most this many messages of one session are read (a bound on a runaway session). */
const MAX_ROWS = 50_000;

export type GooseSessionRow = {
  id: string;
  name: string;
  session_type: string;
  working_dir: string;
  /** Milliseconds (Goose stores `YYYY-MM-DD HH:MM:SS` in UTC, or an RFC 3339 time for imported sessions). */
  created_ms: number | null;
  updated_ms: number | null;
  /** Messages: with updated_ms, what tells a changed session (the ledger's size). */
  rows: number;
};

export type GooseMessageRow = {
  role: string;
  content_json: string;
  created_timestamp: number;
  metadata_json: string | null;
};

const SESSION_COLUMNS = `s.id, s.name, s.session_type, s.working_dir,
  CAST(strftime('%s', s.created_at) AS INTEGER) * 1000 AS created_ms,
  CAST(strftime('%s', s.updated_at) AS INTEGER) * 1000 AS updated_ms,
  (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS rows`;

/** Sessions updated since `sinceMs` (all when undefined), newest first. */
export function gooseSessions(db: string, sinceMs?: number): ForeignRead<GooseSessionRow[]> {
  return readForeign(db, WHAT, NEED, (d) => {
    const rows = d
      .query(`SELECT ${SESSION_COLUMNS} FROM sessions s ORDER BY s.updated_at DESC`)
      .all() as GooseSessionRow[];
    return sinceMs === undefined ? rows : rows.filter((r) => (r.updated_ms ?? 0) >= sinceMs);
  });
}

/** One session's row, or undefined when the database has none of that id. */
export function gooseSession(db: string, id: string): ForeignRead<GooseSessionRow | undefined> {
  return readForeign(
    db,
    WHAT,
    NEED,
    (d) =>
      (d.query(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = ?`).get(id) as GooseSessionRow | null) ??
      undefined,
  );
}

/** A session with its messages, in Goose's own order (by `timestamp`, then as inserted). */
export function gooseConversation(
  db: string,
  id: string,
): ForeignRead<{ session: GooseSessionRow; messages: GooseMessageRow[] } | undefined> {
  return readForeign(db, WHAT, NEED, (d) => {
    const session = d
      .query(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = ?`)
      .get(id) as GooseSessionRow | null;
    if (!session) return undefined;
    const messages = d
      .query(
        "SELECT role, content_json, created_timestamp, metadata_json FROM messages WHERE session_id = ? ORDER BY timestamp, id LIMIT ?",
      )
      .all(id, MAX_ROWS) as GooseMessageRow[];
    return { session, messages };
  });
}
