/**
 * Read-only access to claude-mem's SQLite database, for `coffer import claude-mem` (src/import
 * maps what this returns to entries). Every SQL statement Coffer runs lives in src/store/, this
 * foreign one included. Schema as claude-mem's migrations create it (13.x); older databases lack
 * some columns or use the names from before its rename migration (sdk_session_id,
 * claude_session_id), so only the columns a table has are read.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { CofferError } from "../../lib/errors";

type ClaudeMemRow = Record<string, unknown> & { id: number; proj: string; session: string | null };

export type ClaudeMemReader = {
  hasObservations: boolean;
  hasSummaries: boolean;
  /** Tables claude-mem keeps that are here but not plain tables (a view, a virtual table): not read. */
  notRead: string[];
  /**
   * What tells this database from another one (another machine's, a fresh install): its first
   * observation and summary (id, session, time), which later rows never change. Import keys use it,
   * with each row's content: a copy of this database has the same first rows.
   */
  identity(): string;
  /** Originals per project (observations + summaries; a merged project counts under its target). */
  counts(): Map<string, number>;
  /** claude-mem's memory session id -> the agent's own session id. */
  agentSessions(): Map<string, string>;
  /** Working directories claude-mem saw per project, most used first. */
  directories(): Map<string, string[]>;
  /** The file lists of a project's latest observations (JSON arrays as stored). */
  fileLists(project: string, limit: number): { files_modified: unknown; files_read: unknown }[];
  /** Observations in id order, streamed: type, text, title, subtitle, facts, narrative, concepts, files_*, created_at(_epoch). */
  observations(): Iterable<ClaudeMemRow>;
  /** Session summaries in id order, streamed: request, investigated, learned, completed, next_steps, notes, files_edited, created_at(_epoch). */
  summaries(): Iterable<ClaudeMemRow>;
  close(): void;
};

/** At most this many rows per table are read (a bound on a hostile or runaway database). */
const MAX_ROWS = 1_000_000;

const OBS_COLUMNS = [
  "type",
  "text",
  "title",
  "subtitle",
  "facts",
  "narrative",
  "concepts",
  "files_read",
  "files_modified",
  "created_at",
  "created_at_epoch",
];
const SUM_COLUMNS = [
  "request",
  "investigated",
  "learned",
  "completed",
  "next_steps",
  "notes",
  "files_edited",
  "created_at",
  "created_at_epoch",
];

/** Open claude-mem's database read-only (its worker may be writing: WAL, busy timeout). */
export function openClaudeMemDb(path: string): ClaudeMemReader {
  if (!existsSync(path)) {
    throw new CofferError(
      `no claude-mem database at ${path}`,
      1,
      "Point at it with --db <path> (claude-mem keeps it in ~/.claude-mem/claude-mem.db).",
    );
  }
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
    db.run("PRAGMA busy_timeout = 5000");
    db.query("SELECT count(*) FROM sqlite_master").get();
  } catch (err) {
    throw new CofferError(`cannot read ${path}: ${(err as Error).message}`, 1, "Is it a claude-mem database?");
  }
  // Only plain tables are read: a view (a recursive one never ends) or a virtual table counts as absent.
  const plainTable = (table: string) => {
    const r = db.query("SELECT type, sql FROM sqlite_master WHERE name = ?").get(table) as {
      type: string;
      sql: string | null;
    } | null;
    return r?.type === "table" && !/^\s*CREATE\s+VIRTUAL\b/i.test(r.sql ?? "");
  };
  const columns = (table: string) =>
    plainTable(table)
      ? new Set((db.query(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((r) => r.name))
      : new Set<string>();
  const obs = columns("observations");
  const sums = columns("session_summaries");
  const sess = columns("sdk_sessions");
  if (!obs.size && !sums.size) {
    db.close();
    throw new CofferError(
      `${path} has no observations or session_summaries table (views are not read)`,
      1,
      "Is it a claude-mem database?",
    );
  }
  const proj = (cols: Set<string>) =>
    cols.has("merged_into_project") ? "COALESCE(NULLIF(merged_into_project, ''), project)" : "project";
  const session = (cols: Set<string>) =>
    cols.has("memory_session_id") ? "memory_session_id" : cols.has("sdk_session_id") ? "sdk_session_id" : "NULL";
  const pick = (cols: Set<string>, names: string[]) =>
    names
      .filter((n) => cols.has(n))
      .map((n) => `, ${n}`)
      .join("");
  const select = (table: string, cols: Set<string>, names: string[]) =>
    `SELECT id, ${proj(cols)} AS proj, ${session(cols)} AS session${pick(cols, names)} FROM ${table} ORDER BY id LIMIT ${MAX_ROWS}`;

  return {
    hasObservations: obs.size > 0,
    hasSummaries: sums.size > 0,
    notRead: ["observations", "session_summaries", "sdk_sessions"].filter(
      (t) => !plainTable(t) && db.query("SELECT 1 FROM sqlite_master WHERE name = ?").get(t) !== null,
    ),
    identity() {
      const first = (table: string, cols: Set<string>) =>
        cols.size
          ? db
              .query(
                `SELECT id, ${session(cols)} AS session${pick(cols, ["created_at", "created_at_epoch"])} FROM ${table} ORDER BY id LIMIT 1`,
              )
              .get()
          : null;
      return JSON.stringify([first("observations", obs), first("session_summaries", sums)]);
    },
    counts() {
      const out = new Map<string, number>();
      for (const [table, cols] of [
        ["observations", obs],
        ["session_summaries", sums],
      ] as const) {
        if (!cols.size) continue;
        for (const r of db.query(`SELECT ${proj(cols)} AS proj, count(*) AS n FROM ${table} GROUP BY 1`).all() as {
          proj: string;
          n: number;
        }[])
          out.set(r.proj, (out.get(r.proj) ?? 0) + r.n);
      }
      return out;
    },
    agentSessions() {
      const out = new Map<string, string>();
      const m = sess.has("memory_session_id") ? "memory_session_id" : "sdk_session_id";
      const c = sess.has("content_session_id") ? "content_session_id" : "claude_session_id";
      if (!sess.has(m) || !sess.has(c)) return out;
      for (const r of db.query(`SELECT ${m} AS m, ${c} AS c FROM sdk_sessions`).all() as {
        m: string | null;
        c: string | null;
      }[])
        if (r.m && r.c) out.set(r.m, r.c);
      return out;
    },
    directories() {
      const out = new Map<string, string[]>();
      const add = (sql: string) => {
        for (const r of db.query(sql).all() as { proj: string; cwd: string | null }[]) {
          if (!r.cwd) continue;
          const list = out.get(r.proj) ?? [];
          if (!list.includes(r.cwd)) list.push(r.cwd);
          out.set(r.proj, list);
        }
      };
      if (columns("tool_uses").has("cwd"))
        add("SELECT project AS proj, cwd FROM tool_uses WHERE cwd IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC");
      if (columns("pending_messages").has("cwd") && sess.has("id"))
        add(
          `SELECT s.project AS proj, p.cwd AS cwd FROM pending_messages p JOIN sdk_sessions s ON s.id = p.session_db_id
           WHERE p.cwd IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC`,
        );
      return out;
    },
    fileLists(project, limit) {
      if (!obs.has("files_modified") || !obs.has("files_read")) return [];
      return db
        .query(`SELECT files_modified, files_read FROM observations WHERE ${proj(obs)} = ? ORDER BY id DESC LIMIT ?`)
        .all(project, limit) as { files_modified: unknown; files_read: unknown }[];
    },
    observations() {
      return obs.size ? (db.query(select("observations", obs, OBS_COLUMNS)).iterate() as Iterable<ClaudeMemRow>) : [];
    },
    summaries() {
      return sums.size
        ? (db.query(select("session_summaries", sums, SUM_COLUMNS)).iterate() as Iterable<ClaudeMemRow>)
        : [];
    },
    close() {
      db.close();
    },
  };
}
