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
 *    writes): the newest RECENT entries (by `updated`) and the next slice of SLICE entries (by
 *    id, from where the previous command stopped, wrapping around: `state/freshness-slice.json`)
 *    are statted and any whose size or mtime moved is read again. A scope of up to RECENT + SLICE
 *    entries is statted whole, so there every in-place edit is seen by the next command; in a
 *    larger one every entry is statted by one of ceil(entries / SLICE) consecutive commands.
 * The full walk also runs in `coffer reindex`, `coffer doctor`, imports, sync, and every
 * `serve.worker_interval_seconds` in `coffer serve`.
 *
 * Whatever the check missed is never shown old: every entry a command or hook is about to show
 * is compared with its file first (`verifyRows`) and read again when it changed.
 */
import type { Database } from "bun:sqlite";
import { lstatSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { paths } from "../lib/paths";
import { assertRealDirs } from "../lib/small-file";
import { entriesDir, refreshScope, reindexFiles, trustRoot, walkedMark } from "./indexer";
import type { ScopeKey } from "./scope";

/**
 * Newest entries statted by every check, and further entries (the next slice of the scope, in id
 * order). Each stat costs a command about 3 µs: 256 of them are under a millisecond, where the
 * 1,024 of before cost 3 ms of a 20 ms `list` (issue 38); an old entry's in-place edit is found
 * by the slices within ceil(entries / SLICE) commands, by the next walk (doctor, reindex, serve)
 * sooner, and is never shown old (verifyRows).
 */
export const RECENT = 64;
export const SLICE = 192;

/** Where the next slice of each scope starts (a cache: lost or garbled, the slice starts anywhere). */
const sliceFile = () => join(paths.state(), "freshness-slice.json");

function readSliceStarts(): Record<string, string> {
  try {
    const v = JSON.parse(readFileSync(sliceFile(), "utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function saveSliceStart(scope: ScopeKey, next: string): void {
  try {
    writeFileSync(sliceFile(), JSON.stringify({ ...readSliceStarts(), [scope]: next }), { mode: 0o600 });
  } catch {}
}

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
    assertRealDirs(trustRoot(dir), dir);
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
    // The scope's next SLICE entries by id after the last slice (wrapping), along the (scope, id)
    // index: every entry within ceil(n / SLICE) commands, however old.
    const start = readSliceStarts()[scope];
    const from = typeof start === "string" ? start : "";
    const next = db.query(`SELECT ${cols}, id FROM entries WHERE scope = ? AND id > ? ORDER BY id LIMIT ?`);
    let slice = next.all(scope, from, SLICE) as (Row & { id: string })[];
    if (slice.length < SLICE)
      slice = [...slice, ...(next.all(scope, "", SLICE - slice.length) as (Row & { id: string })[])];
    const seen = new Set(rows.map((r) => r.rowid));
    for (const r of slice) if (!seen.has(r.rowid)) rows.push(r);
    saveSliceStart(scope, slice[slice.length - 1]?.id ?? "");
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

/**
 * Before entries are shown (a recall hit, an injected body, a card, a list row): each row's file
 * is compared with the index (size and mtime, one lstat); a changed file is read again, a
 * vanished one loses its row. `changed` counts rows whose indexed text changed (the caller asks
 * its question again); `stale` holds rows that could not be brought up to date (the index busy
 * past the wait): never show them.
 */
export function verifyRows(db: Database, rowids: number[], notice?: Notice): { changed: number; stale: Set<number> } {
  if (!rowids.length) return { changed: 0, stale: new Set() };
  const rows = db
    .query(
      "SELECT e.rowid AS rowid, e.scope AS scope, e.file AS file, e.size AS size, e.mtime_ms AS mtime_ms FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value",
    )
    .all(JSON.stringify(rowids)) as IndexedFile[];
  return verifyFiles(db, rows, notice);
}

/** An entry's file as the index knows it. */
export type IndexedFile = Row & { scope: ScopeKey };

/** `verifyRows` for rows whose indexed file the caller already read (with the row itself). */
export function verifyFiles(
  db: Database,
  rows: IndexedFile[],
  notice?: Notice,
): { changed: number; stale: Set<number> } {
  const stale = new Set<number>();
  const byScope = new Map<ScopeKey, Row[]>();
  for (const r of rows) {
    let same = false;
    try {
      const st = lstatSync(join(entriesDir(r.scope), r.file));
      same = st.isFile() && st.size === r.size && st.mtimeMs === r.mtime_ms;
    } catch {}
    if (!same) byScope.set(r.scope, [...(byScope.get(r.scope) ?? []), r]);
  }
  let changed = 0;
  for (const [scope, list] of byScope) {
    try {
      changed += reindexFiles(
        db,
        scope,
        list.map((r) => r.file),
        notice,
      );
    } catch {
      for (const r of list) stale.add(r.rowid);
    }
  }
  return { changed, stale };
}
