/**
 * Sessions in OpenCode's SQLite schema, read-only (./open.ts): Kilo Code's `kilo.db` and OpenCode's
 * own `opencode.db` (Kilo is an OpenCode fork; the tables read here are the same: one reader for
 * both). Observed with Kilo 7.7.7 and OpenCode 1.18.33 (docs/hosts-observed.md):
 * `session` (id, directory, title, parent_id, version, time_created/updated in ms), `message`
 * (id, session_id, time_created, data: JSON with role, time, tokens…) and `part` (id, message_id,
 * session_id, time_created, data: JSON `{type: "text"|"tool"|"reasoning"|"step-start"|…}`). Rows
 * come back as stored; transcripts/kilo.ts reads their JSON.
 */
import { basename } from "node:path";
import { type ForeignRead, readForeign } from "./open";

/** Whose database it is, for reasons. */
const whatOf = (db: string) =>
  basename(db).startsWith("opencode") ? "OpenCode's session database" : "Kilo's session database";

const NEED = {
  session: ["id", "directory", "title", "parent_id", "version", "time_created", "time_updated"],
  message: ["id", "session_id", "time_created", "data"],
  part: ["id", "message_id", "session_id", "time_created", "data"],
} as const;

/** At most this many messages and parts of one session are read (a bound on a runaway session). */
const MAX_ROWS = 50_000;

export type KiloSessionRow = {
  id: string;
  directory: string;
  title: string;
  parent_id: string | null;
  version: string;
  time_created: number;
  time_updated: number;
  /** Messages plus parts: with time_updated, what tells a changed session (the ledger's size). */
  rows: number;
};

export type KiloMessageRow = { id: string; time_created: number; data: string };
export type KiloPartRow = { id: string; message_id: string; time_created: number; data: string };

const SESSION_COLUMNS = `s.id, s.directory, s.title, s.parent_id, s.version, s.time_created, s.time_updated,
  (SELECT count(*) FROM message m WHERE m.session_id = s.id) + (SELECT count(*) FROM part p WHERE p.session_id = s.id) AS rows`;

/** Sessions updated since `sinceMs` (all when undefined), newest first. */
export function kiloSessions(db: string, sinceMs?: number): ForeignRead<KiloSessionRow[]> {
  return readForeign(
    db,
    whatOf(db),
    NEED,
    (d) =>
      d
        .query(`SELECT ${SESSION_COLUMNS} FROM session s WHERE s.time_updated >= ? ORDER BY s.time_updated DESC`)
        .all(Math.floor(sinceMs ?? 0)) as KiloSessionRow[],
  );
}

/** One session's row, or undefined when the database has none of that id. */
export function kiloSession(db: string, id: string): ForeignRead<KiloSessionRow | undefined> {
  return readForeign(
    db,
    whatOf(db),
    NEED,
    (d) =>
      (d.query(`SELECT ${SESSION_COLUMNS} FROM session s WHERE s.id = ?`).get(id) as KiloSessionRow | null) ??
      undefined,
  );
}

/** A session with its messages (in order) and their parts (in order within each message). */
export function kiloConversation(
  db: string,
  id: string,
): ForeignRead<{ session: KiloSessionRow; messages: KiloMessageRow[]; parts: KiloPartRow[] } | undefined> {
  return readForeign(db, whatOf(db), NEED, (d) => {
    const session = d.query(`SELECT ${SESSION_COLUMNS} FROM session s WHERE s.id = ?`).get(id) as KiloSessionRow | null;
    if (!session) return undefined;
    const messages = d
      .query("SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id LIMIT ?")
      .all(id, MAX_ROWS) as KiloMessageRow[];
    const parts = d
      .query("SELECT id, message_id, time_created, data FROM part WHERE session_id = ? ORDER BY message_id, id LIMIT ?")
      .all(id, MAX_ROWS) as KiloPartRow[];
    return { session, messages, parts };
  });
}
