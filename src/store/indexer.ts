import type { Database } from "bun:sqlite";
import { existsSync, lstatSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { isAtomicTemp } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import { countRow } from "../lib/jit";
import { paths } from "../lib/paths";
import { assertRealDirs, isRealDir, RefusedFileError, readFileNoFollow } from "../lib/small-file";
import { ftsText, scopeToken } from "../retrieval/analysis/text";
import { MODEL_ID } from "../retrieval/embed/embed";
import { scrubFields } from "../scrub/write";
import { type Entry, normHash, parseEntry } from "./entry";
import { GLOBAL, isTeamKey, knownTeams, registerTeam, type ScopeKey, TEAM_FOLDER, teamWorktree } from "./scope";
import { extractAnchors } from "./stale/anchors";
import { TEAM_FILE_MAX, teamEntryProblem } from "./team";
import { dropBlocks, packScope, putVector } from "./vectors";

/** `memory/global`, `memory/projects/<id>`, or a team lane's `<worktree>/.coffer`. */
export function scopeDir(scope: ScopeKey): string {
  if (scope === GLOBAL) return paths.globalScope();
  if (isTeamKey(scope)) {
    const worktree = teamWorktree(scope);
    // A team key nobody registered (its worktree unknown to this process): a folder that never
    // exists, so reads find nothing and a refresh drops the rows.
    return worktree ? join(worktree, TEAM_FOLDER) : join(paths.state(), "unknown-team", scope);
  }
  return paths.projectScope(scope);
}

/**
 * The folder no read or write may pass a link below: memory/ for Coffer's own files, the
 * worktree for a team lane (so `.coffer` itself being a link is refused too).
 */
export function trustRoot(path: string): string {
  for (const [, worktree] of knownTeams()) {
    const team = join(worktree, TEAM_FOLDER);
    if (path === team || path.startsWith(team + sep)) return worktree;
  }
  return paths.memory();
}

export function entriesDir(scope: ScopeKey): string {
  return join(scopeDir(scope), "entries");
}

export function entryPath(scope: ScopeKey, id: string): string {
  return join(entriesDir(scope), `${id}.md`);
}

/** The largest entry, rules or handoff file Coffer reads (body_max is at most 32768 characters). */
export const MEMORY_FILE_MAX = 1024 * 1024;

/**
 * Read a file under memory/ the only way Coffer does: never through a symbolic link (the file or
 * any folder between memory/ and it), never anything but a regular file, never more than `max`
 * bytes. A missing file throws ENOENT; a refused one throws `RefusedFileError`.
 */
export function readMemoryFile(path: string, max = MEMORY_FILE_MAX): { text: string; size: number; mtimeMs: number } {
  const root = trustRoot(path);
  // a team lane's files come from other people's commits: a smaller cap
  const r = readFileNoFollow(path, root === paths.memory() ? max : Math.min(max, TEAM_FILE_MAX), root);
  return { text: r.buf.toString("utf8"), size: r.size, mtimeMs: r.mtimeMs };
}

/** `readMemoryFile`'s text, or undefined when the file is missing or refused. */
export function readMemoryText(path: string, max = MEMORY_FILE_MAX): string | undefined {
  try {
    return readMemoryFile(path, max).text;
  } catch {
    return undefined;
  }
}

/**
 * Before writing `path` under memory/: no folder on the way is a symbolic link (a write would land
 * wherever it points). Folders not made yet are fine; throws a CofferError-like message otherwise.
 */
export function assertMemoryWritePath(path: string): void {
  try {
    assertRealDirs(trustRoot(path), dirname(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    if (err instanceof RefusedFileError)
      throw new CofferError(
        `not writing ${path}: ${err.message}`,
        1,
        "Remove that link or file (Coffer did not make it) and try again; `coffer doctor` lists such files.",
        "conflict",
      );
    throw err;
  }
}

export type IndexedRow = {
  rowid: number;
  id: string;
  file: string;
  size: number;
  mtime_ms: number;
  file_hash: string;
};

type Notice = (message: string) => void;

/** Upsert one entry's row and FTS document. Runs inside the caller's transaction. */
export function upsertEntryRow(
  db: Database,
  scope: ScopeKey,
  entry: Entry,
  file: { name: string; size: number; mtimeMs: number; hash: string },
): void {
  countRow();
  // a hand-edited file may hold a secret: the index keeps only the scrubbed text (`coffer scan --fix` fixes the file)
  entry = {
    ...entry,
    ...scrubFields({ title: entry.title, body: entry.body, tags: entry.tags, keywords: entry.keywords }).fields,
  };
  const old = db.query("SELECT rowid, anchors, stale FROM entries WHERE scope = ? AND id = ?").get(scope, entry.id) as {
    rowid: number;
    anchors: string;
    stale: string;
  } | null;
  const anchors = JSON.stringify(extractAnchors(entry.body, entry.applies_to));
  // the last staleness check still holds while the entry names the same things
  const stale = old && old.anchors === anchors ? old.stale : "";
  if (old) {
    db.query("DELETE FROM entries_fts WHERE rowid = ?").run(old.rowid);
    db.query("DELETE FROM entries WHERE rowid = ?").run(old.rowid);
  }
  const res = db
    .query(
      `INSERT INTO entries(id, scope, kind, title, tags, keywords, applies_to, actor, source, origin_session, created,
         updated, body, norm_hash, file, size, mtime_ms, file_hash, status, superseded_by, anchors, stale)
       VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    )
    .run(
      entry.id,
      scope,
      entry.kind,
      entry.title,
      JSON.stringify(entry.tags),
      JSON.stringify(entry.keywords ?? []),
      JSON.stringify(entry.applies_to),
      entry.actor,
      entry.source,
      entry.origin_session ?? null,
      entry.created,
      entry.updated,
      entry.body,
      normHash(entry.body),
      file.name,
      file.size,
      file.mtimeMs,
      file.hash,
      entry.status ?? "",
      entry.superseded_by ?? null,
      anchors,
      stale,
    );
  // A superseded entry is kept but never searched: no FTS document, so neither recall nor the
  // prompt hook can reach it.
  if (entry.status === "superseded") return;
  const rowid = Number(res.lastInsertRowid);
  db.query("INSERT INTO entries_fts(rowid, scope, title, tags, keywords, body) VALUES(?,?,?,?,?,?)").run(
    rowid,
    scopeToken(scope),
    ftsText(entry.title),
    ftsText(entry.tags.join(", ")),
    ftsText((entry.keywords ?? []).join(", ")),
    ftsText(entry.body),
  );
  putVector(db, rowid, scope, entry);
}

export function deleteEntryRow(db: Database, rowid: number): void {
  db.query("DELETE FROM entries_fts WHERE rowid = ?").run(rowid);
  db.query("DELETE FROM entries WHERE rowid = ?").run(rowid);
}

/** Read and index one file; returns false (with a notice) when it is not a valid entry. */
function indexFile(db: Database, scope: ScopeKey, dir: string, name: string, notice?: Notice): boolean {
  const full = join(dir, name);
  let text: string;
  let st: { size: number; mtimeMs: number };
  try {
    ({ text, ...st } = readMemoryFile(full));
  } catch (err) {
    if (err instanceof RefusedFileError) notice?.(`skipping ${full}: ${err.message}`);
    return false; // removed meanwhile, or refused
  }
  try {
    const entry = parseEntry(text, name.slice(0, -3));
    entry.id = name.slice(0, -3); // the file name is the id
    const problem = isTeamKey(scope) ? teamEntryProblem(entry, entry.id) : undefined;
    if (problem) throw new Error(problem);
    upsertEntryRow(db, scope, entry, { name, size: st.size, mtimeMs: st.mtimeMs, hash: sha256(text) });
    return true;
  } catch (err) {
    notice?.(`skipping ${full}: ${(err as Error).message}`);
    return false;
  }
}

function listEntryFiles(dir: string): string[] | undefined {
  try {
    assertRealDirs(trustRoot(dir), dir);
    return readdirSync(dir).filter((n) => n.endsWith(".md") && !isAtomicTemp(n) && !n.startsWith("."));
  } catch {
    return undefined;
  }
}

/** The folder's mtime when every file in it was last compared with the index (see freshness.ts). */
export function walkedMark(db: Database, dir: string): number | undefined {
  const r = db.query("SELECT value FROM meta WHERE key = ?").get(`walked:${dir}`) as { value: string } | null;
  return r ? Number(r.value) : undefined;
}

function setWalkedMark(db: Database, dir: string, mtimeMs: number): void {
  db.query("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
    `walked:${dir}`,
    String(mtimeMs),
  );
}

/**
 * Record a directory's current mtime after Coffer changed it, so the next check stays cheap: the
 * journal of Coffer's own writes. The walked mark moves too, unless a foreign change was still
 * waiting for a walk (or `walked`: the caller just compared every file).
 */
export function touchScanDir(db: Database, scope: ScopeKey, walked = false): void {
  const dir = entriesDir(scope);
  try {
    const st = lstatSync(dir);
    const known = db.query("SELECT mtime_ms FROM scan_dirs WHERE dir = ?").get(dir) as { mtime_ms: number } | null;
    const clean = walked || (known !== null && walkedMark(db, dir) === known.mtime_ms);
    db.query(
      "INSERT INTO scan_dirs(dir, scope, mtime_ms) VALUES(?,?,?) ON CONFLICT(dir) DO UPDATE SET mtime_ms = excluded.mtime_ms",
    ).run(dir, scope, st.mtimeMs);
    if (clean) setWalkedMark(db, dir, st.mtimeMs);
  } catch {}
}

/**
 * Read again the named files of one scope that look changed (size or mtime): same content only
 * updates size/mtime; new content is indexed; a missing or refused file loses its row.
 */
export function reindexFiles(db: Database, scope: ScopeKey, names: string[], notice?: Notice): number {
  const dir = entriesDir(scope);
  let changed = 0;
  db.transaction(() => {
    for (const name of names) {
      const row = db
        .query("SELECT rowid, file_hash FROM entries WHERE scope = ? AND file = ?")
        .get(scope, name) as Pick<IndexedRow, "rowid" | "file_hash"> | null;
      let file: { text: string; size: number; mtimeMs: number };
      try {
        file = readMemoryFile(join(dir, name));
      } catch (err) {
        if (err instanceof RefusedFileError) notice?.(`skipping ${join(dir, name)}: ${err.message}`);
        else if ((err as NodeJS.ErrnoException).code !== "ENOENT") continue;
        if (row) {
          deleteEntryRow(db, row.rowid);
          changed++;
        }
        continue;
      }
      if (row && sha256(file.text) === row.file_hash) {
        db.query("UPDATE entries SET size = ?, mtime_ms = ? WHERE rowid = ?").run(file.size, file.mtimeMs, row.rowid);
        continue;
      }
      if (indexFile(db, scope, dir, name, notice)) changed++;
      else if (row) {
        deleteEntryRow(db, row.rowid);
        changed++;
      }
    }
  }).immediate();
  return changed;
}

/** Files compared per write transaction: a refresh of thousands (a checkout) commits as it goes. */
const REFRESH_CHUNK = 500;

/**
 * Bring one scope's rows in line with its files.
 * shallow (`deep` false): only when the directory's mtime moved (files added, removed or renamed) — the hook path.
 * deep: also stat every file to catch edits in place (size/mtime, then content hash).
 * "moved": shallow, but deep when the directory moved (a team lane: `git checkout` replaces the
 * files it changes, which moves the folder, and keeps their names).
 * Large changes commit every REFRESH_CHUNK files, so a refresh cut short (a hook's deadline)
 * keeps what it did and the next one goes on from there. `until` (a Date.now() time): past it,
 * no further file is read; what was done is kept, the folder's marks stay where they were (the
 * next refresh walks again), and what a caller shows is still checked against its file
 * (`checkedAgainstFiles`). Returns the number of rows changed.
 */
export function refreshScope(
  db: Database,
  scope: ScopeKey,
  deep: boolean | "moved",
  notice?: Notice,
  until?: number,
): number {
  const dir = entriesDir(scope);
  let st: import("node:fs").Stats | undefined;
  try {
    // A folder that is a link (or under one) counts as no folder: Coffer never reads through it.
    assertRealDirs(trustRoot(dir), dir);
    st = lstatSync(dir);
  } catch {
    st = undefined;
  }
  const known = db.query("SELECT mtime_ms FROM scan_dirs WHERE dir = ?").get(dir) as { mtime_ms: number } | null;
  if (!st) {
    if (!known && !db.query("SELECT 1 FROM entries WHERE scope = ? LIMIT 1").get(scope)) return 0;
    let n = 0;
    db.transaction(() => {
      for (const r of db.query("SELECT rowid FROM entries WHERE scope = ?").all(scope) as { rowid: number }[]) {
        deleteEntryRow(db, r.rowid);
        n++;
      }
      db.query("DELETE FROM scan_dirs WHERE dir = ?").run(dir);
    }).immediate();
    return n;
  }
  const dirMoved = !known || known.mtime_ms !== st.mtimeMs;
  if (!dirMoved && !deep) return 0;
  const walk = deep === true || (deep === "moved" && dirMoved);

  const names = dirMoved ? (listEntryFiles(dir) ?? []) : undefined;
  // Stat outside the write transaction; only files that look changed are read.
  const stats = new Map<string, { size: number; mtimeMs: number }>();
  if (walk) {
    for (const name of names ?? listEntryFiles(dir) ?? []) {
      try {
        const s = lstatSync(join(dir, name));
        stats.set(name, { size: s.size, mtimeMs: s.mtimeMs });
      } catch {}
    }
  }
  let changed = 0;
  let cut = false;
  const compare = (name: string, row: IndexedRow | undefined) => {
    if (cut || (until !== undefined && Date.now() > until)) {
      cut = true;
      return;
    }
    if (!row) {
      if (indexFile(db, scope, dir, name, notice)) changed++;
      return;
    }
    const s = stats.get(name);
    if (!s || (s.size === row.size && s.mtimeMs === row.mtime_ms)) return;
    let text: string;
    try {
      text = readMemoryFile(join(dir, name)).text;
    } catch (err) {
      if (!(err instanceof RefusedFileError)) return;
      notice?.(`skipping ${join(dir, name)}: ${err.message}`);
      deleteEntryRow(db, row.rowid);
      changed++;
      return;
    }
    if (sha256(text) === row.file_hash) {
      db.query("UPDATE entries SET size = ?, mtime_ms = ? WHERE rowid = ?").run(s.size, s.mtimeMs, row.rowid);
      return;
    }
    if (indexFile(db, scope, dir, name, notice)) changed++;
    else {
      deleteEntryRow(db, row.rowid);
      changed++;
    }
  };
  const present = names ?? [...stats.keys()];
  const rowsOf = (files: string[]) =>
    new Map(
      (
        db
          .query(
            // by id (a file is named after its entry's id), along the (scope, id) index
            "SELECT rowid, id, file, size, mtime_ms, file_hash FROM entries WHERE scope = ? AND id IN (SELECT value FROM json_each(?))",
          )
          .all(scope, JSON.stringify(files.map((f) => f.slice(0, -3)))) as IndexedRow[]
      ).map((r) => [r.file, r]),
    );
  const finish = () => {
    if (names) {
      const listed = new Set(names);
      for (const row of db.query("SELECT rowid, file FROM entries WHERE scope = ?").all(scope) as IndexedRow[]) {
        // Not in our listing: gone, unless another process wrote it after we listed.
        if (listed.has(row.file) || existsSync(join(dir, row.file))) continue;
        deleteEntryRow(db, row.rowid);
        changed++;
      }
    }
    db.query(
      "INSERT INTO scan_dirs(dir, scope, mtime_ms) VALUES(?,?,?) ON CONFLICT(dir) DO UPDATE SET mtime_ms = excluded.mtime_ms",
    ).run(dir, scope, st.mtimeMs);
    if (walk) setWalkedMark(db, dir, st.mtimeMs);
  };
  const chunks = Math.max(1, Math.ceil(present.length / REFRESH_CHUNK));
  for (let c = 0; c < chunks && !cut; c++) {
    const list = present.slice(c * REFRESH_CHUNK, (c + 1) * REFRESH_CHUNK);
    db.transaction(() => {
      const rows = rowsOf(list);
      for (const name of list) compare(name, rows.get(name));
      if (c === chunks - 1 && !cut) finish(); // the marks move only once every file was compared
    }).immediate();
  }
  return changed;
}

/**
 * Symbolic links and other non-regular files anywhere in memory/ (outside .git), never followed:
 * Coffer does not read them, and `coffer doctor` lists them so the user can remove them.
 */
export function nonRegularInMemory(limit = 50): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (out.length >= limit || depth > 6) return;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (depth === 0 && name === ".git") continue;
      const full = join(dir, name);
      let st: import("node:fs").Stats;
      try {
        st = lstatSync(full);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(full, depth + 1);
      else if (!st.isFile()) out.push(full);
      if (out.length >= limit) return;
    }
  };
  if (isRealDir(paths.memory())) walk(paths.memory(), 0);
  return out;
}

/**
 * Make every team lane the index holds rows for resolvable (scan_dirs keeps its folder), so a
 * walk can compare it and an id found in it can be read; a lane whose worktree is gone is then
 * dropped by the walk.
 */
export function registerKnownTeams(db: Database): void {
  for (const r of db.query("SELECT scope, dir FROM scan_dirs WHERE scope LIKE 'team%'").all() as {
    scope: string;
    dir: string;
  }[])
    if (isTeamKey(r.scope) && !teamWorktree(r.scope)) registerTeam(r.scope, dirname(dirname(r.dir)));
}

/** Every scope present on disk: `global` plus each `memory/projects/<id>`. */
export function scopesOnDisk(): ScopeKey[] {
  const out: ScopeKey[] = [GLOBAL];
  try {
    if (isRealDir(paths.projectsRoot()))
      for (const name of readdirSync(paths.projectsRoot()))
        if (!name.startsWith(".") && !isTeamKey(name) && isRealDir(join(paths.projectsRoot(), name))) out.push(name);
  } catch {}
  return out;
}

/**
 * Remove the temp files of atomic writes whose writer died (killed mid-write): `.<name>.<pid>.<n>.tmp`
 * with a pid that no longer runs. They were never visible as entries; this only tidies up.
 */
export function removeDeadTemps(dir: string): number {
  let n = 0;
  let names: string[];
  if (!isRealDir(dir)) return 0;
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!isAtomicTemp(name)) continue;
    const pid = Number(/\.(\d+)\.[0-9a-z]+\.tmp$/.exec(name)?.[1] ?? 0);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue; // still writing
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EPERM") continue;
    }
    try {
      if (lstatSync(join(dir, name)).isFile()) {
        unlinkSync(join(dir, name));
        n++;
      }
    } catch {}
  }
  return n;
}

/** Drop every row and index all of memory/ again (tidying temp files of writers that died). */
export function rebuildIndex(
  db: Database,
  onProgress?: (done: number, total: number) => void,
  notice?: Notice,
): number {
  // Every folder Coffer writes in a scope: entries, rules.md/project.md beside them, handoffs.
  for (const scope of scopesOnDisk())
    for (const dir of [entriesDir(scope), scopeDir(scope), join(scopeDir(scope), "handoff")]) removeDeadTemps(dir);
  db.transaction(() => {
    db.run("DELETE FROM entries");
    db.run("DELETE FROM entries_fts");
    db.run("DELETE FROM scan_dirs");
    dropBlocks(db);
    db.query("INSERT OR REPLACE INTO meta(key, value) VALUES('vector_model', ?)").run(MODEL_ID);
  }).immediate();
  // Listed after the rows are gone: a write that lands before the delete has its file listed (and
  // read again here); one after it keeps the row its writer inserts. Listed before, an entry
  // written in between lost its row and was never read again (its folder's mtime then recorded).
  const scopes = scopesOnDisk().map((scope) => ({
    scope,
    dir: entriesDir(scope),
    names: listEntryFiles(entriesDir(scope)) ?? [],
  }));
  const total = scopes.reduce((n, s) => n + s.names.length, 0);
  let done = 0;
  let indexed = 0;
  for (const { scope, dir, names } of scopes) {
    // Chunked transactions keep other writers (hooks, MCP) from waiting on one huge lock.
    for (let i = 0; i < names.length; i += 2000) {
      db.transaction(() => {
        for (const name of names.slice(i, i + 2000)) {
          if (indexFile(db, scope, dir, name, notice)) indexed++;
          onProgress?.(++done, total);
        }
      }).immediate();
    }
    db.transaction(() => {
      touchScanDir(db, scope, true);
      packScope(db, scope, true);
    }).immediate();
  }
  return indexed;
}
