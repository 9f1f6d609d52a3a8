/** Changes to an entry that keep its content (the web UI's bulk actions): a move to another scope, new tags; and entries' titles for the audit log. */
import { rmSync } from "node:fs";
import { CofferError } from "../lib/errors";
import { pathExists } from "../lib/small-file";
import { isoNow } from "../lib/time";
import { audit } from "../scrub/write";
import { dbOf } from "./db";
import { findEntry, remember, requireEntry, writeEntryFile } from "./entries";
import type { Entry } from "./entry";
import { deleteEntryRow, entryPath, scopesOnDisk, touchScanDir } from "./indexer";
import { GLOBAL, type ScopeKey } from "./scope";
import { type Store, withHealing } from "./store";

/** Move an entry (same id, same content) to another scope: the file moves, the index follows. */
export function moveEntry(
  store: Store,
  id: string,
  to: ScopeKey,
  actor: string,
): { id: string; from: ScopeKey; to: ScopeKey } {
  if (to !== GLOBAL && !scopesOnDisk().includes(to)) throw new CofferError(`no scope "${to}" on disk`);
  // The entry outside the target scope; already there (and nowhere else) is nothing to do.
  const hit = findEntry(store, id, { scopes: scopesOnDisk().filter((s) => s !== to) });
  if (!hit) return { id: requireEntry(store, id, { scopes: [to] }).entry.id, from: to, to };
  // The same id in the target scope: moving would overwrite that entry for good.
  if (pathExists(entryPath(to, hit.entry.id)))
    throw new CofferError(
      `an entry with id ${hit.entry.id} already exists in the target scope; nothing moved`,
      1,
      "Look at both (coffer show <id> from each project) and forget or edit one of them first.",
      "conflict",
    );
  const entry: Entry = { ...hit.entry, updated: isoNow() };
  withHealing(store, () =>
    dbOf(store)
      .transaction(() => {
        writeEntryFile(store, to, entry);
        rmSync(hit.file, { force: true });
        const row = dbOf(store)
          .query("SELECT rowid FROM entries WHERE scope = ? AND id = ?")
          .get(hit.scope, entry.id) as {
          rowid: number;
        } | null;
        if (row) deleteEntryRow(dbOf(store), row.rowid);
        touchScanDir(dbOf(store), hit.scope);
      })
      .immediate(),
  );
  audit({ event: "entry_moved", id: entry.id, from: hit.scope, to, actor });
  return { id: entry.id, from: hit.scope, to };
}

/** Add and remove tags on an entry (validated like any write). */
export function retagEntry(store: Store, id: string, add: string[], remove: string[], actor: string): string[] {
  const hit = requireEntry(store, id);
  const e = hit.entry;
  const drop = new Set(remove);
  const tags = [...new Set([...e.tags.filter((t) => !drop.has(t)), ...add])];
  if (tags.length === e.tags.length && tags.every((t, i) => t === e.tags[i])) return tags;
  remember(store, {
    id: e.id,
    text: e.body,
    title: e.title,
    kind: e.kind,
    tags,
    applies_to: e.applies_to,
    origin_session: e.origin_session,
    actor,
    source: "http",
  });
  return tags;
}

/** Titles of entries by id, whatever their status (the audit log names what it speaks of). */
export function entryTitles(store: Store, ids: string[]): Map<string, string> {
  if (!ids.length) return new Map();
  return withHealing(
    store,
    () =>
      new Map(
        (
          dbOf(store)
            .query("SELECT id, title FROM entries WHERE id IN (SELECT value FROM json_each(?))")
            .all(JSON.stringify(ids)) as { id: string; title: string }[]
        ).map((r) => [r.id, r.title]),
      ),
  );
}
