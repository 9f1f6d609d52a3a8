import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { audit } from "../lib/audit";
import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import { paths } from "../lib/paths";
import { isoNow } from "../lib/time";
import { ulid } from "../lib/ulid";
import { type Config, loadConfig } from "./config";
import { attachDb, BUSY_TIMEOUT_MS, dbOf, detachDb, discardIndexDb, isCorruption, openIndexDb } from "./db";
import {
  deriveTitle,
  type Entry,
  KINDS,
  type Kind,
  normHash,
  parseEntry,
  type Source,
  serializeEntry,
  TITLE_MAX,
} from "./entry";
import {
  entriesDir,
  entryPath,
  rebuildIndex,
  refreshScope,
  scopeDir,
  scopesOnDisk,
  touchScanDir,
  upsertEntryRow,
} from "./indexer";
import { GLOBAL, type ProjectScope, resolveProject, type ScopeKey, type ScopeName } from "./scope";

export type Freshness = "deep" | "shallow" | "none";

/**
 * An open store: the configuration and the scopes of one working directory, plus its index
 * (index.db), which only src/store/ reaches. Close it with closeStore.
 */
export type Store = {
  readonly config: Config;
  readonly cwd: string;
  project?: ProjectScope;
  readonly notice: (message: string) => void;
  /** How long a statement waits for another process's write lock. */
  readonly busyTimeoutMs: number;
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
};

const defaultNotice = (m: string) => process.stderr.write(`coffer: ${m}\n`);

/** Open the store for `cwd`: index (rebuilt when missing/corrupt), config, scopes, freshness. */
export function openStore(opts: OpenOptions = {}): Store {
  const cwd = opts.cwd ?? process.cwd();
  const notice = opts.notice ?? defaultNotice;
  const config = opts.config ?? loadConfig();
  const project = resolveProject(cwd);
  const store = openWithHealing(
    { cwd, config, project, notice, busyTimeoutMs: opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS },
    opts.rebuildAll ?? true,
  );
  if (opts.freshness !== "none") refresh(store, opts.freshness === "shallow" ? "shallow" : "deep");
  return store;
}

function openWithHealing(store: Store, rebuildAll: boolean): Store {
  // Coffer creates index.db before it ever writes memory/, so memory/ without an index.db means
  // the index was lost (deleted, or memory/ came from elsewhere): worth a notice. A first run is
  // quiet, even when a concurrent process created the empty file a moment before this one.
  const lost = existsSync(paths.memory()) && !existsSync(paths.indexDb());
  const { db, created } = openIndexDb(undefined, store.busyTimeoutMs);
  attachDb(store, db);
  if (created && rebuildAll) {
    const n = fillIndex(store);
    const why = lost ? "missing" : created === "upgraded" ? "out of date" : created === "replaced" ? "unreadable" : "";
    if (why) store.notice(`index.db was ${why}; rebuilt it from memory/ (${n} entries)`);
  }
  return store;
}

/** Index every scope on disk into a new index (reconciling, so concurrent writers lose nothing). */
function fillIndex(store: Store): number {
  const db = dbOf(store);
  for (const scope of scopesOnDisk()) refreshScope(db, scope, false, store.notice);
  return entryCount(store);
}

/** Entries in the index, all scopes. */
export function entryCount(store: Store): number {
  return (dbOf(store).query("SELECT count(*) AS n FROM entries").get() as { n: number }).n;
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

/** The scopes a read in this cwd covers: the project (if any) first, then global. */
export function activeScopes(store: Store): ScopeKey[] {
  return store.project ? [store.project.id, GLOBAL] : [GLOBAL];
}

/** Compare scopes with their files and catch the index up; returns how many entries changed. */
export function refresh(store: Store, mode: "deep" | "shallow", scopes = activeScopes(store)): number {
  return withHealing(store, () =>
    scopes.reduce((n, s) => n + refreshScope(dbOf(store), s, mode === "deep", store.notice), 0),
  );
}

/** Drop and rebuild the whole index from memory/ (`coffer reindex`); returns the entry count. */
export function reindex(store: Store, progress?: (done: number, total: number) => void): number {
  return rebuildIndex(dbOf(store), progress, store.notice);
}

export function closeStore(store: Store): void {
  detachDb(store);
}

/** Resolve a user-facing scope name; `project` outside a repository is a clear error. */
export function scopeKey(
  store: Store,
  name: ScopeName | string | undefined,
  fallback: "project-or-global" | "both" = "project-or-global",
): ScopeKey | undefined {
  if (name === undefined || name === "") return fallback === "both" ? undefined : (store.project?.id ?? GLOBAL);
  if (name === "global") return GLOBAL;
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
  throw new CofferError(`unknown scope "${name}" (allowed: project, global)`);
}

export function scopeName(_store: Store, key: ScopeKey): ScopeName {
  return key === GLOBAL ? "global" : "project";
}

/** `project.md`: a label and the normalized origin — never a machine path. */
function ensureProjectFile(project: ProjectScope): void {
  const file = join(paths.projectScope(project.id), "project.md");
  if (existsSync(file)) return;
  const lines = ["---", `label: ${JSON.stringify(project.label)}`];
  if (project.origin) lines.push(`origin: ${JSON.stringify(project.origin)}`);
  lines.push("---", `# ${project.label}`, "");
  writeFileAtomic(file, lines.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Entries

export type RememberInput = {
  text: string;
  title?: string;
  kind?: string;
  tags?: string[];
  applies_to?: string[];
  scope?: string;
  /** Rewrite this entry instead of creating one. */
  id?: string;
  actor: string;
  source: Source;
  origin_session?: string;
};

export type RememberResult = {
  id: string;
  scope: ScopeName;
  status: "created" | "updated" | "duplicate";
  entry: Entry;
};

export function bodyMax(store: Store): number {
  return Number(store.config["limits.body_max"] ?? 8192);
}

/** Check text, title, kind, tags; throws a CofferError that says what to fix. */
export function validateEntryInput(
  store: Store,
  input: Pick<RememberInput, "text" | "title" | "kind" | "tags" | "applies_to">,
): void {
  const text = input.text?.trim() ?? "";
  const max = bodyMax(store);
  if (!text)
    throw new CofferError(
      "text is empty",
      1,
      'Give the memory some text, e.g. coffer remember "we deploy with make release".',
    );
  if (text.length > max) {
    throw new CofferError(
      `text is ${text.length} characters; the limit is ${max}`,
      1,
      "Shorten it or split it into several entries (limits.body_max in config.toml, up to 32768).",
    );
  }
  if (input.title !== undefined && input.title.trim().length > TITLE_MAX) {
    throw new CofferError(`title is ${input.title.trim().length} characters; the limit is ${TITLE_MAX}`);
  }
  if (input.kind !== undefined && !(KINDS as readonly string[]).includes(input.kind)) {
    throw new CofferError(`unknown kind "${input.kind}" (allowed: ${KINDS.join(", ")})`);
  }
  for (const t of input.tags ?? [])
    if (!t.trim() || t.length > 64 || /[\n,]/.test(t))
      throw new CofferError(`invalid tag ${JSON.stringify(t)} (1..64 characters, no commas)`);
  for (const g of input.applies_to ?? [])
    if (!g.trim() || g.startsWith("/") || g.includes(".."))
      throw new CofferError(`invalid applies_to glob ${JSON.stringify(g)} (relative to the project root, no "..")`);
}

/**
 * Write an entry. A near-duplicate (same normalized text in the same scope) only refreshes the
 * existing entry's `updated`. The check and the write happen under the index's write lock so
 * concurrent writers never create the same entry twice.
 */
export function remember(store: Store, input: RememberInput): RememberResult {
  validateEntryInput(store, input);
  let scope: ScopeKey;
  if (input.id) {
    // A rewrite stays in the entry's own scope.
    const hit = requireEntry(store, input.id);
    if (input.scope && scopeKey(store, input.scope) !== hit.scope) {
      throw new CofferError(
        `entry ${hit.entry.id} is not in the ${input.scope} scope`,
        1,
        "Leave out scope when rewriting an entry.",
      );
    }
    scope = hit.scope;
    input = { ...input, id: hit.entry.id };
  } else {
    scope = scopeKey(store, input.scope)!;
  }
  if (scope !== GLOBAL && store.project?.id === scope) ensureProjectFile(store.project);
  const body = input.text.trim();
  const now = isoNow();
  const result = withHealing(store, () => {
    refreshScope(dbOf(store), scope, false, store.notice);
    let result!: RememberResult;
    dbOf(store)
      .transaction(() => {
        let existing: Entry | undefined;
        let status: RememberResult["status"] = "created";
        if (input.id) {
          existing = readEntryRow(store, input.id, scope);
          if (!existing) throw new CofferError(`no entry with id "${input.id}"`, 1, "List ids with `coffer list`.");
          status = "updated";
        } else {
          const dup = dbOf(store)
            .query("SELECT id FROM entries WHERE scope = ? AND norm_hash = ? LIMIT 1")
            .get(scope, normHash(body)) as { id: string } | null;
          existing = dup ? readEntryRow(store, dup.id, scope) : undefined;
          if (existing) status = "duplicate";
        }
        const entry: Entry =
          status === "duplicate" && existing
            ? { ...existing, updated: now }
            : {
                id: existing?.id ?? ulid(),
                kind: (input.kind as Kind | undefined) ?? existing?.kind ?? "note",
                title: input.title?.trim() || deriveTitle(body),
                tags: input.tags ?? existing?.tags ?? [],
                applies_to: input.applies_to ?? existing?.applies_to ?? [],
                actor: input.actor,
                source: input.source,
                origin_session: input.origin_session ?? existing?.origin_session,
                created: existing?.created ?? now,
                updated: now,
                body,
              };
        writeEntryFile(store, scope, entry);
        result = { id: entry.id, scope: scopeName(store, scope), status, entry };
      })
      .immediate();
    return result;
  });
  audit({
    event: result.status === "created" ? "entry_created" : "entry_updated",
    id: result.id,
    scope: result.scope,
    actor: input.actor,
    source: input.source,
  });
  return result;
}

/** Write the file atomically and index it; caller holds the write transaction. */
function writeEntryFile(store: Store, scope: ScopeKey, entry: Entry): void {
  const file = entryPath(scope, entry.id);
  const text = serializeEntry(entry);
  writeFileAtomic(file, text);
  const st = statSync(file);
  upsertEntryRow(dbOf(store), scope, parseEntry(text, entry.id), {
    name: `${entry.id}.md`,
    size: st.size,
    mtimeMs: st.mtimeMs,
    hash: sha256(text),
  });
  touchScanDir(dbOf(store), scope);
}

type Row = {
  id: string;
  scope: string;
  kind: string;
  title: string;
  tags: string;
  applies_to: string;
  actor: string;
  source: string;
  origin_session: string | null;
  created: string;
  updated: string;
  body: string;
  file: string;
};

export function rowToEntry(r: Row): Entry {
  return {
    id: r.id,
    kind: r.kind as Kind,
    title: r.title,
    tags: JSON.parse(r.tags),
    applies_to: JSON.parse(r.applies_to),
    actor: r.actor,
    source: r.source as Source,
    origin_session: r.origin_session ?? undefined,
    created: r.created,
    updated: r.updated,
    body: r.body,
  };
}

function readEntryRow(store: Store, id: string, scope: ScopeKey): Entry | undefined {
  const r = dbOf(store).query("SELECT * FROM entries WHERE scope = ? AND id = ?").get(scope, id) as Row | null;
  return r ? rowToEntry(r) : undefined;
}

/** Kind and last update of an indexed entry (for hits that carry only id and scope). */
export function entryMeta(store: Store, scope: ScopeKey, id: string): { kind: Kind; updated: string } | undefined {
  const r = withHealing(
    store,
    () =>
      dbOf(store).query("SELECT kind, updated FROM entries WHERE scope = ? AND id = ?").get(scope, id) as {
        kind: Kind;
        updated: string;
      } | null,
  );
  return r ?? undefined;
}

export type Located = { entry: Entry; scope: ScopeKey; scopeName: ScopeName | "other-project"; file: string };

/**
 * Find an entry by id (or a unique prefix of at least 6 characters) in any scope. The file is
 * the truth: an index hit whose file is gone is ignored, and the file system is searched when
 * the index does not know the id yet.
 */
export function findEntry(store: Store, idOrPrefix: string): Located | undefined {
  const id = idOrPrefix.trim().toUpperCase();
  if (!/^[0-9A-Za-z_.-]{1,64}$/.test(idOrPrefix.trim())) return undefined;
  const located = (scope: ScopeKey, file: string): Located | undefined => {
    try {
      const entry = parseEntry(readFileSync(file, "utf8"), file.split("/").pop()!.slice(0, -3));
      entry.id = file.split("/").pop()!.slice(0, -3);
      const name = scope === GLOBAL ? "global" : scope === store.project?.id ? "project" : "other-project";
      return { entry, scope, scopeName: name, file };
    } catch {
      return undefined;
    }
  };
  const rows = withHealing(
    store,
    () =>
      dbOf(store)
        .query("SELECT id, scope FROM entries WHERE id = ? OR id = ? OR (length(?) >= 6 AND id LIKE ? || '%') LIMIT 3")
        .all(idOrPrefix.trim(), id, id, id) as { id: string; scope: string }[],
  );
  const exact = rows.find((r) => r.id === idOrPrefix.trim() || r.id === id);
  const pick = exact ?? (rows.length === 1 ? rows[0] : undefined);
  if (rows.length > 1 && !exact)
    throw new CofferError(`id prefix "${idOrPrefix}" matches several entries`, 1, "Give more characters of the id.");
  if (pick) {
    const hit = located(pick.scope, entryPath(pick.scope, pick.id));
    if (hit) return hit;
  }
  for (const scope of scopesOnDisk()) {
    for (const candidate of [idOrPrefix.trim(), id]) {
      const file = entryPath(scope, candidate);
      if (existsSync(file)) return located(scope, file);
    }
  }
  return undefined;
}

export function requireEntry(store: Store, id: string): Located {
  const hit = findEntry(store, id);
  if (!hit)
    throw new CofferError(`no entry with id "${id}"`, 1, "List ids with `coffer list` or search with `coffer recall`.");
  return hit;
}

/** Delete an entry's file and index row. */
export function forget(
  store: Store,
  id: string,
  actor: string,
): { id: string; status: "deleted"; scope: ScopeName | "other-project" } {
  const hit = requireEntry(store, id);
  withHealing(store, () => {
    dbOf(store)
      .transaction(() => {
        rmSync(hit.file, { force: true });
        const row = dbOf(store)
          .query("SELECT rowid FROM entries WHERE scope = ? AND id = ?")
          .get(hit.scope, hit.entry.id) as { rowid: number } | null;
        if (row) {
          dbOf(store).query("DELETE FROM entries_fts WHERE rowid = ?").run(row.rowid);
          dbOf(store).query("DELETE FROM entries WHERE rowid = ?").run(row.rowid);
        }
        touchScanDir(dbOf(store), hit.scope);
      })
      .immediate();
  });
  audit({ event: "entry_deleted", id: hit.entry.id, scope: hit.scopeName, actor });
  return { id: hit.entry.id, status: "deleted", scope: hit.scopeName };
}

/** Replace an entry's whole file content (after `coffer edit`), validated and re-indexed. */
export function replaceEntryText(store: Store, hit: Located, text: string, actor: string): Entry {
  const parsed = parseEntry(text, hit.entry.id);
  parsed.id = hit.entry.id;
  validateEntryInput(store, {
    text: parsed.body,
    title: parsed.title,
    kind: parsed.kind,
    tags: parsed.tags,
    applies_to: parsed.applies_to,
  });
  const changed = serializeEntry({ ...parsed, updated: hit.entry.updated }) !== serializeEntry(hit.entry);
  const entry = changed ? { ...parsed, updated: isoNow() } : hit.entry;
  if (changed) {
    withHealing(store, () =>
      dbOf(store)
        .transaction(() => writeEntryFile(store, hit.scope, entry))
        .immediate(),
    );
    audit({ event: "entry_updated", id: entry.id, scope: hit.scopeName, actor, source: "cli" });
  }
  return entry;
}

export type ListOptions = { scope?: string; kind?: string; limit?: number; offset?: number };

export function listEntries(
  store: Store,
  opts: ListOptions = {},
): { total: number; entries: (Entry & { scope: ScopeName })[] } {
  if (opts.kind && !(KINDS as readonly string[]).includes(opts.kind))
    throw new CofferError(`unknown kind "${opts.kind}" (allowed: ${KINDS.join(", ")})`);
  const one = scopeKey(store, opts.scope, "both");
  const scopes = one ? [one] : activeScopes(store);
  const where = `scope IN (${scopes.map(() => "?").join(",")})${opts.kind ? " AND kind = ?" : ""}`;
  const params: (string | number)[] = [...scopes, ...(opts.kind ? [opts.kind] : [])];
  return withHealing(store, () => {
    const total = (
      dbOf(store)
        .query(`SELECT count(*) AS n FROM entries WHERE ${where}`)
        .get(...params) as { n: number }
    ).n;
    const rows = dbOf(store)
      .query(`SELECT * FROM entries WHERE ${where} ORDER BY updated DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...params, opts.limit ?? 50, opts.offset ?? 0) as Row[];
    return { total, entries: rows.map((r) => ({ ...rowToEntry(r), scope: scopeName(store, r.scope) })) };
  });
}

// ---------------------------------------------------------------------------------------------
// Rules lane

export function rulesPath(scope: ScopeKey): string {
  return join(scopeDir(scope), "rules.md");
}

export function readRules(scope: ScopeKey): string {
  try {
    return readFileSync(rulesPath(scope), "utf8");
  } catch {
    return "";
  }
}

/** Append one bullet to a scope's rules.md (a rule already present is not added twice). */
export function addRule(store: Store, scope: ScopeKey, text: string, actor: string): { added: boolean; file: string } {
  const rule = text
    .trim()
    .replace(/^[-*]\s+/, "")
    .replace(/\s*\n\s*/g, " ");
  if (!rule) throw new CofferError("rule text is empty", 1, 'e.g. coffer rules add "Run bun test before committing"');
  if (rule.length > 1000) throw new CofferError(`rule is ${rule.length} characters; the limit is 1000`);
  if (scope !== GLOBAL && store.project) ensureProjectFile(store.project);
  const file = rulesPath(scope);
  const current = readRules(scope);
  const norm = (s: string) =>
    s
      .replace(/^\s*[-*]\s+/, "")
      .trim()
      .toLowerCase();
  if (current.split("\n").some((l) => norm(l) === rule.toLowerCase())) return { added: false, file };
  const next = `${current && !current.endsWith("\n") ? `${current}\n` : current}- ${rule}\n`;
  writeFileAtomic(file, next);
  audit({ event: "rule_added", scope: scopeName(store, scope), actor });
  return { added: true, file };
}

export const RULES_MAX = 65536;

/** Replace a scope's whole rules.md (HTTP `PUT /api/v1/rules`); an empty text empties the lane. */
export function writeRules(
  store: Store,
  scope: ScopeKey,
  text: string,
  actor: string,
): { changed: boolean; file: string } {
  if (text.length > RULES_MAX)
    throw new CofferError(`rules text is ${text.length} characters; the limit is ${RULES_MAX}`);
  if (scope !== GLOBAL && store.project) ensureProjectFile(store.project);
  const file = rulesPath(scope);
  const next = text.trim() ? `${text.replace(/\s+$/, "")}\n` : "";
  if (readRules(scope) === next) return { changed: false, file };
  writeFileAtomic(file, next);
  audit({ event: "rules_replaced", scope: scopeName(store, scope), actor });
  return { changed: true, file };
}

// ---------------------------------------------------------------------------------------------
// Handoff lane

/** A file-safe slug for a branch name; names that had to change get a short hash to stay unique. */
export function branchSlug(branch: string | undefined): string {
  if (!branch) return "detached";
  const slug =
    branch
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[.-]+/, "")
      .slice(0, 80) || "branch";
  return slug === branch ? slug : `${slug}-${sha256(branch).slice(0, 6)}`;
}

export type Handoff = { branch: string | null; body: string; updated: string };

function requireProject(store: Store): ProjectScope {
  if (!store.project) {
    throw new CofferError(
      `handoff needs a git project: ${store.cwd} is not inside a repository`,
      1,
      "Run it inside the repository you are working on.",
    );
  }
  return store.project;
}

export function handoffPath(project: ProjectScope): string {
  return join(paths.projectScope(project.id), "handoff", `${branchSlug(project.branch)}.md`);
}

export function setHandoff(
  store: Store,
  body: string,
  actor: string,
): { status: "saved"; branch: string | null; scope: "project"; updated: string } {
  const project = requireProject(store);
  const text = body.trim();
  if (!text) throw new CofferError("handoff text is empty", 1, "Say where the work stands and what comes next.");
  const max = bodyMax(store);
  if (text.length > max) throw new CofferError(`handoff is ${text.length} characters; the limit is ${max}`);
  ensureProjectFile(project);
  const updated = isoNow();
  const branch = project.branch ?? null;
  writeFileAtomic(
    handoffPath(project),
    ["---", `branch: ${JSON.stringify(branch)}`, `updated: ${updated}`, "---", text, ""].join("\n"),
  );
  audit({ event: "handoff_saved", scope: "project", actor });
  return { status: "saved", branch, scope: "project", updated };
}

export function getHandoff(store: Store): Handoff | undefined {
  const project = requireProject(store);
  let text: string;
  try {
    text = readFileSync(handoffPath(project), "utf8");
  } catch {
    return undefined;
  }
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  let meta: Record<string, unknown> = {};
  if (m) {
    try {
      meta = (Bun.YAML.parse(m[1]!) as Record<string, unknown>) ?? {};
    } catch {}
  }
  const updated = meta.updated ? String(meta.updated) : isoNow(statSync(handoffPath(project)).mtime);
  return { branch: project.branch ?? null, body: (m ? text.slice(m[0].length) : text).trim(), updated };
}

/** The freshness note every resume carries: a handoff is a hint, not an instruction. */
export function freshnessNote(updated: string): string {
  return `saved ${updated}, may be stale; ignore if unrelated`;
}

// ---------------------------------------------------------------------------------------------
// Status

export type ScopeStatus = {
  scope: string;
  label: string;
  entries: number;
  rules: number;
  bytes: number;
  last_updated: string | null;
};

function projectLabel(id: string): string {
  try {
    const text = readFileSync(join(paths.projectScope(id), "project.md"), "utf8");
    const m = /^label:\s*(.+)$/m.exec(text);
    if (m) return JSON.parse(m[1]!.trim().startsWith('"') ? m[1]!.trim() : JSON.stringify(m[1]!.trim()));
  } catch {}
  return id;
}

export function storeStatus(store: Store): {
  home: string;
  scopes: ScopeStatus[];
  index: { file: string; bytes: number; entries: number };
} {
  const scopes = scopesOnDisk().map((scope) => {
    const row = withHealing(
      store,
      () =>
        dbOf(store).query("SELECT count(*) AS n, max(updated) AS last FROM entries WHERE scope = ?").get(scope) as {
          n: number;
          last: string | null;
        },
    );
    let bytes = 0;
    try {
      for (const name of readdirSync(entriesDir(scope))) bytes += statSync(join(entriesDir(scope), name)).size;
    } catch {}
    const rules = readRules(scope)
      .split("\n")
      .filter((l) => /^\s*[-*]\s+\S/.test(l)).length;
    return {
      scope: scope === GLOBAL ? "global" : scope,
      label: scope === GLOBAL ? "global" : projectLabel(scope),
      entries: row.n,
      rules,
      bytes,
      last_updated: row.last,
    };
  });
  let dbBytes = 0;
  try {
    dbBytes = statSync(paths.indexDb()).size;
  } catch {}
  const total = entryCount(store);
  return {
    home: paths.memory().replace(/\/memory$/, ""),
    scopes,
    index: { file: paths.indexDb(), bytes: dbBytes, entries: total },
  };
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}
