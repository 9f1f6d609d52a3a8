/**
 * Soft delete: a deleted entry's file goes to `state/trash/<scope>/<id>.md` (machine-local: never
 * indexed, never synced) with a small `<id>.json` beside it (when, by whom, title), and comes back
 * with the same id and content on restore. Trash older than 30 days is purged when the trash is
 * listed. `coffer trash` lists it, `coffer restore <id>` brings an entry back.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { audit } from "../lib/audit";
import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import { paths } from "../lib/paths";
import { isoNow } from "../lib/time";
import { dbOf } from "./db";
import type { Located } from "./entries";
import { parseEntry } from "./entry";
import { deleteEntryRow, entryPath, scopesOnDisk, touchScanDir, upsertEntryRow } from "./indexer";
import { GLOBAL, type ScopeKey } from "./scope";
import { type Store, withHealing } from "./store";

export const TRASH_DAYS = 30;
const ID_RE = /^[0-9A-Za-z]{1,64}$/;
const SCOPE_RE = /^(global|[0-9A-Z]{26})$/;
const MAX_FILE = 1024 * 1024;

export type TrashItem = { id: string; scope: ScopeKey; title: string; kind: string; deleted: string; actor: string };

const trashRoot = () => join(paths.state(), "trash");
const trashFile = (scope: ScopeKey, id: string, ext: "md" | "json") => join(trashRoot(), scope, `${id}.${ext}`);

function regular(file: string): boolean {
  try {
    const st = lstatSync(file);
    return st.isFile() && st.size <= MAX_FILE;
  } catch {
    return false;
  }
}

/**
 * Move an entry to the trash: its file leaves memory/ and the index, a copy waits in state/trash/.
 * Every delete goes through here (`forget` on the CLI, MCP and HTTP; the web UI).
 */
export function moveToTrash(store: Store, hit: Located, actor: string): TrashItem {
  const text = readFileSync(hit.file, "utf8");
  const item: TrashItem = {
    id: hit.entry.id,
    scope: hit.scope,
    title: hit.entry.title,
    kind: hit.entry.kind,
    deleted: isoNow(),
    actor,
  };
  mkdirSync(join(trashRoot(), hit.scope), { recursive: true, mode: 0o700 });
  // The copy first: a crash now leaves the entry in place (and a stray copy), never neither.
  writeFileAtomic(trashFile(hit.scope, item.id, "md"), text);
  writeFileAtomic(trashFile(hit.scope, item.id, "json"), `${JSON.stringify(item)}\n`);
  withHealing(store, () =>
    dbOf(store)
      .transaction(() => {
        rmSync(hit.file, { force: true });
        const row = dbOf(store)
          .query("SELECT rowid FROM entries WHERE scope = ? AND id = ?")
          .get(hit.scope, item.id) as {
          rowid: number;
        } | null;
        if (row) deleteEntryRow(dbOf(store), row.rowid);
        touchScanDir(dbOf(store), hit.scope);
      })
      .immediate(),
  );
  audit({ event: "entry_trashed", id: item.id, scope: hit.scope === GLOBAL ? "global" : hit.scope, actor });
  return item;
}

/** The scope folders in the trash (none when it does not exist yet). */
function trashScopes(): string[] {
  try {
    return readdirSync(trashRoot()).filter((name) => SCOPE_RE.test(name));
  } catch {
    return [];
  }
}

function findTrashed(id: string): { scope: ScopeKey; md: string; meta: string } | undefined {
  if (!ID_RE.test(id)) return undefined;
  for (const scope of trashScopes()) {
    for (const candidate of [id, id.toUpperCase()]) {
      const md = trashFile(scope, candidate, "md");
      if (regular(md)) return { scope, md, meta: trashFile(scope, candidate, "json") };
    }
  }
  return undefined;
}

/** Bring a trashed entry back to its scope, same id and content; the index follows. */
export function restoreEntry(store: Store, id: string, actor: string): { id: string; scope: ScopeKey } {
  const found = findTrashed(id);
  if (!found)
    throw new CofferError(`entry ${id} is not in the trash`, 1, "List the trash to see what can be restored.");
  const text = readFileSync(found.md, "utf8");
  const entry = parseEntry(text, id);
  const target = entryPath(found.scope, entry.id);
  if (regular(target)) throw new CofferError(`entry ${entry.id} already exists in its scope; nothing to restore`);
  if (found.scope !== GLOBAL && !scopesOnDisk().includes(found.scope))
    mkdirSync(join(paths.projectScope(found.scope), "entries"), { recursive: true, mode: 0o700 });
  withHealing(store, () =>
    dbOf(store)
      .transaction(() => {
        writeFileAtomic(target, text);
        const st = statSync(target);
        upsertEntryRow(dbOf(store), found.scope, parseEntry(text, entry.id), {
          name: `${entry.id}.md`,
          size: st.size,
          mtimeMs: st.mtimeMs,
          hash: sha256(text),
        });
        touchScanDir(dbOf(store), found.scope);
      })
      .immediate(),
  );
  rmSync(found.md, { force: true });
  rmSync(found.meta, { force: true });
  audit({ event: "entry_restored", id: entry.id, scope: found.scope === GLOBAL ? "global" : found.scope, actor });
  return { id: entry.id, scope: found.scope };
}

/** What is in the trash, newest first; items past TRASH_DAYS are purged on the way. */
export function listTrash(now = Date.now()): TrashItem[] {
  const out: TrashItem[] = [];
  const cutoff = now - TRASH_DAYS * 86_400_000;
  for (const scope of trashScopes()) {
    let names: string[] = [];
    try {
      names = readdirSync(join(trashRoot(), scope));
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith(".md") || name.startsWith(".")) continue;
      const id = name.slice(0, -3);
      const md = trashFile(scope, id, "md");
      const metaFile = trashFile(scope, id, "json");
      if (!regular(md)) continue;
      let item: TrashItem | undefined;
      try {
        if (regular(metaFile)) item = { ...(JSON.parse(readFileSync(metaFile, "utf8")) as TrashItem), id, scope };
      } catch {}
      if (!item) {
        // No readable note beside it: the file itself says what it is, its mtime when it went.
        try {
          const e = parseEntry(readFileSync(md, "utf8"), id);
          item = {
            id,
            scope,
            title: e.title,
            kind: e.kind,
            deleted: isoNow(new Date(statSync(md).mtimeMs)),
            actor: "",
          };
        } catch {
          continue;
        }
      }
      if (Date.parse(item.deleted) < cutoff) {
        rmSync(md, { force: true });
        rmSync(metaFile, { force: true });
        continue;
      }
      out.push(item);
    }
  }
  return out.sort((a, b) => b.deleted.localeCompare(a.deleted) || a.id.localeCompare(b.id));
}
