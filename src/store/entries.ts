/** Memory entries: validate, write (with near-duplicate check), find by id or prefix, forget, list. */
import type { Database } from "bun:sqlite";
import { lstatSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError, notFoundError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import { pathExists } from "../lib/small-file";
import { isoNow } from "../lib/time";
import { ulid } from "../lib/ulid";
import { audit, scrubFields } from "../scrub/write";
import { dbOf } from "./db";
import {
  deriveTitle,
  type Entry,
  KEYWORDS_MAX,
  KINDS,
  type Kind,
  keywordsProblem,
  type Located,
  normHash,
  normKeywords,
  parseEntry,
  type Source,
  serializeEntry,
  TITLE_MAX,
} from "./entry";
import {
  assertMemoryWritePath,
  entriesDir,
  entryPath,
  readMemoryFile,
  refreshScope,
  scopesOnDisk,
  touchScanDir,
  upsertEntryRow,
} from "./indexer";
import { GLOBAL, isTeamKey, type ScopeKey, type ScopeName } from "./scope";
import { seenAtWrite } from "./stale/stale";
import {
  activeScopes,
  bodyMax,
  checkedAgainstFiles,
  ensureProjectFile,
  type Store,
  scopeKey,
  scopeName,
  verifyShown,
  withHealing,
} from "./store";
import { SYNC_CONFLICT_TAG, syncConflicts } from "./sync-conflicts";
import { teamSafeEntry, writeTeamFile } from "./team";
import { moveToTrash } from "./trash";

export type RememberInput = {
  text: string;
  title?: string;
  kind?: string;
  tags?: string[];
  /** Other words for the topic (routing); a rewrite without them keeps the entry's own. */
  keywords?: string[];
  applies_to?: string[];
  scope?: string;
  /** Rewrite this entry instead of creating one. */
  id?: string;
  actor: string;
  source: Source;
  origin_session?: string;
  /** Keep secrets as given (the CLI's --allow-secret); by default each becomes [redacted]. */
  allow_secret?: boolean;
  /**
   * The entry this one replaces: it is kept on disk, marked `status: superseded` with
   * `superseded_by`, and never routed, injected or recalled again.
   */
  supersedes?: string;
};

export type RememberResult = {
  id: string;
  scope: ScopeName;
  status: "created" | "updated" | "duplicate";
  entry: Entry;
  /** "scrubbed 1 secret (stripe)" when secrets in any field (text, title, tags, applies_to, ...) were replaced. */
  scrubbed?: string;
  /** The entry marked superseded by this one. */
  superseded?: string;
};

/** Fields of a write that name things (ids, scopes, enums) rather than hold text: never scrubbed. */
const REMEMBER_CONTROL = ["id", "scope", "supersedes", "kind", "source"] as const;
/** An entry's fields that are never free text (ids, enums, times). */
const ENTRY_CONTROL = ["id", "kind", "source", "status", "superseded_by", "created", "updated"] as const;

/**
 * A string that cannot be stored as text: a NUL byte, or a lone UTF-16 surrogate (invalid Unicode:
 * it has no UTF-8 form, and its escape would not read back).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorable = (s: string) => s.includes("\u0000") || LONE_SURROGATE.test(s);

/** Every string of a write (any field, lists too) can be stored as text; throws naming the field. */
function assertStorable(fields: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(fields)) {
    const list = typeof v === "string" ? [v] : Array.isArray(v) ? v : [];
    for (const x of list)
      if (typeof x === "string" && unstorable(x))
        throw new CofferError(
          `${k} holds ${x.includes("\u0000") ? "a NUL byte" : "invalid Unicode (a lone surrogate)"}; nothing was written`,
          1,
          "Give plain text (binary data cannot be stored in an entry).",
        );
  }
}

/** Check text, title, kind, tags and that every field is storable text; throws a CofferError that says what to fix. */
function validateEntryInput(
  store: Store,
  input: Pick<RememberInput, "text" | "title" | "kind" | "tags" | "keywords" | "applies_to">,
): void {
  assertStorable(input);
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
  const kw = input.keywords === undefined ? undefined : keywordsProblem(input.keywords);
  if (kw) throw new CofferError(kw);
}

/**
 * Write an entry. A near-duplicate (same normalized text in the same scope) only refreshes the
 * existing entry's `updated`. The check and the write happen under the index's write lock so
 * concurrent writers never create the same entry twice.
 */
export function remember(store: Store, input: RememberInput): RememberResult {
  // Secrets never land in memory: every way in (CLI, MCP, HTTP, web, inbox, distill, import) passes
  // here, and every free-text field is scrubbed (a field added later is covered without a change).
  if (input.allow_secret && input.scope === "team")
    throw new CofferError(
      "--allow-secret does not apply to the team lane: its files are committed and shared",
      1,
      "Leave the secret out, or remember it in your own project scope.",
    );
  const clean = scrubFields(input, input.allow_secret, REMEMBER_CONTROL);
  input = clean.fields;
  validateEntryInput(store, input);
  if (input.keywords) input = { ...input, keywords: normKeywords(input.keywords) };
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
  // The entry to supersede: in a scope this store writes (this project or global), still current.
  const old = input.supersedes ? requireEntry(store, input.supersedes, { scopes: activeScopes(store) }) : undefined;
  if (old?.entry.status === "superseded")
    throw new CofferError(
      `entry ${old.entry.id} is already superseded${old.entry.superseded_by ? ` by ${old.entry.superseded_by}` : ""}`,
      1,
      old.entry.superseded_by ? `Supersede ${old.entry.superseded_by} instead.` : undefined,
    );
  if (old && input.id && old.entry.id === input.id)
    throw new CofferError("an entry cannot supersede itself", 1, "Name the older entry with --supersedes.");
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
          if (!existing) throw notFoundError(`no entry with id "${input.id}"`, "List ids with `coffer list`.");
          status = "updated";
        } else {
          const same = dbOf(store).query("SELECT rowid, id FROM entries WHERE scope = ? AND norm_hash = ? LIMIT 1");
          let dup = same.get(scope, normHash(body)) as { rowid: number; id: string } | null;
          // The index may be older than that entry's file (edited in place, not yet noticed): the
          // file decides, so a text an entry no longer holds is written, not taken as known.
          for (let i = 0; dup && i < 3 && verifyShown(store, [dup.rowid]).changed; i++)
            dup = same.get(scope, normHash(body)) as { rowid: number; id: string } | null;
          existing = dup ? readEntryRow(store, dup.id, scope) : undefined;
          if (existing) status = "duplicate";
        }
        const entry: Entry =
          status === "duplicate" && existing
            ? { ...existing, ...mergedKeywords(existing.keywords, input.keywords), updated: now }
            : {
                id: existing?.id ?? ulid(),
                kind: (input.kind as Kind | undefined) ?? existing?.kind ?? "note",
                title: input.title?.trim() || deriveTitle(body),
                tags: input.tags ?? existing?.tags ?? [],
                ...((input.keywords ?? existing?.keywords)?.length
                  ? { keywords: input.keywords ?? existing?.keywords }
                  : {}),
                applies_to: input.applies_to ?? existing?.applies_to ?? [],
                // A rewrite keeps the entry's origin (who added it, and how); the audit log names the editor.
                actor: existing?.actor ?? input.actor,
                source: existing?.source ?? input.source,
                origin_session: input.origin_session ?? existing?.origin_session,
                imported_from: existing?.imported_from,
                created: existing?.created ?? now,
                updated: now,
                body,
                ...(existing?.extra ? { extra: existing.extra } : {}),
              };
        writeEntryFile(store, scope, entry);
        result = { id: entry.id, scope: scopeName(store, scope), status, entry };
        if (old && old.entry.id !== entry.id) {
          writeEntryFile(store, old.scope, {
            ...old.entry,
            status: "superseded",
            superseded_by: entry.id,
            updated: now,
          });
          result.superseded = old.entry.id;
        }
      })
      .immediate();
    return result;
  });
  if (result.status !== "duplicate") markSeenAtWrite(store, scope, result.id);
  audit({
    event: result.status === "created" ? "entry_created" : "entry_updated",
    id: result.id,
    scope: result.scope,
    actor: input.actor,
    source: input.source,
  });
  if (result.superseded)
    audit({
      event: "entry_superseded",
      id: result.superseded,
      by: result.id,
      actor: input.actor,
      source: input.source,
    });
  return clean.note ? { ...result, scrubbed: clean.note } : result;
}

/** A near-duplicate keeps its keywords and gains the new writer's (up to KEYWORDS_MAX). */
function mergedKeywords(have: string[] | undefined, add: string[] | undefined): { keywords?: string[] } {
  if (!add?.length) return {};
  return { keywords: normKeywords([...(have ?? []), ...add]).slice(0, KEYWORDS_MAX) };
}

/**
 * Write the file atomically and index it; caller holds the write transaction. The text is parsed
 * back before anything is written: a file Coffer could not read is never created.
 */
export function writeEntryFile(store: Store, scope: ScopeKey, entry: Entry): void {
  const file = entryPath(scope, entry.id);
  const team = isTeamKey(scope) ? store.team : undefined;
  if (isTeamKey(scope) && team?.key !== scope)
    throw new CofferError(
      `not writing entry ${entry.id}: its team lane is another worktree's`,
      1,
      "Run it inside that worktree.",
    );
  // Into a repository: nothing personal (team.ts), never a secret (whatever the way in: promote,
  // edit, supersede), and the file is a repository file (the user's own mode).
  if (team) entry = scrubFields(teamSafeEntry(entry, team, store.config["team.author"]), false, ENTRY_CONTROL).fields;
  assertStorable(entry);
  const text = serializeEntry(entry);
  let parsed: Entry;
  try {
    parsed = parseEntry(text, entry.id);
  } catch (err) {
    throw new CofferError(`not writing entry ${entry.id}: it would not read back (${(err as Error).message})`);
  }
  assertMemoryWritePath(file);
  if (team) writeTeamFile(team, file, text);
  else writeFileAtomic(file, text);
  const st = statSync(file);
  upsertEntryRow(dbOf(store), scope, parsed, {
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
  keywords?: string;
  applies_to: string;
  actor: string;
  source: string;
  origin_session: string | null;
  created: string;
  updated: string;
  body: string;
  file: string;
  status?: string;
  superseded_by?: string | null;
};

export function rowToEntry(r: Row): Entry {
  const keywords: string[] = r.keywords ? JSON.parse(r.keywords) : [];
  return {
    id: r.id,
    kind: r.kind as Kind,
    title: r.title,
    tags: JSON.parse(r.tags),
    ...(keywords.length ? { keywords } : {}),
    applies_to: JSON.parse(r.applies_to),
    actor: r.actor,
    source: r.source as Source,
    origin_session: r.origin_session ?? undefined,
    ...(r.status === "superseded"
      ? { status: "superseded" as const, ...(r.superseded_by ? { superseded_by: r.superseded_by } : {}) }
      : {}),
    created: r.created,
    updated: r.updated,
    body: r.body,
  };
}

function readEntryRow(store: Store, id: string, scope: ScopeKey): Entry | undefined {
  const r = dbOf(store).query("SELECT * FROM entries WHERE scope = ? AND id = ?").get(scope, id) as Row | null;
  if (!r) return undefined;
  // The file is the truth: what the index does not keep (imported_from, ...) survives a rewrite.
  try {
    const e = parseEntry(readMemoryFile(entryPath(scope, id)).text, id);
    e.id = id;
    return e;
  } catch {
    return rowToEntry(r);
  }
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

/** An entry found in a scope (the type lives in entry.ts, which trash.ts reads too). */
export type { Located };

/** A ULID's alphabet (Crockford base32: no I, L, O, U), either case. */
const ULID_CHARS = /^[0-9A-HJKMNP-TV-Z]+$/i;
/** What a hand-named entry file may be called (the file name is the id); matched exactly, never as a pattern. */
const FILE_ID = /^[0-9A-Za-z_.-]{1,64}$/;

export type FindOptions = {
  /** Look only in these scopes (servers: the caller's project + global). Default: every scope. */
  scopes?: ScopeKey[];
  /**
   * Return a file that is not a valid entry (bad frontmatter, a link, too large) as a hit with
   * `broken` set, so `forget` can remove it. Without it such a file throws a CofferError naming it.
   */
  allowBroken?: boolean;
};

/** A scope as a message names it. */
function scopeLabel(store: Store, scope: string): string {
  if (scope === GLOBAL) return "global";
  if (scope === store.project?.id) return "this project";
  if (scope === store.team?.key) return "this repository's team lane";
  return isTeamKey(scope) ? "another checkout's team lane" : `project ${scope}`;
}

/**
 * Find an entry by id (or 4+ characters of a ULID's start or end, such as its handle, when unique) in the given scopes
 * (every scope by default). The file is the truth: an index hit whose file is gone is ignored, and
 * the file system is searched when the index does not know the id yet. A prefix is matched
 * literally (LIKE with its wildcards escaped), and only in the ULID alphabet.
 */
export function findEntry(store: Store, idOrPrefix: string, opts: FindOptions = {}): Located | undefined {
  const raw = idOrPrefix.trim();
  const id = raw.toUpperCase();
  if (!FILE_ID.test(raw)) return undefined;
  const inScope = (scope: string) => !opts.scopes || opts.scopes.includes(scope);
  let broken: Located | undefined;
  const located = (scope: ScopeKey, file: string): Located | undefined => {
    const fileId = basename(file).slice(0, -3);
    const name =
      scope === GLOBAL
        ? "global"
        : scope === store.project?.id
          ? "project"
          : scope === store.team?.key
            ? "team"
            : isTeamKey(scope)
              ? "other-team"
              : "other-project";
    try {
      const entry = parseEntry(readMemoryFile(file).text, fileId);
      entry.id = fileId;
      return { entry, scope, scopeName: name, file };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      // Not an entry: remembered so the caller hears which file it is, not "no entry with id".
      const why = (err as Error).message.replace(`${file} `, "").replace(`${file}: `, "");
      broken ??= {
        entry: {
          id: fileId,
          kind: "note",
          title: `(broken file: ${why})`,
          tags: [],
          applies_to: [],
          actor: "user",
          source: "cli",
          created: "",
          updated: "",
          body: "",
        },
        scope,
        scopeName: name,
        file,
        broken: why,
      };
      return undefined;
    }
  };
  // 4+ characters of a ULID: its start (`01M8`: a timestamp, so a short one can match many) or its
  // end (the handle lists show, `4G3VPN2X`: random, so unique in practice).
  const part = id.length >= 4 && ULID_CHARS.test(id) ? id.replace(/[\\%_]/g, "\\$&") : null;
  const prefix = part && `${part}%`;
  const suffix = part && `%${part}`;
  const scopeSql = opts.scopes ? ` AND scope IN (${opts.scopes.map(() => "?").join(",")})` : "";
  const where = `(id = ? OR id = ? OR (? IS NOT NULL AND (id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\')))${scopeSql}`;
  const params = [raw, id, part, prefix, suffix, ...(opts.scopes ?? [])];
  type Row = { rowid: number; id: string; scope: string; title: string };
  // The id as given first, along the id index: the prefix and suffix match below reads all of it
  // (a suffix has no index), 8 ms at 100,000 entries, and an exact id never needs it.
  const byId = withHealing(
    store,
    () =>
      dbOf(store)
        .query(`SELECT rowid, id, scope, title FROM entries WHERE (id = ? OR id = ?)${scopeSql} ORDER BY id LIMIT 5`)
        .all(raw, id, ...(opts.scopes ?? [])) as Row[],
  );
  const rows = byId.length
    ? byId
    : withHealing(
        store,
        () =>
          dbOf(store)
            .query(`SELECT rowid, id, scope, title FROM entries WHERE ${where} ORDER BY id LIMIT 5`)
            .all(...params) as Row[],
      );
  // The same id in several scopes (a restored copy of a promoted entry, a file copied by hand):
  // the user's own first (this project's, then global), then the team lane's (issue 36: a team file
  // never shadows a personal entry of the same id).
  const order = [...activeScopes(store).filter((s) => !isTeamKey(s)), ...activeScopes(store).filter(isTeamKey)];
  const rank = (scope: string) => {
    const i = order.indexOf(scope);
    return i < 0 ? 9 : i;
  };
  const count = (what: string) =>
    withHealing(
      store,
      () =>
        (
          dbOf(store)
            .query(`SELECT ${what} AS n FROM entries WHERE ${where}`)
            .get(...params) as { n: number }
        ).n,
    );
  const exact = rows.filter((r) => r.id === raw || r.id === id);
  // Every match is one id: more characters cannot tell them apart, the scopes' order can.
  const oneId = rows.length > 1 && !exact.length && count("count(DISTINCT id)") === 1;
  const same = (exact.length ? exact : oneId ? rows : []).sort((a, b) => rank(a.scope) - rank(b.scope));
  if (same.length > 1 && rank(same[0]!.scope) === rank(same[1]!.scope)) {
    const tied = same.filter((r) => rank(r.scope) === rank(same[0]!.scope));
    throw new CofferError(
      `${tied.length} entries have the id ${same[0]!.id}, in ${tied.map((r) => scopeLabel(store, r.scope)).join(" and ")}`,
      1,
      "More characters cannot tell them apart: run the command inside the project whose entry you mean.",
      "ambiguous",
    );
  }
  const pick = same[0] ?? (rows.length === 1 ? rows[0] : undefined);
  if (rows.length > 1 && !pick) {
    const n = count("count(*)");
    throw new CofferError(
      `ambiguous: ${n} entries match "${idOrPrefix}"; give more characters`,
      1,
      `${rows.map((r) => `${r.id}  ${r.title}`).join("\n  ")}${n > rows.length ? `\n  … and ${n - rows.length} more` : ""}`,
      "ambiguous",
    );
  }
  if (pick) {
    const hit = located(pick.scope, entryPath(pick.scope, pick.id));
    // The file is shown as it is; the index catches up with it (a changed file read again, a gone one dropped).
    if (pick.rowid !== undefined) withHealing(store, () => verifyShown(store, [pick.rowid]));
    if (hit) return hit;
  }
  for (const scope of [...scopesOnDisk(), ...(store.team ? [store.team.key] : [])].filter(inScope)) {
    for (const candidate of [raw, id]) {
      const file = entryPath(scope, candidate);
      // lstat, not exists: a link is found (and named as broken), never followed.
      if (pathExists(file)) {
        const hit = located(scope, file);
        if (hit) return hit;
      }
    }
  }
  if (broken) {
    if (opts.allowBroken) return broken;
    throw new CofferError(
      `entry ${broken.entry.id} is not readable: ${broken.file}: ${broken.broken}`,
      1,
      `Fix the file by hand, or remove it with \`coffer forget ${broken.entry.id}\`.`,
    );
  }
  return undefined;
}

export function requireEntry(store: Store, id: string, opts: FindOptions = {}): Located {
  const hit = findEntry(store, id, opts);
  if (!hit) {
    // Fewer than 4 characters never match (findEntry): say so rather than "no entry".
    const short = /^[0-9A-Za-z]{1,3}$/.test(id.trim());
    throw notFoundError(
      short ? `no entry with id "${id}": give at least 4 characters of an id` : `no entry with id "${id}"`,
      "List ids with `coffer list` or search with `coffer recall`.",
    );
  }
  return hit;
}

/**
 * Regular entry files Coffer cannot read as entries (bad frontmatter, NUL bytes, over 1 MiB): the
 * files on disk the index does not hold, each with what is wrong (`coffer doctor` lists them,
 * `doctor --fix` and `forget` move them to the trash). Links and FIFOs are doctor's other list.
 */
export function unreadableEntries(store: Store): Located[] {
  const out: Located[] = [];
  for (const scope of scopesOnDisk()) {
    let names: string[];
    try {
      names = readdirSync(entriesDir(scope)).filter((n) => n.endsWith(".md") && !n.startsWith("."));
    } catch {
      continue;
    }
    const indexed = new Set(
      withHealing(
        store,
        () => dbOf(store).query("SELECT id FROM entries WHERE scope = ?").all(scope) as { id: string }[],
      ).map((r) => r.id),
    );
    for (const name of names) {
      const id = name.slice(0, -3);
      if (indexed.has(id) || !FILE_ID.test(id)) continue;
      try {
        if (!lstatSync(join(entriesDir(scope), name)).isFile()) continue;
      } catch {
        continue;
      }
      const hit = findEntry(store, id, { scopes: [scope], allowBroken: true });
      if (hit?.broken) out.push(hit);
    }
  }
  return out;
}

/** Forget an entry: soft, it waits in the trash for 30 days (`coffer restore`). */
export function forget(
  store: Store,
  id: string,
  actor: string,
  opts: FindOptions = {},
): { id: string; status: "deleted"; scope: Located["scopeName"]; trashed: boolean } {
  // A file that is not a valid entry can be forgotten too (it is named, never parsed).
  const hit = requireEntry(store, id, { allowBroken: true, ...opts });
  const { kept } = moveToTrash(store, hit, actor);
  unmarkResolvedConflict(store, hit);
  return { id: hit.entry.id, status: "deleted", scope: hit.scopeName, trashed: kept };
}

/**
 * A sync-conflict copy was forgotten: when it was the kept entry's last copy, the conflict is
 * resolved and the kept entry loses its mark (the tag; its `updated` stays: not an edit). Every
 * path that forgets an entry calls it after the move to the trash.
 */
export function unmarkResolvedConflict(store: Store, forgotten: Located): void {
  const e = forgotten.entry;
  if (forgotten.broken || e.status !== "superseded" || !e.superseded_by || !e.tags.includes(SYNC_CONFLICT_TAG)) return;
  if (syncConflicts(store, { scope: forgotten.scope, kept: e.superseded_by }).length) return;
  const keptHit = findEntry(store, e.superseded_by, { scopes: [forgotten.scope] });
  if (!keptHit || keptHit.broken || keptHit.entry.id !== e.superseded_by) return;
  if (!keptHit.entry.tags.includes(SYNC_CONFLICT_TAG)) return;
  const entry = { ...keptHit.entry, tags: keptHit.entry.tags.filter((t) => t !== SYNC_CONFLICT_TAG) };
  withHealing(store, () =>
    dbOf(store)
      .transaction(() => writeEntryFile(store, keptHit.scope, entry))
      .immediate(),
  );
}

/** Replace an entry's whole file content (after `coffer edit`), validated and re-indexed. */
export function replaceEntryText(store: Store, hit: Located, text: string, actor: string): Entry {
  const parsed = parseEntry(text, hit.entry.id);
  parsed.id = hit.entry.id;
  // an edit is a write like any other: its secrets become [redacted], in every field it has
  Object.assign(parsed, scrubFields(parsed, false, ENTRY_CONTROL).fields);
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
    markSeenAtWrite(store, hit.scope, entry.id);
    audit({ event: "entry_updated", id: entry.id, scope: hit.scopeName, actor, source: "cli" });
  }
  return entry;
}

/** The weak anchors the checkout lists as the entry is written count as seen (stale.ts); never fails the write. */
function markSeenAtWrite(store: Store, scope: ScopeKey, id: string): void {
  try {
    withHealing(store, () => seenAtWrite(store, scope, id));
  } catch {}
}

export type ListOptions = {
  scope?: string;
  kind?: string;
  limit?: number;
  offset?: number;
  /** Include superseded entries (left out by default). */
  all?: boolean;
};

/**
 * Entries of `scopes` (current ones only unless `all`): the triggers' per-scope counts, less the few
 * superseded or broken rows (a step along the (scope, status) index), instead of counting 100,000
 * index entries.
 */
function currentCount(db: Database, scopes: ScopeKey[], all: boolean): number {
  const marks = scopes.map(() => "?").join(",");
  const kept = db
    .query(`SELECT coalesce(sum(n), 0) AS n FROM scope_counts WHERE scope IN (${marks})`)
    .get(...scopes) as {
    n: number;
  };
  if (all) return kept.n;
  const other = db
    .query(`SELECT count(*) AS n FROM entries WHERE scope IN (${marks}) AND status > ''`)
    .get(...scopes) as {
    n: number;
  };
  return kept.n - other.n;
}

export function listEntries(
  store: Store,
  opts: ListOptions = {},
): { total: number; entries: (Entry & { scope: ScopeName })[] } {
  if (opts.kind && !(KINDS as readonly string[]).includes(opts.kind))
    throw new CofferError(`unknown kind "${opts.kind}" (allowed: ${KINDS.join(", ")})`);
  const one = scopeKey(store, opts.scope, "both");
  const scopes = one ? [one] : activeScopes(store);
  const where = `scope IN (${scopes.map(() => "?").join(",")})${opts.kind ? " AND kind = ?" : ""}${opts.all ? "" : " AND status = ''"}`;
  const params: (string | number)[] = [...scopes, ...(opts.kind ? [opts.kind] : [])];
  const limit = opts.limit ?? 50;
  const offset = opts.offset ?? 0;
  return withHealing(store, () => {
    const db = dbOf(store);
    // Each row shown is checked against its file first (never older than its file).
    const { value, stale } = checkedAgainstFiles(
      store,
      () => {
        const total = opts.kind
          ? (db.query(`SELECT count(*) AS n FROM entries WHERE ${where}`).get(...params) as { n: number }).n
          : currentCount(db, scopes, Boolean(opts.all));
        // Newest first, one scope at a time along the (scope, status, updated, id) index, merged here:
        // no sort of the whole store, and bodies are read only for the page shown.
        const one = `${opts.kind ? " AND kind = ?" : ""}${opts.all ? "" : " AND status = ''"}`;
        const keys = scopes
          .flatMap(
            (s) =>
              db
                .query(
                  `SELECT rowid, updated, id FROM entries WHERE scope = ?${one} ORDER BY updated DESC, id DESC LIMIT ?`,
                )
                .all(s, ...(opts.kind ? [opts.kind] : []), offset + limit) as {
                rowid: number;
                updated: string;
                id: string;
              }[],
          )
          .sort((a, b) => (a.updated === b.updated ? (a.id < b.id ? 1 : -1) : a.updated < b.updated ? 1 : -1))
          .slice(offset, offset + limit);
        const byRowid = new Map(
          (
            db
              .query("SELECT e.* FROM json_each(?) AS j CROSS JOIN entries AS e ON e.rowid = j.value")
              .all(JSON.stringify(keys.map((k) => k.rowid))) as (Row & { rowid: number })[]
          ).map((r) => [r.rowid, r]),
        );
        return { total, rows: keys.flatMap((k) => byRowid.get(k.rowid) ?? []) };
      },
      (v) => v.rows.map((r) => r.rowid),
    );
    return {
      total: value.total,
      entries: value.rows
        .filter((r) => !stale.has(r.rowid))
        .map((r) => ({ ...rowToEntry(r), scope: scopeName(store, r.scope) })),
    };
  });
}
