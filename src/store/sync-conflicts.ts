/**
 * Sync-conflict copies. When both machines edited one entry, sync keeps the newer version under the
 * entry's id (tagged SYNC_CONFLICT_TAG: the mark) and saves the other as a new entry, tagged too,
 * `status: superseded` with `superseded_by: <kept id>` (never routed, injected or recalled). The
 * conflict is unresolved while such a copy exists: the hooks add a note to the kept entry, doctor
 * and `coffer inbox list` name it. Forgetting the copy resolves it (`forget` then drops the mark).
 * Index queries only: no file is read.
 */
import { handle } from "../lib/handle";
import { dbOf } from "./db";
import type { Store } from "./store";

export const SYNC_CONFLICT_TAG = "sync-conflict";

export type SyncConflict = {
  scope: string;
  /** The older version, kept as its own superseded entry. */
  copy: string;
  /** The entry the copy was split from (the newer version, still current). */
  kept: string;
  title: string;
  /** The copy's own `updated` (the older version's). */
  updated: string;
};

const COPY_SQL = `SELECT scope, id AS copy, superseded_by AS kept, title, updated FROM entries
  WHERE status = 'superseded' AND superseded_by IS NOT NULL
    AND EXISTS (SELECT 1 FROM json_each(entries.tags) j WHERE j.value = '${SYNC_CONFLICT_TAG}')`;

/** Unresolved copies: every scope, or the copies of one kept entry. Oldest conflict first. */
export function syncConflicts(store: Store, of?: { scope: string; kept: string }): SyncConflict[] {
  const db = dbOf(store);
  if (of)
    return db
      .query(`${COPY_SQL} AND scope = ? AND superseded_by = ? ORDER BY id`)
      .all(of.scope, of.kept) as SyncConflict[];
  return db.query(`${COPY_SQL} ORDER BY id`).all() as SyncConflict[];
}

/** The line the hooks add to a kept entry while its copies exist. */
export function conflictNote(copies: string[]): string {
  const hs = copies.map(handle);
  const list = hs.map((h) => `[${h}]`).join(", ");
  return `(sync conflict: edited on two machines; this is the newer version, the older is kept as ${list}. Resolve with \`coffer forget ${hs.join(" ")}\` once nothing in it is needed, or \`coffer show ${hs[0]}\` to compare.)`;
}

/** The same, after a card: short. */
export const conflictMark = (copies: string[]): string =>
  `(sync conflict: older copy ${copies.map((c) => `[${handle(c)}]`).join(", ")})`;
