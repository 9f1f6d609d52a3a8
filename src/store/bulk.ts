/**
 * Many entries at once, with their own ids and times, in any scope: what `coffer import` needs
 * and `remember` (one entry, now, in the cwd's scopes) does not do. Files first, index after, as
 * everywhere; one write transaction per batch so other writers wait at most one batch.
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { writeFileAtomic, writeFilesAtomic } from "../lib/atomic";
import { sha256 } from "../lib/hash";
import { dbOf } from "./db";
import { type Entry, normHash, parseEntry, serializeEntry } from "./entry";
import { deleteEntryRow, entryPath, refreshScope, touchScanDir, upsertEntryRow } from "./indexer";
import type { ScopeKey } from "./scope";
import { type Store, withHealing } from "./store";

export type BulkWriter = {
  /** An entry of the scope whose normalized text equals `body`'s (the near-duplicate rule). */
  findDuplicate(scope: ScopeKey, body: string): { id: string; updated: string } | undefined;
  has(scope: ScopeKey, id: string): boolean;
  /** Write (or overwrite) one entry file atomically and index it; `text` is the exact file content when given. */
  write(scope: ScopeKey, entry: Entry, text?: string): void;
  /** Delete one entry's file and row; false when the file was already gone. */
  remove(scope: ScopeKey, id: string): boolean;
};

/** Bring these scopes' index rows in line with their files (deep: every file compared). */
export function refreshScopes(store: Store, scopes: ScopeKey[]): void {
  withHealing(store, () => {
    for (const s of scopes) refreshScope(dbOf(store), s, true, store.notice);
  });
}

/**
 * Run `fn` with a writer. `write: true` runs it in one immediate transaction (hold it for a batch,
 * not a whole import); a read-only run (dry run) takes no lock.
 */
export function withBulk<T>(store: Store, write: boolean, fn: (w: BulkWriter) => T): T {
  return withHealing(store, () => {
    const db = dbOf(store);
    const dup = db.query("SELECT id, updated FROM entries WHERE scope = ? AND norm_hash = ? LIMIT 1");
    const one = db.query("SELECT rowid FROM entries WHERE scope = ? AND id = ?");
    const touched = new Set<ScopeKey>();
    const w: BulkWriter = {
      findDuplicate: (scope, body) =>
        (dup.get(scope, normHash(body)) as { id: string; updated: string } | null) ?? undefined,
      has: (scope, id) => !!one.get(scope, id),
      write(scope, entry, text = serializeEntry(entry)) {
        const file = entryPath(scope, entry.id);
        writeFileAtomic(file, text);
        const st = statSync(file);
        const parsed = parseEntry(text, entry.id);
        parsed.id = entry.id;
        upsertEntryRow(db, scope, parsed, {
          name: `${entry.id}.md`,
          size: st.size,
          mtimeMs: st.mtimeMs,
          hash: sha256(text),
        });
        touched.add(scope);
      },
      remove(scope, id) {
        const file = entryPath(scope, id);
        const existed = existsSync(file);
        rmSync(file, { force: true });
        const row = one.get(scope, id) as { rowid: number } | null;
        if (row) deleteEntryRow(db, row.rowid);
        touched.add(scope);
        return existed;
      },
    };
    if (!write) return fn(w);
    return db
      .transaction(() => {
        const out = fn(w);
        for (const s of touched) touchScanDir(db, s);
        return out;
      })
      .immediate();
  });
}

export type PutEntry = { scope: ScopeKey; entry: Entry; text?: string };

/**
 * Write many entries (new or rewritten, ids given): every file atomically and durably, their
 * fsyncs grouped, then all their index rows in one transaction. Files first, index after, so a
 * crash in between leaves files the next refresh indexes.
 */
export async function putEntries(store: Store, batch: PutEntry[]): Promise<void> {
  if (!batch.length) return;
  const texts = batch.map((b) => b.text ?? serializeEntry(b.entry));
  await writeFilesAtomic(batch.map((b, i) => ({ path: entryPath(b.scope, b.entry.id), data: texts[i]! })));
  withHealing(store, () => {
    const db = dbOf(store);
    db.transaction(() => {
      const touched = new Set<ScopeKey>();
      batch.forEach((b, i) => {
        const st = statSync(entryPath(b.scope, b.entry.id));
        const parsed = parseEntry(texts[i]!, b.entry.id);
        parsed.id = b.entry.id;
        upsertEntryRow(db, b.scope, parsed, {
          name: `${b.entry.id}.md`,
          size: st.size,
          mtimeMs: st.mtimeMs,
          hash: sha256(texts[i]!),
        });
        touched.add(b.scope);
      });
      for (const s of touched) touchScanDir(db, s);
    }).immediate();
  });
}
