/**
 * What a person browsing the whole store needs (the web UI): entries of any scope filtered and
 * paged on the server, every scope with its activity, handoffs per branch, the hook delivery
 * records, and bulk moves/retags. The SQL lives here, next to the rest of the store's.
 */
import { lstatSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { CofferError } from "../lib/errors";
import { lineMatcher } from "../lib/grep";
import { paths } from "../lib/paths";
import { pathExists } from "../lib/small-file";
import { isoNow } from "../lib/time";
import { audit } from "../scrub/write";
import { dbOf } from "./db";
import type { DeliveryWhy } from "./delivery/sessions";
import { findEntry, remember, requireEntry, type rowToEntry, writeEntryFile } from "./entries";
import type { Entry } from "./entry";
import { notInIndex } from "./git-files";
import { deleteEntryRow, entryPath, readMemoryFile, scopeDir, scopesOnDisk, touchScanDir } from "./indexer";
import { GLOBAL, isTeamKey, knownTeams, resolveProject, type ScopeKey, TEAM_FOLDER, teamWorktree } from "./scope";
import { checkedAgainstFiles, projectMeta, refresh, type Store, withHealing } from "./store";

type Row = Parameters<typeof rowToEntry>[0];

export type BrowseFilter = {
  scopes: ScopeKey[];
  q?: string;
  mode?: "keyword" | "grep";
  kind?: string;
  tag?: string;
  source?: string;
  /** `user`, `agent` (any agent) or an exact actor such as `agent:claude`. */
  actor?: string;
  /** Inclusive dates (YYYY-MM-DD) on `updated`. */
  since?: string;
  until?: string;
  /** Include superseded entries (left out by default, like `coffer list` without --all). */
  superseded?: boolean;
  limit: number;
  offset: number;
};

export type BrowseRow = {
  id: string;
  scope: ScopeKey;
  kind: string;
  title: string;
  tags: string[];
  actor: string;
  source: string;
  created: string;
  updated: string;
  chars: number;
  snippet: string;
  /** grep mode: the matching lines (at most 3), numbered from 1. */
  lines?: { line: number; text: string }[];
  /** Set for an entry a newer one replaced (never routed or injected). */
  status?: "superseded";
  superseded_by?: string | null;
};

/** A row of the index as the web UI lists it. */
export function toBrowseRow(r: Row): BrowseRow {
  const body = r.body;
  return {
    id: r.id,
    scope: r.scope,
    kind: r.kind,
    title: r.title,
    tags: JSON.parse(r.tags),
    actor: r.actor,
    source: r.source,
    created: r.created,
    updated: r.updated,
    chars: body.length,
    snippet: body.length > 240 ? `${body.slice(0, 240)}…` : body,
    ...(r.status === "superseded" ? { status: "superseded" as const, superseded_by: r.superseded_by ?? null } : {}),
  };
}

/** The filters as a condition on `entries e` (recall's ranking reads it through the store's `rowidsWhere`). */
export function browseWhere(f: BrowseFilter): { sql: string; params: (string | number)[] } {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  if (!f.superseded) parts.push("e.status = ''");
  if (f.kind) {
    parts.push("e.kind = ?");
    params.push(f.kind);
  }
  if (f.tag) {
    parts.push("EXISTS (SELECT 1 FROM json_each(e.tags) WHERE value = ?)");
    params.push(f.tag);
  }
  if (f.source) {
    parts.push("e.source = ?");
    params.push(f.source);
  }
  if (f.actor) {
    if (f.actor === "agent") parts.push("e.actor LIKE 'agent:%'");
    else {
      parts.push("e.actor = ?");
      params.push(f.actor);
    }
  }
  if (f.since) {
    parts.push("substr(e.updated, 1, 10) >= ?");
    params.push(f.since);
  }
  if (f.until) {
    parts.push("substr(e.updated, 1, 10) <= ?");
    params.push(f.until);
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(""), params };
}

type PageRow = Row & { rowid: number; lines?: { line: number; text: string }[] };

/** One page of the newest entries of the given scopes: one indexed (scope, updated) walk per scope, merged here. */
function newestPage(store: Store, f: BrowseFilter, filters: ReturnType<typeof browseWhere>) {
  let total = 0;
  const merged: PageRow[] = [];
  const count = dbOf(store).query(`SELECT count(*) AS n FROM entries e WHERE e.scope = ?${filters.sql}`);
  const page = dbOf(store).query(
    `SELECT e.* FROM entries e WHERE e.scope = ?${filters.sql} ORDER BY e.updated DESC, e.id DESC LIMIT ?`,
  );
  for (const scope of f.scopes) {
    total += (count.get(scope, ...filters.params) as { n: number }).n;
    merged.push(...(page.all(scope, ...filters.params, f.offset + f.limit) as PageRow[]));
  }
  merged.sort((a, b) => (a.updated === b.updated ? (a.id < b.id ? 1 : -1) : a.updated < b.updated ? 1 : -1));
  return { total, rows: merged.slice(f.offset, f.offset + f.limit) };
}

/** One page of entries with a line matching `q` (grep mode), newest first, with up to 3 lines each. */
function grepPage(store: Store, f: BrowseFilter, q: string, inScopes: string, filters: ReturnType<typeof browseWhere>) {
  const test = lineMatcher(q);
  const matched: PageRow[] = [];
  // A plain ASCII needle lets SQLite skip bodies without it (LIKE folds ASCII case, like the line test).
  const literal = !/^\/.+\/[a-z]*$/s.test(q) && /^[\x20-\x7e]+$/.test(q);
  const pre = literal ? " AND e.body LIKE ? ESCAPE '\\'" : "";
  const like = literal ? [`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`] : [];
  const it = dbOf(store)
    .query(`SELECT e.* FROM entries e WHERE ${inScopes}${filters.sql}${pre} ORDER BY e.updated DESC, e.id DESC`)
    .iterate(...f.scopes, ...filters.params, ...like) as Iterable<PageRow>;
  for (const r of it) {
    const lines: { line: number; text: string }[] = [];
    let n = 0;
    for (const [i, line] of r.body.split("\n").entries()) {
      if (!test(line)) continue;
      n++;
      if (lines.length < 3) lines.push({ line: i + 1, text: line.length > 300 ? `${line.slice(0, 300)}…` : line });
    }
    if (n) matched.push({ ...r, lines });
  }
  return { total: matched.length, rows: matched.slice(f.offset, f.offset + f.limit) };
}

/**
 * Entries of the given scopes, filtered, newest first (or those holding a line, in grep mode, or an
 * id typed whole or in part), one page; undefined for a keyword query, which recall's ranking
 * answers (src/retrieval/search.ts `browseEntries`).
 */
export function browsePage(store: Store, f: BrowseFilter): { total: number; entries: BrowseRow[] } | undefined {
  if (!f.scopes.length) return { total: 0, entries: [] };
  const filters = browseWhere(f);
  const inScopes = `e.scope IN (${f.scopes.map(() => "?").join(",")})`;
  const q = f.q?.trim();
  if (q && q.length > 2000) throw new CofferError(`query is ${q.length} characters; the limit is 2000`);
  return withHealing(store, () => {
    if (!q || f.mode === "grep") {
      // Each row shown is checked against its file first (never older than its file).
      const { value, stale } = checkedAgainstFiles(
        store,
        () => (q ? grepPage(store, f, q, inScopes, filters) : newestPage(store, f, filters)),
        (v) => v.rows.map((r) => r.rowid),
      );
      return {
        total: value.total,
        entries: value.rows
          .filter((r) => !stale.has(r.rowid))
          .map((r) => ({ ...toBrowseRow(r), ...(r.lines ? { lines: r.lines } : {}) })),
      };
    }
    // A handle or id typed into the search box (`4G3VPN2X`, as lists show it) finds that entry.
    if (/^[0-9A-HJKMNP-TV-Z]{6,26}$/i.test(q)) {
      const part = q.toUpperCase();
      const { value, stale } = checkedAgainstFiles(
        store,
        () =>
          dbOf(store)
            .query(
              `SELECT e.* FROM entries e WHERE ${inScopes}${filters.sql} AND (e.id = ? OR e.id LIKE ? OR e.id LIKE ?) ORDER BY e.updated DESC LIMIT ?`,
            )
            .all(...f.scopes, ...filters.params, part, `${part}%`, `%${part}`, f.limit) as PageRow[],
        (rows) => rows.map((r) => r.rowid),
      );
      const rows = value.filter((r) => !stale.has(r.rowid));
      if (rows.length) return { total: rows.length, entries: rows.map(toBrowseRow) };
    }
    return undefined;
  });
}

/** Distinct tags, actors and sources in use in the given scopes (for the filter pickers). */
export function facets(store: Store, scopes: ScopeKey[]): { tags: string[]; actors: string[]; sources: string[] } {
  if (!scopes.length) return { tags: [], actors: [], sources: [] };
  const inScopes = `scope IN (${scopes.map(() => "?").join(",")})`;
  return withHealing(store, () => {
    const col = (sql: string) =>
      (
        dbOf(store)
          .query(sql)
          .all(...scopes) as { v: string }[]
      ).map((r) => r.v);
    return {
      tags: col(
        `SELECT DISTINCT j.value AS v FROM entries, json_each(entries.tags) j WHERE ${inScopes} ORDER BY v LIMIT 500`,
      ),
      actors: col(`SELECT DISTINCT actor AS v FROM entries WHERE ${inScopes} ORDER BY v LIMIT 100`),
      sources: col(`SELECT DISTINCT source AS v FROM entries WHERE ${inScopes} ORDER BY v`),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Scopes

export type ScopeInfo = {
  scope: ScopeKey;
  label: string;
  origin: string | null;
  entries: number;
  last_activity: string | null;
  rules_chars: number;
  handoffs: number;
};

function mtimeIso(file: string): string | null {
  try {
    return new Date(statSync(file).mtimeMs).toISOString().replace(/\.\d{3}Z$/, "Z");
  } catch {
    return null;
  }
}

function handoffFiles(scope: ScopeKey): string[] {
  if (scope === GLOBAL) return [];
  try {
    return readdirSync(join(paths.projectScope(scope), "handoff"))
      .filter((n) => n.endsWith(".md") && !n.startsWith("."))
      .map((n) => join(paths.projectScope(scope), "handoff", n));
  } catch {
    return [];
  }
}

/** Every scope on disk (global first, then projects by last activity) with counts and activity. */
/**
 * Every scope a person can browse: global, each project under memory/, and each team lane this
 * machine has read whose checkout still holds a real `.coffer/` folder.
 */
export function browsableScopes(): ScopeKey[] {
  const lanes = knownTeams().filter(([, worktree]) => {
    try {
      return lstatSync(join(worktree, TEAM_FOLDER)).isDirectory();
    } catch {
      return false;
    }
  });
  return [...scopesOnDisk(), ...lanes.map(([key]) => key)];
}

/**
 * The ids among `ids` of a team lane whose files git would call untracked or modified (not
 * committed yet): read from the checkout's `.git/index`, never by spawning git.
 */
export function uncommittedInTeam(key: ScopeKey, ids: string[]): Set<string> {
  const worktree = teamWorktree(key);
  const project = worktree ? resolveProject(worktree) : undefined;
  if (!worktree || !project || !ids.length) return new Set();
  const rel = (id: string) => `${TEAM_FOLDER}/entries/${id}.md`;
  const out = notInIndex(project.gitDir, worktree, ids.map(rel));
  return new Set(out ? ids.filter((id) => out.has(rel(id))) : []);
}

export function scopeOverview(store: Store): ScopeInfo[] {
  const scopes = browsableScopes();
  if (!scopes.includes(GLOBAL)) scopes.unshift(GLOBAL);
  refresh(store, "shallow", scopes);
  const counts = new Map<string, { n: number; last: string | null }>();
  withHealing(store, () => {
    for (const r of dbOf(store)
      .query("SELECT scope, count(*) AS n, max(updated) AS last FROM entries GROUP BY scope")
      .all() as {
      scope: string;
      n: number;
      last: string | null;
    }[])
      counts.set(r.scope, { n: r.n, last: r.last });
  });
  const out = scopes.map((scope) => {
    const c = counts.get(scope);
    const rules = join(scopeDir(scope), "rules.md");
    const handoffs = handoffFiles(scope);
    const times = [c?.last ?? null, mtimeIso(rules), ...handoffs.map(mtimeIso)].filter((t): t is string => !!t);
    let rulesChars = 0;
    try {
      rulesChars = readMemoryFile(rules).text.length;
    } catch {}
    return {
      scope,
      ...projectMeta(scope),
      entries: c?.n ?? 0,
      last_activity: times.sort().pop() ?? null,
      rules_chars: rulesChars,
      handoffs: handoffs.length,
    };
  });
  return out.sort((a, b) =>
    a.scope === GLOBAL ? -1 : b.scope === GLOBAL ? 1 : (b.last_activity ?? "").localeCompare(a.last_activity ?? ""),
  );
}

export type HandoffInfo = { branch: string | null; file: string; body: string; updated: string | null };

/** Every saved handoff of a project scope (one per branch), newest first. */
export function listHandoffs(scope: ScopeKey): HandoffInfo[] {
  const out: HandoffInfo[] = [];
  for (const file of handoffFiles(scope)) {
    let text: string;
    try {
      text = readMemoryFile(file).text;
    } catch {
      continue;
    }
    const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
    let meta: { branch?: unknown; updated?: unknown } = {};
    try {
      if (m) meta = (Bun.YAML.parse(m[1]!) as typeof meta) ?? {};
    } catch {}
    out.push({
      branch: typeof meta.branch === "string" ? meta.branch : null,
      file: file.slice(paths.memory().length + 1),
      body: (m ? text.slice(m[0].length) : text).trim(),
      updated: meta.updated ? String(meta.updated) : mtimeIso(file),
    });
  }
  return out.sort((a, b) => (b.updated ?? "").localeCompare(a.updated ?? ""));
}

// ---------------------------------------------------------------------------------------------
// Hook delivery records

export type DeliveredEntry = { id: string; at: string; title: string | null; scope: string | null; chars: number };
export type EventEntry = { id: string; title: string | null; scope: string | null; why?: DeliveryWhy };
export type HookEventRecord = {
  event: string;
  at: string;
  entries: number;
  chars: number;
  /** The entry bodies it delivered, each with why (absent for a record older than the reasons). */
  delivered: EventEntry[];
  /** A session start's memory cards (titles the agent may read through MCP). */
  cards: EventEntry[];
};
export type SessionRecord = {
  host: string;
  session: string;
  cwd: string;
  subagent: boolean;
  updated: string;
  bundle_sig: string | null;
  /** The session's delivered set now (a compact or /clear empties it; the events keep what was sent). */
  delivered: DeliveredEntry[];
  /** Characters of the delivered bodies, as they are now. */
  chars: number;
  /** Every entry body an event of this session delivered, first delivery first, once each. */
  sent: (EventEntry & { at: string })[];
  /** The delivery log, newest first (absent before the hooks kept one). */
  events: HookEventRecord[];
};

/** The hooks create the delivered-set tables on first use; before that there is nothing to show. */
function hasCache(store: Store): boolean {
  return !!dbOf(store).query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_delivered'").get();
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * What the hooks delivered, per (host, cwd, session): the delivered-set cache (ids and times,
 * never prompt text), with each entry's current title and body size. Newest first.
 */
export function deliveryRecords(store: Store, limit = 100): SessionRecord[] {
  return withHealing(store, () => {
    if (!hasCache(store)) return [];
    const sessions = dbOf(store)
      .query(
        "SELECT skey, host, cwd, session, subagent, bundle_sig, updated_ms FROM hook_sessions ORDER BY updated_ms DESC LIMIT ?",
      )
      .all(limit) as {
      skey: string;
      host: string;
      cwd: string;
      session: string;
      subagent: number;
      bundle_sig: string | null;
      updated_ms: number;
    }[];
    const delivered = dbOf(store).query(
      `SELECT d.entry_id AS id, d.at_ms, e.title, e.scope, length(e.body) AS chars
       FROM hook_delivered d LEFT JOIN entries e ON e.id = d.entry_id
       WHERE d.skey = ? GROUP BY d.entry_id ORDER BY d.at_ms, d.entry_id`,
    );
    const logged = !!dbOf(store)
      .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_events'")
      .get();
    const events = logged
      ? dbOf(store).query(
          "SELECT event, at_ms, entries, chars FROM hook_events WHERE skey = ? ORDER BY at_ms DESC, rowid DESC LIMIT 100",
        )
      : undefined;
    const perEvent = dbOf(store)
      .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_event_entries'")
      .get()
      ? dbOf(store).query(
          `SELECT x.at_ms, x.entry_id AS id, x.why, e.title, e.scope FROM hook_event_entries x
           LEFT JOIN entries e ON e.id = x.entry_id WHERE x.skey = ? GROUP BY x.rowid ORDER BY x.at_ms, x.rowid`,
        )
      : undefined;
    return sessions.map((s) => {
      const items = (
        delivered.all(s.skey) as {
          id: string;
          at_ms: number;
          title: string | null;
          scope: string | null;
          chars: number | null;
        }[]
      ).map((d) => ({ id: d.id, at: iso(d.at_ms), title: d.title, scope: d.scope, chars: d.chars ?? 0 }));
      const byTime = new Map<number, EventEntry[]>();
      const cardsAt = new Map<number, EventEntry[]>();
      const sent = new Map<string, EventEntry & { at: string }>();
      for (const x of (perEvent?.all(s.skey) ?? []) as {
        at_ms: number;
        id: string;
        why: string;
        title: string | null;
        scope: string | null;
      }[]) {
        let why: DeliveryWhy | undefined;
        try {
          why = x.why ? (JSON.parse(x.why) as DeliveryWhy) : undefined;
        } catch {}
        const e = { id: x.id, title: x.title, scope: x.scope, ...(why ? { why } : {}) };
        const into = why?.card ? cardsAt : byTime;
        into.set(x.at_ms, [...(into.get(x.at_ms) ?? []), e]);
        if (!why?.card && !sent.has(x.id)) sent.set(x.id, { ...e, at: iso(x.at_ms) });
      }
      return {
        host: s.host,
        session: s.session,
        cwd: s.cwd,
        subagent: !!s.subagent,
        updated: iso(s.updated_ms),
        bundle_sig: s.bundle_sig,
        delivered: items,
        chars: items.reduce((n, d) => n + d.chars, 0),
        sent: [...sent.values()],
        events: ((events?.all(s.skey) ?? []) as { event: string; at_ms: number; entries: number; chars: number }[]).map(
          (e) => ({
            event: e.event,
            at: iso(e.at_ms),
            entries: e.entries,
            chars: e.chars,
            delivered: byTime.get(e.at_ms) ?? [],
            cards: cardsAt.get(e.at_ms) ?? [],
          }),
        ),
      };
    });
  });
}

/** The sessions an entry's body was delivered to (newest first): host, session id, when. */
export function deliveriesOf(store: Store, id: string, limit = 20): { host: string; session: string; at: string }[] {
  return withHealing(store, () => {
    if (!hasCache(store)) return [];
    return (
      dbOf(store)
        .query(
          `SELECT s.host AS host, s.session AS session, d.at_ms AS at_ms FROM hook_delivered d
           JOIN hook_sessions s ON s.skey = d.skey WHERE d.entry_id = ? ORDER BY d.at_ms DESC LIMIT ?`,
        )
        .all(id, limit) as { host: string; session: string; at_ms: number }[]
    ).map((r) => ({ host: r.host, session: r.session, at: iso(r.at_ms) }));
  });
}

/** Working directories the hooks have seen (candidates for rendering a project's session-start bundle). */
export function knownCwds(store: Store): string[] {
  return withHealing(store, () =>
    !hasCache(store)
      ? []
      : (
          dbOf(store).query("SELECT DISTINCT cwd FROM hook_sessions ORDER BY updated_ms DESC LIMIT 200").all() as {
            cwd: string;
          }[]
        ).map((r) => r.cwd),
  );
}

// ---------------------------------------------------------------------------------------------
// Bulk changes

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
