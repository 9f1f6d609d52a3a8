/**
 * How a command knows the index agrees with memory/ without reading every file (issue 15).
 *
 * Per scope folder (`<scope>/entries`) the index keeps two marks:
 * - `scan_dirs.mtime_ms`: the folder's mtime when its file names were last compared (the hook's
 *   shallow check, and every write Coffer makes itself);
 * - `meta['walked:<dir>']`: the folder's mtime when every file in it was last compared (a walk).
 * Coffer's own writes move both marks (touchScanDir: a journal of its own writes, so its changes
 * never look foreign), but the walked mark only when no foreign change was waiting.
 *
 * The CLI's check (`checkScope`, freshness "deep"):
 * 1. one lstat of the folder: a mtime that is not the walked mark means a file was added,
 *    removed or replaced by someone else (editors that save by rename, git, cp, rm) -> a walk of
 *    that folder (list + stat every file, read the changed ones), then the marks move;
 * 2. otherwise a file can only have changed in place (`echo >> file`, an editor that truncates and
 *    writes): the newest RECENT entries (by `updated`) and a random slice of SLICE rows are
 *    statted and any whose size or mtime moved is read again. A scope of up to RECENT + SLICE
 *    entries is statted whole, so there every in-place edit is seen by the next command.
 * The full walk also runs in `coffer reindex`, `coffer doctor`, imports, sync, and every
 * `serve.worker_interval_seconds` in `coffer serve`.
 */
import type { Database } from "bun:sqlite";
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { paths } from "../lib/paths";
import { assertRealDirs } from "../lib/small-file";
import { entriesDir, refreshScope, reindexFiles, walkedMark } from "./indexer";
import type { ScopeKey } from "./scope";

/** Newest entries statted by every check. */
export const RECENT = 256;
/** Further entries statted by every check, a random slice of the scope. */
export const SLICE = 768;

type Notice = (message: string) => void;

type Row = { rowid: number; file: string; size: number; mtime_ms: number };

/**
 * The CLI's freshness check of one scope (see the top of this file): a walk when the folder
 * changed under Coffer, else a stat of the recent entries and a random slice. Read-only (no
 * write lock) when nothing changed. Returns the number of rows changed.
 */
export function checkScope(db: Database, scope: ScopeKey, notice?: Notice): number {
  const dir = entriesDir(scope);
  let mtimeMs: number;
  try {
    assertRealDirs(paths.memory(), dir);
    mtimeMs = lstatSync(dir).mtimeMs;
  } catch {
    return refreshScope(db, scope, true, notice); // gone (or a link): the walk drops its rows
  }
  const known = db.query("SELECT mtime_ms FROM scan_dirs WHERE dir = ?").get(dir) as { mtime_ms: number } | null;
  if (!known || known.mtime_ms !== mtimeMs || walkedMark(db, dir) !== mtimeMs)
    return refreshScope(db, scope, true, notice);

  const cols = "rowid, file, size, mtime_ms";
  let rows = db
    .query(`SELECT ${cols} FROM entries WHERE scope = ? ORDER BY updated DESC LIMIT ?`)
    .all(scope, RECENT + SLICE + 1) as Row[];
  if (rows.length > RECENT + SLICE) {
    rows = rows.slice(0, RECENT);
    const max = (db.query("SELECT max(rowid) AS n FROM entries").get() as { n: number | null }).n ?? 0;
    const from = Math.floor(Math.random() * Math.max(1, max - SLICE));
    const seen = new Set(rows.map((r) => r.rowid));
    for (const r of db
      .query(`SELECT ${cols} FROM entries WHERE rowid >= ? AND rowid < ? AND +scope = ?`)
      .all(from, from + SLICE, scope) as Row[])
      if (!seen.has(r.rowid)) rows.push(r);
  }
  const changed: string[] = [];
  for (const r of rows) {
    try {
      const st = lstatSync(join(dir, r.file));
      if (st.size !== r.size || st.mtimeMs !== r.mtime_ms) changed.push(r.file);
    } catch {
      changed.push(r.file); // removed without the folder changing: cannot happen, but read again
    }
  }
  return changed.length ? reindexFiles(db, scope, changed, notice) : 0;
}
