import { Database, constants as sqliteConstants } from "bun:sqlite";
import { accessSync, existsSync, constants as fsConstants, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { paths } from "../lib/paths";
import { MODEL_ID } from "../retrieval/embed/embed";

/**
 * Bump when the schema changes: an older index.db is dropped and rebuilt from memory/ (so also
 * when the scrubber learns new shapes: the rebuilt index holds only what today's scrubber keeps).
 */
export const SCHEMA_VERSION = 16;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries(
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  scope TEXT NOT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  tags TEXT NOT NULL,
  -- JSON array: other words for the topic (routing and recall weigh them below title and tags)
  keywords TEXT NOT NULL DEFAULT '[]',
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
  -- '' for a current entry, 'superseded' for one a newer entry replaced (never routed or recalled)
  status TEXT NOT NULL DEFAULT '',
  superseded_by TEXT,
  -- JSON array of anchors (store/anchors.ts): the files, scripts, targets and dependencies it names
  anchors TEXT NOT NULL DEFAULT '[]',
  -- JSON array of the last staleness check's reasons (store/stale.ts), '' when fresh or unchecked
  stale TEXT NOT NULL DEFAULT '',
  UNIQUE(scope, id)
);
CREATE INDEX IF NOT EXISTS entries_id ON entries(id);
-- The CLI's freshness check (store/freshness.ts) stats the newest entries and a slice by id, reading
-- each one's file, size and mtime: from these covering indexes, not 1,000 lookups of rows whose bodies
-- spread them over the table (6-8 ms at 100,000 entries in a fresh process, 1.3 ms from the index).
CREATE INDEX IF NOT EXISTS entries_scope_updated ON entries(scope, updated, file, size, mtime_ms);
CREATE INDEX IF NOT EXISTS entries_slice ON entries(scope, id, file, size, mtime_ms);
CREATE INDEX IF NOT EXISTS entries_norm ON entries(scope, norm_hash);
-- list, status and the freshness check read these without touching the rows (bodies): covering
-- indexes, so they cost the same at 100,000 entries as at 1,000.
CREATE INDEX IF NOT EXISTS entries_list ON entries(scope, status, updated, id);
CREATE INDEX IF NOT EXISTS entries_size ON entries(scope, size);
-- Session start's project cards (newest entries with kind, title and file) without reading the rows:
-- 200 row lookups in a cold 100,000-entry table cost about a millisecond on every session start.
CREATE INDEX IF NOT EXISTS entries_cards ON entries(scope, updated, id, kind, title, file, size, mtime_ms) WHERE status = '';
-- Recall's answer to a question hit: the entry written right after it in the same scope.
CREATE INDEX IF NOT EXISTS entries_created ON entries(scope, created, id) WHERE status = '';
-- Entries per scope (and their bytes), kept by triggers: the prompt hook's statistics, list's total
-- and status read one row per scope instead of counting 100,000 index entries. gen counts every
-- change to a scope's rows: session start reuses the cards it rendered while its scopes' gens stay the same.
CREATE TABLE IF NOT EXISTS scope_counts(scope TEXT PRIMARY KEY, n INTEGER NOT NULL, gen INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0);
CREATE TRIGGER IF NOT EXISTS entries_count_ins AFTER INSERT ON entries BEGIN
  INSERT INTO scope_counts(scope, n, gen, bytes) VALUES(new.scope, 1, 1, new.size)
    ON CONFLICT(scope) DO UPDATE SET n = n + 1, gen = gen + 1, bytes = bytes + new.size;
END;
CREATE TRIGGER IF NOT EXISTS entries_count_del AFTER DELETE ON entries BEGIN
  UPDATE scope_counts SET n = n - 1, gen = gen + 1, bytes = bytes - old.size WHERE scope = old.scope;
END;
CREATE TRIGGER IF NOT EXISTS entries_count_move AFTER UPDATE OF scope ON entries WHEN old.scope != new.scope BEGIN
  UPDATE scope_counts SET n = n - 1, bytes = bytes - old.size WHERE scope = old.scope;
  INSERT INTO scope_counts(scope, n, bytes) VALUES(new.scope, 1, new.size)
    ON CONFLICT(scope) DO UPDATE SET n = n + 1, bytes = bytes + new.size;
END;
CREATE TRIGGER IF NOT EXISTS entries_gen_upd AFTER UPDATE ON entries BEGIN
  UPDATE scope_counts SET gen = gen + 1, bytes = bytes + iif(old.scope = new.scope, new.size - old.size, 0)
    WHERE scope IN (old.scope, new.scope);
END;
-- scope holds one token per row (see scopeToken) so a per-scope query scores only that scope's rows;
-- keywords apart from tags, so each field weighs what it should (src/retrieval/match.ts).
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
  scope, title, tags, keywords, body,
  content='', contentless_delete=1,
  tokenize='porter unicode61 remove_diacritics 2'
);
INSERT INTO entries_fts(entries_fts, rank) VALUES('rank', 'bm25(0.0, 4.0, 2.0, 1.5, 1.0)');
-- Sentence vectors of current entries and their packed sign codes (store/vectors.ts). A deleted
-- entry's vector goes with its row; its code stays in the block until the scope is packed again.
CREATE TABLE IF NOT EXISTS entry_vectors(rowid INTEGER PRIMARY KEY, scope TEXT NOT NULL, model TEXT NOT NULL, vec BLOB NOT NULL, packed INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS entry_vectors_scope ON entry_vectors(scope);
CREATE INDEX IF NOT EXISTS entry_vectors_pending ON entry_vectors(scope, rowid) WHERE packed = 0;
CREATE TABLE IF NOT EXISTS vector_blocks(scope TEXT NOT NULL, block INTEGER NOT NULL, n INTEGER NOT NULL, rowids BLOB NOT NULL, codes BLOB NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS vector_blocks_key ON vector_blocks(scope, block);
CREATE TRIGGER IF NOT EXISTS entries_vector_del AFTER DELETE ON entries BEGIN
  DELETE FROM entry_vectors WHERE rowid = old.rowid;
END;
CREATE TABLE IF NOT EXISTS scan_dirs(
  dir TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  mtime_ms REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- Weak anchors (a backticked package name) a staleness check found present: only those can go missing.
CREATE TABLE IF NOT EXISTS anchor_seen(scope TEXT NOT NULL, id TEXT NOT NULL, anchor TEXT NOT NULL, PRIMARY KEY(scope, id, anchor)) WITHOUT ROWID;
-- The staleness check reads entries with anchors without scanning every body.
CREATE INDEX IF NOT EXISTS entries_anchored ON entries(scope) WHERE anchors != '[]';
-- Hook routing reads entries that carry applies_to globs without scanning every body.
CREATE INDEX IF NOT EXISTS entries_applies ON entries(scope) WHERE applies_to != '[]';
-- The hooks' cache (store/delivery/sessions.ts): delivered sets, the event log, session start's text, watched files.
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
CREATE TABLE IF NOT EXISTS hook_events(
  skey TEXT NOT NULL,
  event TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  entries INTEGER NOT NULL,
  chars INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS hook_events_skey ON hook_events(skey, at_ms);
CREATE TABLE IF NOT EXISTS hook_event_entries(skey TEXT NOT NULL, at_ms INTEGER NOT NULL, entry_id TEXT NOT NULL, why TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS hook_event_entries_skey ON hook_event_entries(skey, at_ms);
CREATE INDEX IF NOT EXISTS entries_everywhere ON entries(scope, updated, id, title, file, size, mtime_ms) WHERE kind IN ('convention', 'preference') AND status = '';
CREATE TABLE IF NOT EXISTS watched(key TEXT PRIMARY KEY, sig TEXT NOT NULL, at_ms INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS start_cache(ckey TEXT PRIMARY KEY, gens TEXT NOT NULL, text TEXT NOT NULL, shown TEXT NOT NULL, at_ms INTEGER NOT NULL) WITHOUT ROWID;
-- What hooks injected, per day, host and event, and each host's last event (store/usage.ts).
CREATE TABLE IF NOT EXISTS hook_usage(
  day TEXT NOT NULL,
  host TEXT NOT NULL,
  event TEXT NOT NULL,
  events INTEGER NOT NULL,
  chars INTEGER NOT NULL,
  PRIMARY KEY(day, host, event)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entry_deliveries(
  entry_id TEXT NOT NULL,
  day TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY(entry_id, day)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entry_deliveries_day ON entry_deliveries(day);
CREATE TABLE IF NOT EXISTS hook_last(
  host TEXT PRIMARY KEY,
  event TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  cwd TEXT NOT NULL,
  project TEXT
) WITHOUT ROWID;
`;

/** What an open did to the schema: nothing, created it in an empty file, or replaced an older or unreadable one. */
type Created = false | "new" | "upgraded" | "replaced";

export type IndexDb = {
  db: Database;
  /**
   * Set only in the one process that created (or upgraded, or replaced) the schema: it fills
   * the index from memory/. "new" is a first run (quiet); the others deserve a notice.
   */
  created: Created;
  /** The store cannot be written: this is a private copy in memory, gone when it is closed. */
  inMemory?: boolean;
};

function removeDbFiles(file: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
}

/** SQLite's "another connection holds the lock" (past busy_timeout): worth retrying, not a failure. */
export function isBusy(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return /^SQLITE_(BUSY|LOCKED)/.test(e?.code ?? "") || /database is (locked|busy)/i.test(e?.message ?? "");
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

/** How long a statement waits for another process's write lock unless the caller says otherwise. */
export const BUSY_TIMEOUT_MS = 5000;

function setBusyTimeout(db: Database, ms: number): void {
  db.run(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(ms))}`);
}

function openRaw(file: string): Database {
  const db = new Database(file, { create: true, strict: true });
  setBusyTimeout(db, BUSY_TIMEOUT_MS);
  // deleted rows are overwritten with zeros: a value the scrubber removed does not linger in free space
  // (a contentless full-text index drops a deleted document's words when its segments merge; a
  // rebuild, `coffer reindex`, drops them at once)
  db.run("PRAGMA secure_delete = ON");
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
      // Every table of the older schema (virtual tables first: dropping one drops its shadow tables).
      const old = db
        .query(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY sql LIKE 'CREATE VIRTUAL%' DESC",
        )
        .all() as { name: string }[];
      for (const t of old) db.run(`DROP TABLE IF EXISTS "${t.name.replace(/"/g, '""')}"`);
    }
    db.run(SCHEMA);
    // Every vector written from here on is this binary's model's (store/vectors.ts).
    db.query("INSERT OR REPLACE INTO meta(key, value) VALUES('vector_model', ?)").run(MODEL_ID);
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    created = again === 0 && tables === 0 ? "new" : "upgraded";
  }).immediate();
  return created;
}

/**
 * Open `state/index.db` (WAL). Creating or checking the schema waits up to BUSY_TIMEOUT_MS for
 * another process that is creating it; later statements wait `busyTimeoutMs`. A missing file is created; a corrupt one is
 * deleted and recreated. `created` is true only in the one process that created (or upgraded,
 * or replaced) the schema: it tells that caller to fill the index from memory/.
 *
 * A store that cannot be written (read-only file system, no permission) still reads: the index
 * is copied into memory (or built there from memory/ when the file cannot be read either) and
 * `inMemory` is set; writes to memory/ then fail with a message that says why.
 */
export function openIndexDb(file = paths.indexDb(), busyTimeoutMs = BUSY_TIMEOUT_MS): IndexDb {
  // While another process creates the index or switches it to WAL, SQLite may answer "busy" at
  // once, without waiting (many processes starting on a new store): open again, within the wait.
  const until = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      return openIndexFile(file, busyTimeoutMs);
    } catch (err) {
      if (isBusy(err) && Date.now() < until) {
        Bun.sleepSync(15 + Math.floor(Math.random() * 30));
        continue;
      }
      if (!isUnwritable(err)) throw err;
      return openInMemory(file, busyTimeoutMs);
    }
  }
}

/**
 * Errors that mean "this index cannot be opened for writing here" (not corruption, not a busy lock):
 * a read-only or unwritable store, or a full disk (SQLite cannot even map its shared memory then).
 */
export function isUnwritable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  const code = String(e?.code ?? "");
  return (
    ["EROFS", "EACCES", "EPERM"].includes(code) ||
    /^SQLITE_(READONLY|CANTOPEN|PERM|AUTH|IOERR|FULL)/.test(code) ||
    /unable to open database file|readonly database|read-only file system|disk I\/O error|disk is full/i.test(
      String(e?.message ?? ""),
    )
  );
}

/**
 * No fsync from any process: index.db is a cache of memory/ (whose files are written with fsync),
 * and what only it holds (what a session was shown, hook counters) is worth less than the time.
 * A process that dies loses nothing (the OS has the pages); an OS crash or power cut can lose the
 * last commits, which the next refresh reads again from the files, or damage the file, which is
 * then rebuilt (`withHealing`). With synchronous = NORMAL (the CLI's setting until now; hooks
 * already ran without), the checkpoint every writing process runs when it closes fsyncs twice:
 * 1.4 ms of a `remember` at 100,000 entries on this project's machines, more on a slower disk.
 */
function noSync(db: Database): void {
  db.run("PRAGMA synchronous = OFF");
}

function openIndexFile(file: string, busyTimeoutMs: number): IndexDb {
  mkdirSync(dirname(file), { recursive: true });
  let db = openRaw(file);
  try {
    const created = prepare(db);
    noSync(db);
    setBusyTimeout(db, busyTimeoutMs);
    return { db, created };
  } catch (err) {
    db.close();
    if (!isCorruption(err)) throw err;
    removeDbFiles(file);
    db = openRaw(file);
    const created = prepare(db) && "replaced";
    noSync(db);
    setBusyTimeout(db, busyTimeoutMs);
    return { db, created };
  }
}

/** A private in-memory copy of the index (or a new one to fill from memory/) for a store that cannot be written. */
function openInMemory(file: string, busyTimeoutMs: number): IndexDb {
  let db: Database | undefined;
  try {
    // The file's bytes, marked as a rollback-journal database (header bytes 18-19) so SQLite takes
    // them in memory; a WAL not yet checkpointed is caught up by the store's refresh from memory/.
    const buf = readFileSync(file);
    if (buf.length >= 100 && buf.subarray(0, 16).toString("latin1") === "SQLite format 3\0") {
      buf[18] = 1;
      buf[19] = 1;
      const copy = Database.deserialize(buf, { strict: true });
      const version = (copy.query("PRAGMA user_version").get() as { user_version: number }).user_version;
      if (version === SCHEMA_VERSION) db = copy;
      else copy.close();
    }
  } catch {
    db = undefined;
  }
  let created: Created = false;
  if (!db) {
    db = new Database(":memory:", { strict: true });
    created = prepare(db) && "new";
  }
  setBusyTimeout(db, busyTimeoutMs);
  return { db, created, inMemory: true };
}

// ---------------------------------------------------------------------------------------------
// The open index behind each Store: only src/store/ reaches it (no SQL outside the store).

const handles = new WeakMap<object, Database>();

/** The store's open index. Store-internal: files outside src/store/ never call this. */
export function dbOf(store: object): Database {
  const db = handles.get(store);
  if (!db) throw new Error("the store is closed");
  return db;
}

/** Bind (or, after healing, rebind) a store to its open index. */
export function attachDb(store: object, db: Database): void {
  handles.set(store, db);
}

/** Close the store's index (idempotent). */
export function detachDb(store: object): void {
  const db = handles.get(store);
  handles.delete(store);
  try {
    db?.close();
  } catch {}
}

/** Delete a corrupt index so the next open starts clean. */
export function discardIndexDb(db: Database, file = paths.indexDb()): void {
  try {
    db.close();
  } catch {}
  removeDbFiles(file);
}

/** `entries`: the rows of memory/'s files; `team`: the rows of team lanes (`.coffer/` in worktrees, not memory/). */
export type IndexFileState =
  | { state: "ok"; entries: number; team: number }
  | { state: "outdated"; version: number }
  | { state: "corrupt"; detail: string }
  /** The store cannot be written (a read-only mount, or its folders made read-only): it reads fine. */
  | { state: "readonly"; entries: number | null; team: number; detail: string };

/** Index rows per lane: a team key is `team` + 26 characters (scope.ts isTeamKey), every other scope is memory/'s. */
const LANE_COUNTS = `SELECT count(*) FILTER (WHERE NOT (scope GLOB 'team*' AND length(scope) = 30)) AS entries,
  count(*) FILTER (WHERE scope GLOB 'team*' AND length(scope) = 30) AS team FROM entries`;

function laneCounts(db: Database): { entries: number; team: number } {
  const row = db.query(LANE_COUNTS).get() as { entries: number | null; team: number | null } | null;
  return { entries: row?.entries ?? 0, team: row?.team ?? 0 };
}

/** Can this process write `file` (and create files beside it, as SQLite's WAL must)? */
function writable(file: string): boolean {
  try {
    accessSync(dirname(file), fsConstants.W_OK);
    if (existsSync(file)) accessSync(file, fsConstants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A read-only store's index, checked without writing anything (SQLite's `immutable` open). */
function inspectImmutable(file: string, why: string): IndexFileState {
  let db: Database | undefined;
  try {
    db = new Database(
      `file:${encodeURI(file).replace(/[?#]/g, encodeURIComponent)}?immutable=1`,
      sqliteConstants.SQLITE_OPEN_READONLY | sqliteConstants.SQLITE_OPEN_URI,
    );
    const check = db.query("PRAGMA quick_check").get() as Record<string, string> | null;
    if (!check || Object.values(check)[0] !== "ok")
      return {
        state: "corrupt",
        detail: `failed its integrity check (${check ? Object.values(check)[0] : "no answer"})`,
      };
    return { state: "readonly", ...laneCounts(db), detail: why };
  } catch {
    return { state: "readonly", entries: null, team: 0, detail: why };
  } finally {
    db?.close();
  }
}

/** Check index.db read-only without changing it (`coffer doctor`): integrity, schema version, entries. */
export function inspectIndexFile(file = paths.indexDb()): IndexFileState {
  let db: Database | undefined;
  try {
    db = new Database(file, { readonly: true });
    const check = db.query("PRAGMA quick_check").get() as Record<string, string> | null;
    if (!check || Object.values(check)[0] !== "ok")
      return {
        state: "corrupt",
        detail: `failed its integrity check (${check ? Object.values(check)[0] : "no answer"})`,
      };
    const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    if (version !== SCHEMA_VERSION) return { state: "outdated", version };
    return { state: "ok", ...laneCounts(db) };
  } catch (err) {
    const why = (err as Error).message.split("\n")[0]!;
    // A store that cannot be written is not a broken index: say read-only (and still check it).
    if (!writable(file)) return inspectImmutable(file, why);
    return { state: "corrupt", detail: `cannot be read (${why})` };
  } finally {
    db?.close();
  }
}
