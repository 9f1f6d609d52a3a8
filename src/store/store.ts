import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { type Config, loadConfig } from "../config/config";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { writeErr } from "../lib/output";
import { paths } from "../lib/paths";
import { attachDb, BUSY_TIMEOUT_MS, dbOf, detachDb, discardIndexDb, isBusy, isCorruption, openIndexDb } from "./db";
import { checkScope, type IndexedFile, verifyFiles, verifyRows } from "./freshness";
import { readMemoryFile, rebuildIndex, refreshScope, registerKnownTeams, scopesOnDisk } from "./indexer";
import {
  GLOBAL,
  isTeamKey,
  knownTeams,
  type ProjectScope,
  resolveProject,
  type ScopeKey,
  type ScopeName,
  type TeamScope,
  teamScopeOf,
  teamWorktree,
} from "./scope";
import { refreshVectors } from "./vectors";

/**
 * How much of memory/ a command compares with the index before answering (freshness.ts):
 * full = every file (reindex, doctor, serve's periodic pass); deep = the CLI's check (folder
 * mtimes, recent entries and a slice); shallow = folder mtimes only (hooks); none.
 */
type Freshness = "full" | "deep" | "shallow" | "none";

/**
 * An open store: the configuration and the scopes of one working directory, plus its index
 * (index.db), which only src/store/ reaches. Close it with closeStore.
 */
export type { IndexedFile } from "./freshness";

export type Store = {
  readonly config: Config;
  readonly cwd: string;
  project?: ProjectScope;
  /**
   * The worktree's team lane (`<worktree>/.coffer/`), when inside a project and `team.read` is
   * on; read as a scope only when `.coffer/` is there (`present`). Whoever replaces `project`
   * with another one sets this to undefined (it belongs to the cwd's worktree).
   */
  team?: TeamScope;
  readonly notice: (message: string) => void;
  /** How long a statement waits for another process's write lock. */
  readonly busyTimeoutMs: number;
  /** A refresh reads no further file after this time (Date.now()); hooks set it from their deadline. */
  readonly refreshUntil?: number;
};

export type OpenOptions = {
  cwd?: string;
  /** How much of the file system to compare against the index before answering (default deep). */
  freshness?: Freshness;
  /** Where one-line notices go (index rebuilt, skipped file). Default: stderr. */
  notice?: (message: string) => void;
  config?: Config;
  /** Rebuild every scope when index.db had to be created (CLI), or only the scopes in use (hooks). */
  rebuildAll?: boolean;
  /** How long a statement waits for another process's write lock (default 5000 ms; hooks pass their deadline). */
  busyTimeoutMs?: number;
  /** When the refresh cannot get the write lock in time: go on reading (default) or throw (servers retry). */
  readWhenBusy?: boolean;
  /**
   * A refresh reads no further file after this time (Date.now()): a hook after a checkout that
   * changed thousands of team files answers in time with what is indexed so far (shown entries
   * are still checked against their files) and the next hook goes on.
   */
  refreshUntil?: number;
};

const defaultNotice = (m: string) => writeErr(`coffer: ${m}\n`);

/** Open the store for `cwd`: index (rebuilt when missing/corrupt), config, scopes, freshness. */
export function openStore(opts: OpenOptions = {}): Store {
  const cwd = opts.cwd ?? process.cwd();
  const notice = opts.notice ?? defaultNotice;
  const config = opts.config ?? loadConfig();
  const project = resolveProject(cwd);
  const team = project && config["team.read"] === "on" ? teamScopeOf(project) : undefined;
  const store = openWithHealing(
    {
      cwd,
      config,
      project,
      team,
      notice,
      busyTimeoutMs: opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS,
      refreshUntil: opts.refreshUntil,
    },
    opts.rebuildAll ?? true,
  );
  try {
    registerKnownTeams(dbOf(store));
  } catch {}
  try {
    if (opts.freshness !== "none") refresh(store, opts.freshness ?? "deep");
  } catch (err) {
    // Another process holds the write lock past our wait (a stuck writer): reads go on with what
    // the index holds (WAL readers are never blocked); writes still wait and say who holds it.
    if (isBusy(err) && opts.readWhenBusy !== false) {
      notice("index.db is held by another process's write; reading what it holds now (it may miss the newest changes)");
      // We already waited once: a write after this fails soon, naming the holder, instead of waiting again.
      try {
        dbOf(store).run("PRAGMA busy_timeout = 200");
      } catch {}
      return store;
    }
    closeStore(store); // the caller may retry with a new open
    throw err;
  }
  // Vectors of another model (a new binary) are made again here, a few seconds' worth per command
  // (`coffer reindex` does all at once); the hooks never wait for it and compare by words meanwhile.
  if ((opts.freshness ?? "deep") === "deep") {
    try {
      refreshVectors(store, 3000);
    } catch {}
  }
  return store;
}

function openWithHealing(store: Store, rebuildAll: boolean): Store {
  // Coffer creates index.db before it ever writes memory/, so memory/ without an index.db means
  // the index was lost (deleted, or memory/ came from elsewhere): worth a notice. A first run is
  // quiet, even when a concurrent process created the empty file a moment before this one.
  const lost = existsSync(paths.memory()) && !existsSync(paths.indexDb());
  const { db, created, inMemory } = openIndexDb(undefined, store.busyTimeoutMs);
  attachDb(store, db);
  if (inMemory) readOnlyStores.add(store);
  if (inMemory)
    store.notice(
      `${paths.indexDb()} cannot be written (read-only store, or a full disk?): reading from a copy in memory; nothing can be saved`,
    );
  if (created && rebuildAll) {
    let n: number;
    try {
      n = fillIndex(store);
    } catch (err) {
      detachDb(store);
      throw err;
    }
    const why = lost ? "missing" : created === "upgraded" ? "out of date" : created === "replaced" ? "unreadable" : "";
    if (why) store.notice(`index.db was ${why}; rebuilt it from memory/ (${n} entries)`);
  }
  return store;
}

/** Index every scope on disk into a new index (reconciling, so concurrent writers lose nothing). */
function fillIndex(store: Store): number {
  const db = dbOf(store);
  for (const scope of scopesOnDisk()) refreshScope(db, scope, true, store.notice);
  return entryCount(store);
}

/** Entries in the index, all scopes: the per-scope counts the triggers keep (a count(*) reads 100,000 rows in 8 ms). */
export function entryCount(store: Store): number {
  return (dbOf(store).query("SELECT coalesce(sum(n), 0) AS n FROM scope_counts").get() as { n: number }).n;
}

/** Run `fn` against the index; a corrupt index.db is discarded, rebuilt from memory/ and `fn` retried once. */
export function withHealing<T>(store: Store, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!isCorruption(err)) throw err;
    discardIndexDb(dbOf(store));
    const { db } = openIndexDb(undefined, store.busyTimeoutMs);
    attachDb(store, db);
    const n = fillIndex(store);
    store.notice(`index.db was corrupt; rebuilt it from memory/ (${n} entries)`);
    return fn();
  }
}

/** The scopes a read in this cwd covers: the project (if any) first, then its team lane (when present), then global. */
export function activeScopes(store: Store): ScopeKey[] {
  if (!store.project) return [GLOBAL];
  return store.team?.present ? [store.project.id, store.team.key, GLOBAL] : [store.project.id, GLOBAL];
}

/**
 * The scopes a refresh compares: the active ones, and the team lane even when `.coffer/` is gone
 * (a checkout of a branch without it), so its rows leave the index.
 */
function refreshedScopes(store: Store): ScopeKey[] {
  const scopes = activeScopes(store);
  return store.team && !store.team.present ? [...scopes, store.team.key] : scopes;
}

/** Compare scopes with their files and catch the index up; returns how many entries changed. */
export function refresh(store: Store, mode: "full" | "deep" | "shallow", scopes = refreshedScopes(store)): number {
  return withHealing(store, () =>
    scopes.reduce(
      (n, s) =>
        n +
        (mode === "deep"
          ? checkScope(dbOf(store), s, store.notice)
          : // a team lane changes by checkout (same names, new files): walked when its folder moved
            refreshScope(
              dbOf(store),
              s,
              mode === "full" || (isTeamKey(s) && "moved"),
              store.notice,
              store.refreshUntil,
            )),
      0,
    ),
  );
}

/**
 * Entries about to be shown, checked against their files (freshness.ts verifyRows): `changed` >
 * 0 means the index was caught up and the caller should ask again; `stale` rows must not be shown.
 */
export function verifyShown(store: Store, rowids: number[]): { changed: number; stale: Set<number> } {
  return verifyRows(dbOf(store), rowids, store.notice);
}

/**
 * Compute what a command or hook shows, then check the entries it shows (`shown`: their rowids)
 * against their files (size and mtime): when an entry's file changed since it was indexed, it is
 * read again and `compute` runs again (at most twice more); an entry whose file is gone is dropped
 * from the index. `stale`: entries that could not be checked (the index busy): never show them.
 * So nothing is shown older than its file.
 */
export function checkedAgainstFiles<T>(
  store: Store,
  compute: () => T,
  shown: (value: T) => number[] | IndexedFile[],
): { value: T; stale: Set<number>; changed: boolean } {
  let changed = false;
  for (let attempt = 0; ; attempt++) {
    const value = compute();
    const rows = shown(value);
    // Rows read with their indexed file (session start's cards) need no second look-up.
    const check =
      rows.length && typeof rows[0] !== "number"
        ? verifyFiles(dbOf(store), rows as IndexedFile[], store.notice)
        : verifyShown(store, rows as number[]);
    changed ||= check.changed > 0;
    if (check.changed && attempt < 2) continue;
    return { value, stale: check.stale, changed };
  }
}

/** Compare every file of every scope on disk (and every team lane the index knows) with the index (doctor, serve's periodic pass). */
export function walkAllScopes(store: Store): number {
  return refresh(store, "full", [...scopesOnDisk(), ...knownTeams().map(([key]) => key)]);
}

/** Stores whose index is a private copy in memory: COFFER_HOME cannot be written. */
const readOnlyStores = new WeakSet<Store>();

/** Drop and rebuild the whole index from memory/ (`coffer reindex`); returns the entry count. */
export function reindex(store: Store, progress?: (done: number, total: number) => void): number {
  if (readOnlyStores.has(store))
    throw new CofferError(
      `Coffer's store is read-only (${paths.indexDb()} cannot be written): the index cannot be rebuilt`,
      1,
      "Reading still works. Make COFFER_HOME writable again (chmod -R u+w on it, or remount it read-write), then run coffer reindex.",
      "unavailable",
    );
  const n = rebuildIndex(dbOf(store), progress, store.notice);
  // The team lane is not under memory/: indexed again from this worktree's `.coffer/`.
  if (store.team) refreshScope(dbOf(store), store.team.key, true, store.notice);
  return store.team ? entryCount(store) : n;
}

export function closeStore(store: Store): void {
  detachDb(store);
}

/** How a server waits for a busy index: short waits inside SQLite, awaited pauses between them. */
const SERVER_BUSY = { busyTimeoutMs: 100, totalMs: 20_000 };

/**
 * Open a store for one call (so changes by other processes are seen), run `fn`, close it — for
 * servers (MCP, HTTP). A busy index (another process holding the write lock) is retried after
 * an awaited pause, so the event loop keeps serving other requests; `fn` runs again from the
 * start, which is safe because each store write checks and writes in one transaction.
 */
export async function withOpenStore<T>(opts: OpenOptions, fn: (store: Store) => T): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    let store: Store | undefined;
    try {
      store = openStore({ busyTimeoutMs: SERVER_BUSY.busyTimeoutMs, readWhenBusy: false, ...opts });
      return fn(store);
    } catch (err) {
      if (!isBusy(err) || Date.now() - started > SERVER_BUSY.totalMs) throw err;
    } finally {
      if (store) closeStore(store);
    }
    await Bun.sleep(Math.min(200, 10 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random()));
  }
}

/** Resolve a user-facing scope name; `project` outside a repository is a clear error. */
export function scopeKey(
  store: Store,
  name: ScopeName | string | undefined,
  fallback: "project-or-global" | "both" = "project-or-global",
): ScopeKey | undefined {
  if (name === undefined || name === "") return fallback === "both" ? undefined : (store.project?.id ?? GLOBAL);
  if (name === "global") return GLOBAL;
  if (name === "team") return requireTeam(store).key;
  if (name === "project") {
    if (!store.project) {
      throw new CofferError(
        `no project scope here: ${store.cwd} is not inside a git repository`,
        1,
        "Run it inside a repository, or use --scope global.",
      );
    }
    return store.project.id;
  }
  throw new CofferError(`unknown scope "${name}" (allowed: project, team, global)`);
}

/** The cwd's team lane, or a CofferError that says why there is none. */
export function requireTeam(store: Store): TeamScope {
  if (!store.project)
    throw new CofferError(
      `no team scope here: ${store.cwd} is not inside a git repository`,
      1,
      "The team lane is the repository's .coffer/ folder: run it inside a repository.",
    );
  if (!store.team)
    throw new CofferError(
      "the team lane is turned off (team.read = off)",
      1,
      "Turn it on with `coffer config set team.read on`.",
    );
  return store.team;
}

export function scopeName(_store: Store, key: ScopeKey): ScopeName {
  return key === GLOBAL ? "global" : isTeamKey(key) ? "team" : "project";
}

/**
 * `project.md`: a label and the normalized origin — never a machine path. Returns the text when it
 * wrote the file (an import records it, so that undo removes it), nothing when it was there.
 */
export function ensureProjectFile(project: ProjectScope): string | undefined {
  const file = join(paths.projectScope(project.id), "project.md");
  if (existsSync(file)) return undefined;
  const lines = ["---", `label: ${JSON.stringify(project.label)}`];
  if (project.origin) lines.push(`origin: ${JSON.stringify(project.origin)}`);
  lines.push("---", `# ${project.label}`, "");
  const text = lines.join("\n");
  writeFileAtomic(file, text);
  return text;
}

/** `project.md`'s label and origin (JSON-quoted YAML scalars), or the id when it is missing. */
export function projectMeta(id: ScopeKey): { label: string; origin: string | null } {
  if (id === GLOBAL) return { label: "global", origin: null };
  if (isTeamKey(id)) {
    // A team lane: "team <repository>" (its checkout's repository, read from its .git files).
    const worktree = teamWorktree(id);
    const project = worktree ? resolveProject(worktree) : undefined;
    return {
      label: `team ${project?.label ?? (worktree ? basename(worktree) : "(unknown checkout)")}`,
      origin: project?.origin ?? null,
    };
  }
  try {
    return parseProjectMeta(readMemoryFile(join(paths.projectScope(id), "project.md")).text, id);
  } catch {
    return { label: id, origin: null };
  }
}

/** A project.md's label and origin (the id when it names none). */
export function parseProjectMeta(text: string, id: ScopeKey): { label: string; origin: string | null } {
  try {
    const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
    const meta = (m ? Bun.YAML.parse(m[1]!) : {}) as { label?: unknown; origin?: unknown };
    return {
      label: typeof meta.label === "string" && meta.label ? meta.label : id,
      origin: typeof meta.origin === "string" ? meta.origin : null,
    };
  } catch {
    return { label: id, origin: null };
  }
}

export function bodyMax(store: Store): number {
  return store.config["limits.body_max"];
}
