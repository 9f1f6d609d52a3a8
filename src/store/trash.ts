/**
 * Soft delete: a deleted entry's file moves (rename, never read) to `state/trash/<scope>/<id>.md`
 * (machine-local: never indexed, never synced) with a small `<id>.json` beside it (when, by whom,
 * title), and comes back with the same id and content on restore, whatever its size. A symbolic
 * link or any other non-regular file (a FIFO, a device) in place of an entry is removed itself,
 * never opened or followed: nothing of a target reaches the trash. Trash older than 30 days is
 * purged when the trash is listed. `coffer trash` lists it, `coffer restore <id>` brings one back.
 */
import { copyFileSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError, notFoundError } from "../lib/errors";
import { handle } from "../lib/handle";
import { sha256 } from "../lib/hash";
import { paths } from "../lib/paths";
import { pathExists, readFileNoFollow } from "../lib/small-file";
import { isoNow } from "../lib/time";
import { audit } from "../scrub/write";
import { dbOf } from "./db";
import type { Located } from "./entry";
import { type Entry, parseEntry } from "./entry";
import {
  assertMemoryWritePath,
  deleteEntryRow,
  entryPath,
  scopesOnDisk,
  touchScanDir,
  upsertEntryRow,
} from "./indexer";
import { GLOBAL, isTeamKey, registerTeam, type ScopeKey, TEAM_FOLDER, teamKeyFor, teamWorktree } from "./scope";
import { type Store, withHealing } from "./store";
import { makeTeamDirs, writeTeamFile } from "./team";

export const TRASH_DAYS = 30;
const ID_RE = /^[0-9A-Za-z]{1,64}$/;
const SCOPE_RE = /^(global|(?:team)?[0-9A-Z]{26})$/;
const MAX_FILE = 1024 * 1024;

export type TrashItem = {
  id: string;
  scope: ScopeKey;
  title: string;
  kind: string;
  deleted: string;
  actor: string;
  /** A personal copy `promote` left: the team lane's checkout that holds the entry now (it cannot come back beside it). */
  in_team?: string;
};
/** What `moveToTrash` did: `kept` false when the file was a link or not a regular file (removed, not kept). */
export type Trashed = TrashItem & { kept: boolean };

const trashRoot = () => join(paths.state(), "trash");
const trashFile = (scope: ScopeKey, id: string, ext: "md" | "json") => join(trashRoot(), scope, `${id}.${ext}`);

/** A regular file (lstat: a link is not one), any size. */
function regular(file: string): boolean {
  try {
    return lstatSync(file).isFile();
  } catch {
    return false;
  }
}

/** Move a file without reading it (a copy when the trash is on another file system). */
function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    copyFileSync(from, to);
    rmSync(from, { force: true });
  }
}

/**
 * Move an entry to the trash: its file leaves memory/ and the index and waits in state/trash/.
 * A link or a non-regular file in its place is removed itself (`kept: false`), never followed or
 * opened. Every delete goes through here (`forget` on the CLI, MCP and HTTP; the web UI).
 */
export function moveToTrash(store: Store, hit: Located, actor: string, opts: { promotedTo?: string } = {}): Trashed {
  // No folder between memory/ and the file may be a link: the move would reach outside the store.
  assertMemoryWritePath(hit.file);
  const st = lstatSync(hit.file);
  if (st.isDirectory())
    throw new CofferError(
      `${hit.file} is a folder, not an entry file; not removing it`,
      1,
      "Look at it and remove it by hand if you do not need it.",
    );
  const kept = st.isFile();
  const worktree = isTeamKey(hit.scope) ? teamWorktree(hit.scope) : undefined;
  const note: TrashItem & { worktree?: string; promoted_to?: string } = {
    id: hit.entry.id,
    scope: hit.scope,
    title: hit.entry.title,
    kind: hit.entry.kind,
    deleted: isoNow(),
    actor,
    // where a team lane's entry goes back to (this machine's trash only, never the repository)
    ...(worktree ? { worktree } : {}),
    // promote: the checkout whose team lane holds this id now (restore refuses while it does)
    ...(opts.promotedTo ? { promoted_to: opts.promotedTo } : {}),
  };
  const { worktree: _w, promoted_to: _p, ...listed } = note;
  const item: Trashed = { ...listed, kept };
  if (kept) {
    mkdirSync(join(trashRoot(), hit.scope), { recursive: true, mode: 0o700 });
    // The note first: a crash now leaves the entry in place (and a note nothing lists), never neither.
    writeFileAtomic(trashFile(hit.scope, item.id, "json"), `${JSON.stringify(note)}\n`);
  }
  withHealing(store, () =>
    dbOf(store)
      .transaction(() => {
        // A regular file moves whole (never read: any size); a link or FIFO goes itself.
        if (kept) moveFile(hit.file, trashFile(hit.scope, item.id, "md"));
        else rmSync(hit.file, { force: true });
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
  const scope = hit.scope === GLOBAL ? "global" : isTeamKey(hit.scope) ? "team" : hit.scope;
  audit({ event: kept ? "entry_trashed" : "entry_removed", id: item.id, scope, actor });
  return item;
}

/** A trashed file's entry, when it is one Coffer can read (at most 1 MiB, valid frontmatter). */
function readTrashed(file: string, id: string): { text: string; entry: Entry } | undefined {
  try {
    const text = readFileNoFollow(file, MAX_FILE).buf.toString("utf8");
    return { text, entry: parseEntry(text, id) };
  } catch {
    return undefined;
  }
}

/** The team lane file a promoted entry lives in now (the note's `promoted_to` checkout), when it is still there. */
function promotedFile(note: Record<string, unknown> | undefined, id: string): string | undefined {
  const worktree = note?.promoted_to;
  if (typeof worktree !== "string" || !isAbsolute(worktree) || !ID_RE.test(id)) return undefined;
  const file = join(worktree, TEAM_FOLDER, "entries", `${id}.md`);
  return pathExists(file) ? file : undefined;
}

/**
 * Where an entry of this id lives now outside the trashed one's scope (the team lane `promote`
 * wrote it into, or any scope the index holds it in): restoring beside it would give two entries
 * one id.
 */
function liveElsewhere(store: Store, id: string, scope: ScopeKey, note: Record<string, unknown> | undefined) {
  const promoted = promotedFile(note, id);
  if (promoted) return { scope: teamKeyFor(note!.promoted_to as string), file: promoted };
  const row = withHealing(
    store,
    () =>
      dbOf(store).query("SELECT scope FROM entries WHERE id = ? AND scope != ? LIMIT 1").get(id, scope) as {
        scope: string;
      } | null,
  );
  if (!row) return undefined;
  let file: string;
  try {
    file = entryPath(row.scope, id);
  } catch {
    file = `${row.scope}/${id}.md`; // a team lane of a checkout this process does not know
  }
  return { scope: row.scope, file };
}

/** A trashed entry's note (JSON), or undefined. */
function trashNote(file: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readFileNoFollow(file, 64 * 1024).buf.toString("utf8"));
    return v && typeof v === "object" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The trash's folders: its root and one per scope (where a killed write may leave a temp file). */
export function trashFolders(): string[] {
  return [trashRoot(), ...trashScopes().map((scope) => join(trashRoot(), scope))];
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

/**
 * Bring a trashed entry back to its scope, same id and content; the index follows. A file that is
 * not a readable entry (over 1 MiB, bad frontmatter) comes back as it was, unindexed, with `note`.
 */
export function restoreEntry(store: Store, id: string, actor: string): { id: string; scope: ScopeKey; note?: string } {
  const found = findTrashed(id);
  if (!found) throw notFoundError(`entry ${id} is not in the trash`, "List the trash to see what can be restored.");
  const fileId = basename(found.md, ".md");
  const readable = readTrashed(found.md, fileId);
  const entryId = readable?.entry.id ?? fileId;
  const team = isTeamKey(found.scope);
  if (team && !teamWorktree(found.scope)) {
    // A team lane's entry goes back into the checkout it came from (its note names it).
    const worktree = trashNote(found.meta)?.worktree;
    if (typeof worktree === "string" && isAbsolute(worktree) && teamKeyFor(worktree) === found.scope)
      registerTeam(found.scope, worktree);
    else
      throw new CofferError(
        `entry ${entryId} was in the team lane of a checkout Coffer no longer knows`,
        1,
        "Run `coffer restore` inside that checkout.",
      );
  }
  const target = entryPath(found.scope, entryId);
  if (pathExists(target))
    throw new CofferError(`entry ${entryId} already exists in its scope; nothing to restore`, 1, undefined, "conflict");
  const live = liveElsewhere(store, entryId, found.scope, trashNote(found.meta));
  if (live) {
    const inTeam = isTeamKey(live.scope);
    throw new CofferError(
      inTeam
        ? `entry ${handle(entryId)} now lives in the team lane (${live.file}): it was promoted, and restoring the personal copy beside it would give two entries one id`
        : `entry ${handle(entryId)} exists again elsewhere (${live.file}); restoring it would give two entries one id`,
      1,
      inTeam
        ? `Work with the team's copy (\`coffer edit ${handle(entryId)}\` inside that repository); this personal copy stays in the trash until it expires.`
        : "Forget that one first if this is the copy you want.",
      "conflict",
    );
  }
  assertMemoryWritePath(target);
  const worktree = team ? teamWorktree(found.scope) : undefined;
  if (worktree) makeTeamDirs(dirname(target), worktree);
  else if (found.scope !== GLOBAL && !scopesOnDisk().includes(found.scope))
    mkdirSync(join(paths.projectScope(found.scope), "entries"), { recursive: true, mode: 0o700 });
  let note: string | undefined;
  withHealing(store, () =>
    dbOf(store)
      .transaction(() => {
        if (!readable) {
          moveFile(found.md, target);
          touchScanDir(dbOf(store), found.scope);
          note = `restored as it was, but it is not a readable entry (over 1 MiB or bad frontmatter): fix ${target} or forget it again`;
          return;
        }
        if (worktree) writeTeamFile({ worktree }, target, readable.text);
        else writeFileAtomic(target, readable.text);
        const st = statSync(target);
        upsertEntryRow(dbOf(store), found.scope, parseEntry(readable.text, entryId), {
          name: `${entryId}.md`,
          size: st.size,
          mtimeMs: st.mtimeMs,
          hash: sha256(readable.text),
        });
        touchScanDir(dbOf(store), found.scope);
      })
      .immediate(),
  );
  rmSync(found.md, { force: true });
  rmSync(found.meta, { force: true });
  audit({
    event: "entry_restored",
    id: entryId,
    scope: found.scope === GLOBAL ? "global" : team ? "team" : found.scope,
    actor,
  });
  return { id: entryId, scope: found.scope, ...(note ? { note } : {}) };
}

function mtimeOf(file: string): number {
  try {
    return lstatSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
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
        const meta = JSON.parse(readFileNoFollow(metaFile, 64 * 1024).buf.toString("utf8")) as TrashItem & {
          worktree?: unknown;
        };
        item = { id, scope, title: meta.title, kind: meta.kind, deleted: meta.deleted, actor: meta.actor };
        const promoted = promotedFile(meta as unknown as Record<string, unknown>, id);
        if (promoted) item.in_team = dirname(dirname(dirname(promoted)));
        // a team lane's checkout, so its label can be told
        const w = meta.worktree;
        if (isTeamKey(scope) && typeof w === "string" && isAbsolute(w) && teamKeyFor(w) === scope)
          registerTeam(scope, w);
      } catch {}
      if (!item) {
        // No readable note beside it: the file itself says what it is, its mtime when it went.
        const e = readTrashed(md, id)?.entry;
        item = {
          id,
          scope,
          title: e?.title ?? "(not a readable entry)",
          kind: e?.kind ?? "note",
          deleted: isoNow(new Date(mtimeOf(md))),
          actor: "",
        };
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
