import { Database } from "bun:sqlite";
import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { paths } from "../lib/paths";

/** Bump when the schema changes: an older index.db is dropped and rebuilt from memory/. */
export const SCHEMA_VERSION = 3;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries(
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  scope TEXT NOT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  tags TEXT NOT NULL,
  applies_to TEXT NOT NULL,
  actor TEXT NOT NULL,
  source TEXT NOT NULL,
  origin_session TEXT,
  created TEXT NOT NULL,
  updated TEXT NOT NULL,
  body TEXT NOT NULL,
  norm_hash TEXT NOT NULL,
  file TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  file_hash TEXT NOT NULL,
  UNIQUE(scope, id)
);
CREATE INDEX IF NOT EXISTS entries_id ON entries(id);
CREATE INDEX IF NOT EXISTS entries_scope_updated ON entries(scope, updated);
CREATE INDEX IF NOT EXISTS entries_norm ON entries(scope, norm_hash);
-- scope holds one token per row (see scopeToken) so a per-scope query scores only that scope's rows.
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
  scope, title, tags, body,
  content='', contentless_delete=1,
  tokenize='porter unicode61 remove_diacritics 2'
);
INSERT INTO entries_fts(entries_fts, rank) VALUES('rank', 'bm25(0.0, 4.0, 2.0, 1.0)');
CREATE TABLE IF NOT EXISTS scan_dirs(
  dir TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  mtime_ms REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- Hook routing reads entries that carry applies_to globs without scanning every body.
CREATE INDEX IF NOT EXISTS entries_applies ON entries(scope) WHERE applies_to != '[]';
-- Hook delivered-set cache, one row per (host, cwd, session) or subagent key. Ids, hashes,
-- host, cwd and session ids only: never prompt text.
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

/** What an open did to the schema: nothing, created it in an empty file, or replaced an older or unreadable one. */
export type Created = false | "new" | "upgraded" | "replaced";

export type IndexDb = {
  db: Database;
  /**
   * Set only in the one process that created (or upgraded, or replaced) the schema: it fills
   * the index from memory/. "new" is a first run (quiet); the others deserve a notice.
   */
  created: Created;
};

function removeDbFiles(file: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
}

/** SQLite errors that mean "this file is not a usable index": rebuild instead of failing. */
export function isCorruption(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  const code = e?.code ?? "";
  return (
    code.startsWith("SQLITE_CORRUPT") ||
    code.startsWith("SQLITE_NOTADB") ||
    /file is not a database|malformed|database disk image/i.test(e?.message ?? "")
  );
}

function openRaw(file: string): Database {
  const db = new Database(file, { create: true, strict: true });
  db.run("PRAGMA busy_timeout = 5000");
  return db;
}

/**
 * Create (or upgrade) the schema; says what this process did, false when another did it. An
 * empty file is a first run even when another process created the file a moment earlier.
 */
function prepare(db: Database): Created {
  const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (version === SCHEMA_VERSION) return false;
  db.run("PRAGMA journal_mode = WAL");
  let created: Created = false;
  db.transaction(() => {
    const again = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    if (again === SCHEMA_VERSION) return; // another process won the race
    const tables = (db.query("SELECT count(*) AS n FROM sqlite_master").get() as { n: number }).n;
    if (again !== 0 || tables > 0) {
      for (const t of ["entries", "entries_fts", "scan_dirs", "meta", "deliveries", "hook_sessions", "hook_delivered"])
        db.run(`DROP TABLE IF EXISTS ${t}`);
    }
    db.run(SCHEMA);
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    created = again === 0 && tables === 0 ? "new" : "upgraded";
  }).immediate();
  return created;
}

/**
 * Open `state/index.db` (WAL, busy timeout). A missing file is created; a corrupt one is
 * deleted and recreated. `created` is true only in the one process that created (or upgraded,
 * or replaced) the schema: it tells that caller to fill the index from memory/.
 */
export function openIndexDb(file = paths.indexDb()): IndexDb {
  mkdirSync(dirname(file), { recursive: true });
  let db = openRaw(file);
  try {
    const created = prepare(db);
    db.run("PRAGMA synchronous = NORMAL");
    return { db, created };
  } catch (err) {
    db.close();
    if (!isCorruption(err)) throw err;
    removeDbFiles(file);
    db = openRaw(file);
    const created = prepare(db) && "replaced";
    db.run("PRAGMA synchronous = NORMAL");
    return { db, created };
  }
}

/** Delete a corrupt index so the next open starts clean. */
export function discardIndexDb(db: Database, file = paths.indexDb()): void {
  try {
    db.close();
  } catch {}
  removeDbFiles(file);
}
