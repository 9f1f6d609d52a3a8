/**
 * The routes behind the web UI: `/api/v1/projects` and `/api/v1/ui/...`. They sit behind the
 * same guard as the rest of `/api` (bearer token, or the UI's session cookie + CSRF header), and
 * work on any scope by its key (`global` or a project id), since a person browses every project,
 * not only the one `coffer serve` was started in.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import * as v from "valibot";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { HOSTS, type Host, isHost } from "../lib/hosts";
import { paths } from "../lib/paths";
import { browseEntries } from "../retrieval/search";
import { relatedTo } from "../retrieval/similarity";
import { describeFound, type Found, scrub } from "../scrub/index";
import { readJsonBody } from "../serve/body";
import { badRequest, HttpError, json, notFound } from "../serve/errors";
import { intString, type Params, router } from "../serve/router";
import { reasonText, type StaleReason } from "../store/anchors";
import {
  type BrowseFilter,
  browsableScopes,
  deliveriesOf,
  deliveryRecords,
  entryTitles,
  facets,
  knownCwds,
  listHandoffs,
  moveEntry,
  projectMeta,
  retagEntry,
  type SessionRecord,
  scopeOverview,
  uncommittedInTeam,
} from "../store/browse";
import { loadConfig, loadConfigOrDefaults } from "../store/config";
import { findEntry, remember, unmarkResolvedConflict } from "../store/entries";
import { type Entry, KINDS, SOURCES } from "../store/entry";
import { sessionKey } from "../store/hooks";
import { promote } from "../store/promote";
import { shownRules, writeRules } from "../store/rules";
import { GLOBAL, isAbsoluteDir, isTeamKey, resolveProject, type ScopeKey, teamWorktree } from "../store/scope";
import { checkedRoots, checkKnownProjects, keepStale, listStale } from "../store/stale";
import { activeScopes, refresh, type Store, scopeName, withOpenStore } from "../store/store";
import { syncConflicts } from "../store/sync-conflicts";
import { listTrash, moveToTrash, restoreEntry } from "../store/trash";
import { describeUse, entryUses, keepUnused, sessionVerdicts, unusedOffers } from "../store/usage";
import type { WebAuth } from "./auth";

export type UiContext = { cwd: string; auth: WebAuth; bearer: boolean; version: string };

const { route, match } = router<UiContext>();

/** True for the paths this module answers. */
export function isUiApiPath(pathname: string): boolean {
  return pathname === "/api/v1/projects" || pathname.startsWith("/api/v1/ui/");
}

export async function handleUiApi(req: Request, url: URL, ctx: UiContext): Promise<Response> {
  const hit = match(req.method, url.pathname);
  if ("handler" in hit) {
    try {
      return await hit.handler(req, url, hit.params, ctx);
    } catch (err) {
      if (err instanceof CofferError) {
        const nf = /^no entry with id/.test(err.message);
        throw new HttpError(
          nf ? 404 : 400,
          nf ? "not_found" : "bad_request",
          err.message,
          err.hint ? { hint: err.hint } : null,
        );
      }
      throw err;
    }
  }
  const { allowed } = hit;
  if (allowed.length)
    throw new HttpError(
      405,
      "method_not_allowed",
      `${req.method} is not allowed on ${url.pathname}`,
      { allowed },
      {
        allow: allowed.join(", "),
      },
    );
  throw notFound(`no route ${req.method} ${url.pathname}`);
}

// ---------------------------------------------------------------------------------------------
// Helpers

function parse<S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  const res = v.safeParse(schema, input);
  if (!res.success)
    throw badRequest(
      `invalid ${what}: ${res.issues
        .map((i) => {
          const path = i.path?.map((p) => String(p.key)).join(".");
          return path && !i.message.startsWith(path) ? `${path}: ${i.message}` : i.message;
        })
        .join("; ")}`,
    );
  return res.output;
}

const SCOPE_RE = /^(global|[0-9A-Z]{26}|team[0-9A-Z]{26})$/;

function scopeParam(raw: unknown): ScopeKey {
  const s = String(raw ?? "");
  if (!SCOPE_RE.test(s))
    throw badRequest(`scope must be "global", a project id or a team lane's key (got ${JSON.stringify(s)})`);
  if (s !== GLOBAL && !browsableScopes().includes(s))
    throw notFound(isTeamKey(s) ? `no team lane "${s}" on this machine` : `no project scope "${s}" in memory/`);
  return s;
}

/**
 * Run `fn` in a store opened in a team lane's checkout (its project and lane are the store's):
 * writes into a repository's `.coffer/` go through the same path as `coffer remember --scope team`.
 */
function withTeamStore<T>(key: ScopeKey, fn: (store: Store) => T): Promise<T> {
  const worktree = teamWorktree(key);
  if (!worktree) throw notFound(`no team lane "${key}" on this machine`);
  return withOpenStore({ cwd: worktree, freshness: "none", notice: (m) => process.stderr.write(`coffer: ${m}\n`) }, fn);
}

/** The checkout a project's entry is promoted from: the server's own, else one whose team lane this machine read. */
function checkoutOf(ctx: UiContext, project: ScopeKey): string | undefined {
  if (resolveProject(ctx.cwd)?.id === project) return ctx.cwd;
  for (const key of browsableScopes().filter(isTeamKey)) {
    const worktree = teamWorktree(key);
    if (worktree && resolveProject(worktree)?.id === project) return worktree;
  }
  return undefined;
}

/**
 * Open the store in the server's cwd for one call (busy retries awaited, never blocking the
 * event loop); `scope` (a project id) becomes the store's project scope.
 */
function withUiStore<T>(ctx: UiContext, scope: ScopeKey | undefined, fn: (store: Store) => T): Promise<T> {
  return withOpenStore(
    { cwd: ctx.cwd, freshness: "none", notice: (m) => process.stderr.write(`coffer: ${m}\n`) },
    (store) => {
      if (scope && scope !== GLOBAL && store.project?.id !== scope) {
        const meta = projectMeta(scope);
        store.project = {
          id: scope,
          root: "",
          worktree: "",
          gitDir: "",
          label: meta.label,
          ...(meta.origin ? { origin: meta.origin } : {}),
        };
        store.team = undefined; // the server's worktree lane is not that project's
      }
      return fn(store);
    },
  );
}

const scopeNameFor = (scope: ScopeKey) => (scope === GLOBAL ? "global" : isTeamKey(scope) ? "team" : "project");

function entryJson(e: Entry, scope: ScopeKey) {
  const { body, ...rest } = e;
  return {
    ...rest,
    scope,
    scope_label: projectMeta(scope).label,
    text: body,
    file: `${scopeFile(scope)}/${e.id}.md`,
    // a team entry git would call untracked or modified: not shared until it is committed
    ...(isTeamKey(scope) ? { uncommitted: uncommittedInTeam(scope, [e.id]).has(e.id) } : {}),
  };
}

const scopeFile = (scope: ScopeKey) =>
  scope === GLOBAL
    ? "memory/global/entries"
    : isTeamKey(scope)
      ? `${teamWorktree(scope) ?? "(checkout)"}/.coffer/entries`
      : `memory/projects/${scope}/entries`;

const tagList = v.pipe(
  v.array(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64)), "tags must be a list of strings"),
  v.maxLength(32, "at most 32 tags"),
);
const keywordList = v.array(v.string("keywords must be a list of strings"), "keywords must be a list of strings");
const globList = v.pipe(
  v.array(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)), "applies_to must be a list of globs"),
  v.maxLength(32, "at most 32 globs"),
);

/** Secrets never land in memory: every text a person saves is scrubbed first, and told so. */
function scrubbed<T extends Record<string, unknown>>(fields: T): { fields: T; note: string | null } {
  const found: Found[] = [];
  const out: Record<string, unknown> = { ...fields };
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v !== "string") continue;
    const r = scrub(v);
    out[k] = r.text;
    found.push(...r.found);
  }
  return { fields: out as T, note: found.length ? `scrubbed ${describeFound(found)}` : null };
}

// ---------------------------------------------------------------------------------------------
// Session and scopes

route("GET", "/api/v1/ui/session", (_req, _url, _p, ctx) => {
  const config = loadConfigOrDefaults();
  return json({
    version: ctx.version,
    hosts: HOSTS,
    kinds: KINDS,
    sources: SOURCES,
    body_max: Number(config["limits.body_max"] ?? 8192),
  });
});

route("GET", "/api/v1/ui/login-link", (req, _url, _p, ctx) => {
  if (!ctx.bearer) throw new HttpError(403, "forbidden", "a new login link needs the bearer token");
  const own = `http://${req.headers.get("host")}`;
  return json({ url: `${own}/login?code=${ctx.auth.newLoginCode()}` });
});

route("GET", "/api/v1/projects", (_req, _url, _p, ctx) =>
  withUiStore(ctx, undefined, (store) => {
    const here = store.project?.id ?? null;
    return json({ current: here, projects: scopeOverview(store) });
  }),
);

// ---------------------------------------------------------------------------------------------
// Entries

const dateQ = (name: string) => v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, `${name} must be YYYY-MM-DD`));
const optionalEmpty = <S extends v.GenericSchema>(s: S) =>
  v.pipe(
    v.optional(v.string()),
    v.transform((x) => (x === "" ? undefined : x)),
    v.optional(s as unknown as v.GenericSchema<string, v.InferOutput<S>>),
  );

const browseQuery = v.object({
  scope: v.optional(v.string()),
  q: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  mode: optionalEmpty(v.picklist(["keyword", "grep"], 'mode must be "keyword" or "grep"')),
  kind: optionalEmpty(v.picklist(KINDS, `kind must be one of: ${KINDS.join(", ")}`)),
  tag: optionalEmpty(v.pipe(v.string(), v.maxLength(64))),
  source: optionalEmpty(v.picklist(SOURCES, `source must be one of: ${SOURCES.join(", ")}`)),
  actor: optionalEmpty(v.pipe(v.string(), v.maxLength(100))),
  since: optionalEmpty(dateQ("since")),
  until: optionalEmpty(dateQ("until")),
  superseded: optionalEmpty(v.picklist(["0", "1"], 'superseded must be "0" or "1"')),
  limit: v.optional(intString("limit", 1, 200)),
  offset: v.optional(intString("offset", 0, 1_000_000)),
});

route("GET", "/api/v1/ui/entries", (_req, url, _p, ctx) => {
  const q = parse(browseQuery, Object.fromEntries(url.searchParams), "query");
  const t0 = performance.now();
  return withUiStore(ctx, undefined, (store) => {
    const scopes = !q.scope || q.scope === "all" ? browsableScopes() : [scopeParam(q.scope)];
    if (!scopes.includes(GLOBAL) && (!q.scope || q.scope === "all")) scopes.unshift(GLOBAL);
    // Directory mtimes only: a page of a 10,000-entry scope stays fast; files edited in place
    // are caught by the next command or a reload with ?deep=1.
    refresh(store, url.searchParams.get("deep") === "1" ? "deep" : "shallow", scopes);
    const filter: BrowseFilter = {
      scopes,
      q: q.q,
      mode: q.mode,
      kind: q.kind,
      tag: q.tag,
      source: q.source,
      actor: q.actor,
      since: q.since,
      until: q.until,
      superseded: q.superseded === "1",
      limit: q.limit ?? 50,
      offset: q.offset ?? 0,
    };
    const res = browseEntries(store, filter);
    const labels = new Map<string, string>();
    const uncommitted = new Set<string>();
    for (const key of new Set(res.entries.map((e) => e.scope).filter(isTeamKey)))
      for (const id of uncommittedInTeam(
        key,
        res.entries.filter((e) => e.scope === key).map((e) => e.id),
      ))
        uncommitted.add(`${key}/${id}`);
    const entries = res.entries.map((e) => {
      if (!labels.has(e.scope)) labels.set(e.scope, projectMeta(e.scope).label);
      return {
        ...e,
        scope_label: labels.get(e.scope)!,
        ...(uncommitted.has(`${e.scope}/${e.id}`) ? { uncommitted: true } : {}),
      };
    });
    return json({ total: res.total, entries, took_ms: Math.round(performance.now() - t0) });
  });
});

route("GET", "/api/v1/ui/facets", (_req, url, _p, ctx) =>
  withUiStore(ctx, undefined, (store) => {
    const q = url.searchParams.get("scope") ?? "all";
    const scopes = q === "all" ? [GLOBAL, ...browsableScopes().filter((s) => s !== GLOBAL)] : [scopeParam(q)];
    return json(facets(store, scopes));
  }),
);

const ID_RE = /^[0-9A-Za-z]{6,64}$/;
function idParam(p: Params): string {
  const id = p.id ?? "";
  if (!ID_RE.test(id)) throw badRequest("an entry id is letters and digits (a ULID)");
  return id;
}

route("GET", "/api/v1/ui/entries/{id}", (_req, _url, p, ctx) =>
  withUiStore(ctx, undefined, (store) => {
    const hit = findEntry(store, idParam(p));
    if (!hit) throw notFound(`no entry with id "${p.id}"`);
    const related = relatedTo(store, hit.entry, [...new Set([hit.scope, ...activeScopes(store)])]).map((n) => ({
      id: n.id,
      title: n.title,
      scope: scopeName(store, n.scope),
      similarity: Number(n.sim.toFixed(3)),
    }));
    const use = entryUses(store, [hit.entry.id]).get(hit.entry.id)!;
    return json({
      ...entryJson(hit.entry, hit.scope),
      delivered_to: deliveriesOf(store, hit.entry.id),
      related,
      use: { ...use, text: describeUse(use) },
    });
  }),
);

const createBody = v.strictObject({
  scope: v.string(),
  text: v.pipe(v.string("text must be a string"), v.trim(), v.minLength(1, "text is empty")),
  title: v.optional(v.string()),
  kind: v.optional(v.picklist(KINDS, `kind must be one of: ${KINDS.join(", ")}`)),
  tags: v.optional(tagList),
  keywords: v.optional(keywordList),
  applies_to: v.optional(globList),
});

route("POST", "/api/v1/ui/entries", async (req, _url, _p, ctx) => {
  const parsed = parse(createBody, await readJsonBody(req), "entry");
  const scope = scopeParam(parsed.scope);
  const { fields: body, note } = scrubbed(parsed);
  const open = isTeamKey(scope)
    ? (fn: (store: Store) => Response) => withTeamStore(scope, fn)
    : (fn: (store: Store) => Response) => withUiStore(ctx, scope, fn);
  return open((store) => {
    const res = remember(store, {
      text: body.text,
      title: body.title?.trim() || undefined,
      kind: body.kind,
      tags: body.tags,
      keywords: body.keywords,
      applies_to: body.applies_to,
      scope: scopeNameFor(scope),
      actor: "user",
      source: "http",
    });
    return json(
      { status: res.status, scrubbed: note, entry: entryJson(res.entry, scope) },
      res.status === "created" ? 201 : 200,
    );
  });
});

const patchBody = v.strictObject({
  text: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "text is empty"))),
  title: v.optional(v.string()),
  kind: v.optional(v.picklist(KINDS, `kind must be one of: ${KINDS.join(", ")}`)),
  tags: v.optional(tagList),
  keywords: v.optional(keywordList),
  applies_to: v.optional(globList),
});

route("PATCH", "/api/v1/ui/entries/{id}", async (req, _url, p, ctx) => {
  const { fields: body, note } = scrubbed(parse(patchBody, await readJsonBody(req), "entry"));
  return withUiStore(ctx, undefined, (store) => {
    const hit = findEntry(store, idParam(p));
    if (!hit) throw notFound(`no entry with id "${p.id}"`);
    const e = hit.entry;
    const res = remember(store, {
      id: e.id,
      text: body.text ?? e.body,
      title: body.title?.trim() || (body.text !== undefined && body.title !== undefined ? undefined : e.title),
      kind: body.kind ?? e.kind,
      tags: body.tags ?? e.tags,
      keywords: body.keywords, // absent: the entry keeps its own
      applies_to: body.applies_to ?? e.applies_to,
      origin_session: e.origin_session,
      actor: "user",
      source: "http",
    });
    return json({ status: res.status, scrubbed: note, entry: entryJson(res.entry, hit.scope) });
  });
});

// Deletes are soft: the entry waits in the trash (state/trash/, 30 days) and comes back on restore.
function deleteOne(store: Store, id: string): { id: string; scope: ScopeKey; title: string } {
  const hit = findEntry(store, id);
  if (!hit) throw notFound(`no entry with id "${id}"`);
  const item = moveToTrash(store, hit, "user");
  unmarkResolvedConflict(store, hit); // a sync-conflict copy: the last one resolves the conflict
  return { id: item.id, scope: item.scope, title: item.title };
}

function restoreOne(store: Store, id: string): { id: string; scope: ScopeKey } {
  try {
    return restoreEntry(store, id, "user");
  } catch (err) {
    if (err instanceof CofferError && /not in the trash/.test(err.message)) throw notFound(err.message);
    throw err;
  }
}

route("DELETE", "/api/v1/ui/entries/{id}", (_req, _url, p, ctx) =>
  withUiStore(ctx, undefined, (store) => json({ status: "deleted", ...deleteOne(store, idParam(p)) })),
);

// A personal entry into a repository's team lane (`coffer promote`): the file is written into the
// checkout's .coffer/entries/, never staged or committed; the personal copy goes to the trash.
route("POST", "/api/v1/ui/entries/{id}/promote", async (_req, _url, p, ctx) => {
  const id = idParam(p);
  const hit = await withUiStore(ctx, undefined, (store) => findEntry(store, id));
  if (!hit) throw notFound(`no entry with id "${p.id}"`);
  if (isTeamKey(hit.scope)) throw badRequest("this entry is already in a team lane");
  const cwd = hit.scope === GLOBAL ? ctx.cwd : checkoutOf(ctx, hit.scope);
  if (!cwd || !resolveProject(cwd))
    throw badRequest(
      "no checkout of this entry's repository is known here: run `coffer promote <id>` inside the repository",
    );
  const res = await withOpenStore({ cwd, freshness: "none" }, (store) => {
    if (hit.scope !== GLOBAL && store.project?.id !== hit.scope) throw badRequest("the checkout is another project's");
    return promote(store, hit.entry.id, "user");
  });
  const team = await withOpenStore({ cwd, freshness: "shallow" }, (store) =>
    store.team ? findEntry(store, res.team_id, { scopes: [store.team.key] }) : undefined,
  );
  return json({ ...res, entry: team ? entryJson(team.entry, team.scope) : null });
});

route("POST", "/api/v1/ui/entries/{id}/restore", (_req, _url, p, ctx) =>
  withUiStore(ctx, undefined, (store) => json({ status: "restored", ...restoreOne(store, idParam(p)) })),
);

route("GET", "/api/v1/ui/trash", () =>
  json({ items: listTrash().map((t) => ({ ...t, scope_label: projectMeta(t.scope).label })) }),
);

const bulkBody = v.strictObject({
  ids: v.pipe(v.array(v.pipe(v.string(), v.regex(ID_RE, "ids are ULIDs"))), v.minLength(1), v.maxLength(500)),
  action: v.picklist(["delete", "move", "retag"], "action must be delete, move or retag"),
  to: v.optional(v.string()),
  add: v.optional(tagList),
  remove: v.optional(tagList),
});

route("POST", "/api/v1/ui/bulk", async (req, _url, _p, ctx) => {
  const body = parse(bulkBody, await readJsonBody(req), "bulk request");
  const to = body.action === "move" ? scopeParam(body.to) : undefined;
  if (body.action === "retag" && !body.add?.length && !body.remove?.length)
    throw badRequest("retag needs tags to add or remove");
  return withUiStore(ctx, to, (store) => {
    const results = body.ids.map((id) => {
      try {
        if (body.action === "delete") return { ok: true, ...deleteOne(store, id) };
        if (body.action === "move") return { ok: true, ...moveEntry(store, id, to!, "user") };
        return { id, ok: true, tags: retagEntry(store, id, body.add ?? [], body.remove ?? [], "user") };
      } catch (err) {
        return { id, ok: false, error: (err as Error).message };
      }
    });
    return json({ action: body.action, results });
  });
});

// ---------------------------------------------------------------------------------------------
// Staleness (store/stale.ts): entries whose files, scripts, targets or dependencies are gone

const staleReason = (r: StaleReason) => ({ ...r, text: reasonText(r) });

/** The stale entries the last check left in the index, every project scope or one (`?scope=`). */
route("GET", "/api/v1/ui/stale", (_req, url, _p, ctx) =>
  withUiStore(ctx, undefined, (store) => {
    const raw = url.searchParams.get("scope");
    const scopes = !raw || raw === "all" ? browsableScopes() : [scopeParam(raw)];
    refresh(store, "shallow", scopes);
    const labels = new Map<string, string>();
    const label = (scope: ScopeKey) => {
      if (!labels.has(scope)) labels.set(scope, projectMeta(scope).label);
      return labels.get(scope)!;
    };
    const entries = listStale(store, scopes).map((e) => ({
      ...e,
      scope_label: label(e.scope),
      reasons: e.reasons.map(staleReason),
    }));
    const checkouts = Object.entries(checkedRoots())
      .filter(([scope]) => scopes.includes(scope))
      .map(([scope, root]) => ({ scope, scope_label: label(scope), root }));
    return json({ entries, checkouts });
  }),
);

const staleCheckBody = v.strictObject({ scope: v.optional(v.string()) });

/** How long Check now may hold the server (the background pass checks in a child process). */
const STALE_CHECK_NOW_MS = 3_000;

/**
 * Check now: the server's project, the projects checked on this machine before and those the
 * hooks ran in, against their checkouts (files read, nothing spawned), or only `scope`. Within
 * STALE_CHECK_NOW_MS: what it did not reach is checked first by the next check.
 */
route("POST", "/api/v1/ui/stale/check", async (req, _url, _p, ctx) => {
  const body = parse(staleCheckBody, await readJsonBody(req), "check request");
  let only = body.scope && body.scope !== "all" ? scopeParam(body.scope) : undefined;
  if (only === GLOBAL) throw badRequest("global entries are never checked: only a project's, against its checkout");
  // a team lane is checked with its checkout's project
  if (only && isTeamKey(only)) {
    const worktree = teamWorktree(only);
    only = (worktree && resolveProject(worktree)?.id) || only;
  }
  return withUiStore(ctx, undefined, (store) => {
    const reports = checkKnownProjects(store, { cwds: knownCwds(store), only, budgetMs: STALE_CHECK_NOW_MS });
    return json({
      projects: reports.map((r) => ({
        scope: r.scope,
        scope_label: projectMeta(r.scope).label,
        root: r.root,
        checked: r.checked,
        stale: r.stale.length,
        kept: r.kept,
        unchecked: r.unchecked,
      })),
    });
  });
});

/** Keep an entry as it is: its current reasons are silenced until an anchor changes again. */
route("POST", "/api/v1/ui/stale/{id}/keep", (_req, _url, p, ctx) =>
  withUiStore(ctx, undefined, (store) => {
    const hit = findEntry(store, idParam(p));
    if (!hit) throw notFound(`no entry with id "${p.id}"`);
    const kept = keepStale(store, hit.scope, hit.entry.id);
    if (!kept.length)
      throw new HttpError(409, "not_stale", `entry "${hit.entry.id}" is not stale: nothing to keep`, {
        hint: "Check again: the Stale page lists what the last check found.",
      });
    return json({ status: "kept", id: hit.entry.id, scope: hit.scope, kept: kept.map(staleReason) });
  }),
);

// ---------------------------------------------------------------------------------------------
// Rules and handoffs

/** Directories that resolve to `scope`: the hooks' cwds and the server's own (to render a real bundle). */
function cwdsFor(store: Store, ctx: UiContext, scope: ScopeKey): string[] {
  const out: string[] = [];
  for (const dir of [ctx.cwd, ...knownCwds(store)]) {
    if (out.includes(dir) || !isAbsoluteDir(dir)) continue;
    const p = resolveProject(dir);
    if (scope === GLOBAL ? true : p?.id === scope) out.push(dir);
    if (out.length >= 10) break;
  }
  return out;
}

route("GET", "/api/v1/ui/rules", async (_req, url, _p, ctx) => {
  const scope = scopeParam(url.searchParams.get("scope") ?? GLOBAL);
  const cwds = await withUiStore(ctx, undefined, (store) => cwdsFor(store, ctx, scope));
  const asked = url.searchParams.get("cwd");
  if (asked && !isAbsoluteDir(asked)) throw badRequest("cwd must be an absolute path of an existing directory");
  const cwd = asked || cwds[0] || null;
  const bundles: { host: Host; text: string; size: number; limit: number; unit: string }[] = [];
  if (cwd) {
    const { sessionStartContext } = await import("../hooks/context");
    const { loadHookAdapter } = await import("../hosts/index");
    const config = loadConfigOrDefaults();
    for (const host of HOSTS) {
      const adapter = await loadHookAdapter(host);
      if (!adapter.injects.includes("session-start")) continue;
      const cap = adapter.capacity(config);
      const text = await sessionStartContext(host, cwd);
      bundles.push({ host, text, size: cap.measure(text), limit: cap.limit, unit: cap.unit });
    }
  }
  return json({ scope, text: shownRules(scope), cwd, cwds, bundles });
});

const rulesBody = v.strictObject({ scope: v.string(), text: v.pipe(v.string(), v.maxLength(65536)) });

route("PUT", "/api/v1/ui/rules", async (req, _url, _p, ctx) => {
  const parsed = parse(rulesBody, await readJsonBody(req), "rules");
  const scope = scopeParam(parsed.scope);
  const { fields: body, note } = scrubbed(parsed);
  return withUiStore(ctx, scope, (store) => {
    const res = writeRules(store, scope, body.text, "user");
    return json({ scope, changed: res.changed, scrubbed: note, text: shownRules(scope) });
  });
});

route("GET", "/api/v1/ui/handoffs", (_req, url) => {
  const scope = scopeParam(url.searchParams.get("scope") ?? "");
  return json({ scope, handoffs: listHandoffs(scope) });
});

// ---------------------------------------------------------------------------------------------
// Sessions (hook delivery records)

/**
 * A session's deliveries marked with whether the agent used them (issue 41), as the use pass judged
 * them from the finished session's transcript: `used` is "used", "unused" or "unknown"; absent: not
 * judged yet (the session may still go on).
 */
function withUse(store: Store, r: SessionRecord): SessionRecord {
  const verdicts = sessionVerdicts(store, sessionKey(r.host as Host, r.cwd, r.session).skey);
  if (!verdicts.size) return r;
  const at = (iso: string) => Date.parse(iso);
  // The log keeps times to the second in its ISO form: match an entry's verdict within that second.
  const verdictOf = (id: string, iso: string) => {
    const t = at(iso);
    for (const [k, v] of verdicts) {
      const [vid, ms] = k.split("@");
      if (vid === id && Math.floor(Number(ms) / 1000) * 1000 === t) return v;
    }
    return undefined;
  };
  const mark = <T extends { id: string }>(e: T, iso: string) => {
    const used = verdictOf(e.id, iso);
    return used ? { ...e, used } : e;
  };
  return {
    ...r,
    sent: r.sent.map((e) => mark(e, e.at)),
    events: r.events.map((e) => ({ ...e, delivered: e.delivered.map((d) => mark(d, e.at)) })),
  };
}

route("GET", "/api/v1/ui/sessions", async (_req, url, _p, ctx) => {
  const limit = Math.min(Math.max(Number(url.searchParams.get("limit") ?? 100) || 100, 1), 500);
  const records = await withUiStore(ctx, undefined, (store) =>
    deliveryRecords(store, limit).map((r) => {
      const p = isAbsoluteDir(r.cwd) ? resolveProject(r.cwd) : undefined;
      return { ...withUse(store, r), project: p ? { id: p.id, label: p.label } : null };
    }),
  );
  const rules = await rulesNow(records.filter((r) => r.bundle_sig).map((r) => r.cwd));
  return json({
    sessions: records.map((r) => {
      const now = rules.get(r.cwd);
      // The rules a session start sent, told by today's files while they are the same (the bundle's signature).
      return { ...r, rules: now && r.bundle_sig ? { ...now.counts, unchanged: now.sig === r.bundle_sig } : null };
    }),
  });
});

type RulesNow = { sig: string; counts: { project: number; team: number; global: number } };

/** Per working directory: the rules bundle its session start would send now (its signature, its rules per lane). */
async function rulesNow(cwds: string[]): Promise<Map<string, RulesNow>> {
  const out = new Map<string, RulesNow>();
  const dirs = [...new Set(cwds)].filter(isAbsoluteDir).slice(0, 20);
  if (!dirs.length) return out;
  const { readBundle } = await import("../hooks/run");
  for (const cwd of dirs) {
    try {
      const b = await withOpenStore({ cwd, freshness: "none", rebuildAll: false }, (store) => readBundle(store));
      out.set(cwd, {
        sig: b.sig,
        counts: { project: b.project?.length ?? 0, team: b.team?.length ?? 0, global: b.global.length },
      });
    } catch {} // a directory whose store cannot open: its rules are simply not told
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Inbox and distillation

route("GET", "/api/v1/ui/inbox/{id}", async (_req, _url, p) => {
  const { findTrace } = await import("../inbox/inbox");
  const { traceText } = await import("../inbox/review");
  const t = findTrace(p.id ?? "");
  if (!t) throw notFound(`no inbox item "${p.id}"`);
  return json({
    id: t.id,
    host: t.host,
    session: t.session,
    title: t.title,
    project: t.project?.label ?? null,
    created: t.created,
    text: traceText(t),
  });
});

type Pending = {
  trace: string;
  insights: unknown[];
  decide: (ok: boolean) => void;
  result: Promise<unknown>;
  timer: ReturnType<typeof setTimeout>;
};
const pending = new Map<string, Pending>();

/** Approve step 1: ask the model, hold its insights for the person to confirm (nothing written yet). */
route("POST", "/api/v1/ui/inbox/{id}/preview", async (_req, _url, p) => {
  const { findTrace } = await import("../inbox/inbox");
  const { approveTrace } = await import("../inbox/review");
  const trace = findTrace(p.id ?? "");
  if (!trace) throw notFound(`no inbox item "${p.id}"`);
  const pid = crypto.randomUUID();
  let decide!: (ok: boolean) => void;
  const decided = new Promise<boolean>((r) => {
    decide = r;
  });
  let shown!: (insights: unknown[]) => void;
  const preview = new Promise<unknown[]>((r) => {
    shown = r;
  });
  const result = approveTrace(trace, loadConfigOrDefaults(), (insights) => {
    shown(insights);
    return decided;
  });
  // Whoever decides awaits the result; a preview left to time out must not become an unhandled rejection.
  result.catch(() => {});
  // The model call either reaches the preview or fails/returns before it.
  const first = await Promise.race([preview.then((insights) => ({ insights })), result.then((r) => ({ done: r }))]);
  if ("done" in first) return json({ status: "done", result: first.done });
  const timer = setTimeout(() => {
    pending.get(pid)?.decide(false);
    pending.delete(pid);
  }, 15 * 60_000);
  pending.set(pid, { trace: trace.id, insights: first.insights, decide, result, timer });
  return json({ status: "preview", preview: pid, trace: trace.id, insights: first.insights });
});

route("POST", "/api/v1/ui/inbox/previews/{pid}/{decision}", async (_req, _url, p) => {
  const held = pending.get(p.pid ?? "");
  if (!held) throw notFound("this preview expired or was already decided; preview again");
  if (p.decision !== "confirm" && p.decision !== "cancel") throw notFound("use .../confirm or .../cancel");
  pending.delete(p.pid!);
  clearTimeout(held.timer);
  held.decide(p.decision === "confirm");
  const r = (await held.result) as { status: string; entries: { id: string }[]; scrubbed?: string };
  return json({
    status: r.status,
    trace: held.trace,
    entries: r.entries.map((e) => e.id),
    ...(r.scrubbed ? { scrubbed: r.scrubbed } : {}),
  });
});

// Contradictions distillation left for a person: approve makes the new insight supersede the old
// entry (kept on disk, marked), reject drops the insight.
route("GET", "/api/v1/ui/conflicts", async () => {
  const { listInboxConflicts } = await import("../serve/distill");
  return json({ conflicts: await listInboxConflicts() });
});

route("POST", "/api/v1/ui/conflicts/{id}/{decision}", async (_req, _url, p) => {
  if (p.decision !== "approve" && p.decision !== "reject") throw notFound("use .../approve or .../reject");
  const { settleConflict } = await import("../serve/distill");
  const r = await settleConflict(p.id ?? "", p.decision);
  if (r.status === "not_found") throw notFound(`no contradiction "${p.id}" in the inbox`);
  return json(r);
});

// Entries edited on two machines: the older version sync kept as a superseded copy, until it is
// forgotten (DELETE /api/v1/ui/entries/{copy} resolves it).
route("GET", "/api/v1/ui/sync-conflicts", (_req, _url, _p, ctx) =>
  withUiStore(ctx, undefined, (store) =>
    json({
      conflicts: syncConflicts(store).map((c) => ({ ...c, scope_label: projectMeta(c.scope).label })),
    }),
  ),
);

// Entries delivered inbox.unused_after times and never used by the agent (issue 41): offered for
// review. Keep puts the offer off until as many more deliveries; edit and forget are the entry's own.
route("GET", "/api/v1/ui/unused", (_req, _url, _p, ctx) =>
  withUiStore(ctx, undefined, (store) => {
    const min = loadConfigOrDefaults()["inbox.unused_after"];
    return json({
      min,
      entries: unusedOffers(store, min).map((u) => ({
        ...u,
        scope_label: u.scope === GLOBAL ? "Global" : isTeamKey(u.scope) ? "Team" : projectMeta(u.scope).label,
      })),
    });
  }),
);

route("POST", "/api/v1/ui/unused/{id}/keep", (_req, _url, p, ctx) =>
  withUiStore(ctx, undefined, (store) => {
    const hit = findEntry(store, idParam(p));
    if (!hit) throw notFound(`no entry with id "${p.id}"`);
    if (!keepUnused(store, hit.entry.id))
      throw new HttpError(409, "not_offered", `entry "${hit.entry.id}" was used or never judged: nothing to keep`);
    return json({ status: "kept", id: hit.entry.id });
  }),
);

// Entries distillation proposed for a repository's team lane: approve promotes the entry into a
// checkout's .coffer/entries/ (as `coffer promote` does), reject keeps it personal.
route("GET", "/api/v1/ui/team-proposals", async () => {
  const { listInboxTeamProposals } = await import("../serve/distill");
  return json({ proposals: await listInboxTeamProposals() });
});

route("POST", "/api/v1/ui/team-proposals/{id}/{decision}", async (_req, _url, p, ctx) => {
  if (p.decision !== "approve" && p.decision !== "reject") throw notFound("use .../approve or .../reject");
  const { settleTeamProposal } = await import("../serve/distill");
  const r = await settleTeamProposal(p.id ?? "", p.decision, (project) => checkoutOf(ctx, project));
  if (r.status === "not_found") throw notFound(`no team-lane proposal "${p.id}" in the inbox`);
  if (r.status === "failed") throw badRequest(r.message);
  return json(r);
});

/** Today's distillation spend against distill.daily_token_budget, and whether the sweep is paused. */
route("GET", "/api/v1/ui/budget", async () => {
  const { distillBudget } = await import("../distill/budget");
  return json(distillBudget(loadConfig()));
});

route("GET", "/api/v1/ui/transcripts", async (_req, url) => {
  const host = url.searchParams.get("host") ?? "claude";
  if (!isHost(host)) throw badRequest(`unknown host "${host}"`);
  const { listTranscripts } = await import("../serve/distill");
  const { readQueue } = await import("../capture/queue");
  const { readLedger } = await import("../distill/ledger");
  const { listTraces } = await import("../inbox/inbox");
  const queued = new Set(readQueue().map((q) => `${q.host}\0${q.session}`));
  const inInbox = new Set(listTraces().map((t) => `${t.host}\0${t.session}`));
  const ledger = readLedger();
  const list = (await listTranscripts(host, 100)).map((t) => {
    const records = ledger.get(`${t.host}\0${t.session_id}`) ?? [];
    const last = records[records.length - 1];
    const status =
      t.status === "done" || t.status === "skipped"
        ? t.status
        : queued.has(`${t.host}\0${t.session_id}`)
          ? "queued"
          : inInbox.has(`${t.host}\0${t.session_id}`)
            ? "in inbox"
            : last?.outcome === "failed"
              ? "failed"
              : "never";
    const { path: _path, cwd: _cwd, ...rest } = t;
    // A skipped session says why, and how to try it again (its Distill button tries it now).
    const error = status === "failed" ? (last?.error ?? null) : status === "skipped" ? (t.skipped?.why ?? null) : null;
    return { ...rest, status, error };
  });
  return json({ host, transcripts: list });
});

route("GET", "/api/v1/ui/model", async () => {
  const { cliFacts, describeSettings, isCliSettings, resolveModel } = await import("../distill/model");
  const choice = resolveModel(loadConfigOrDefaults());
  const m = choice.settings;
  return json({
    source: choice.source,
    why: choice.why,
    model: !m
      ? null
      : isCliSettings(m)
        ? {
            provider: m.provider,
            model: m.model ?? null,
            label: describeSettings(m),
            command: cliFacts(m).command,
            cli: m.cli ?? null,
            plan: cliFacts(m).plan,
          }
        : {
            provider: m.provider,
            model: m.model,
            label: describeSettings(m),
            base_url: m.baseUrl,
            key_env: m.keyEnv ?? null,
            key_set: m.keyEnv ? !!process.env[m.keyEnv] : null,
          },
  });
});

route("GET", "/api/v1/ui/stats", async (_req, url, _p, ctx) => {
  const raw = url.searchParams.get("days");
  const days = raw === null ? undefined : Number(raw);
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 365))
    throw badRequest("days must be an integer 1..365");
  const { usageStats } = await import("../serve/distill");
  const { STATS_DEFAULT_DAYS } = await import("../distill/stats");
  return json({ ...(await usageStats({ days, cwd: ctx.cwd })), window_days: days ?? STATS_DEFAULT_DAYS });
});

// ---------------------------------------------------------------------------------------------
// Health

function auditTail(max: number): unknown[] {
  let text = "";
  try {
    const st = statSync(paths.audit());
    const fd = openSync(paths.audit(), "r");
    try {
      const len = Math.min(st.size, 256 * 1024);
      const buf = Buffer.alloc(len);
      text = buf.toString("utf8", 0, readSync(fd, buf, 0, len, st.size - len));
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
  const lines = text.split("\n").filter((l) => l.trim());
  const out: unknown[] = [];
  for (const line of lines.slice(-max).reverse()) {
    try {
      out.push(JSON.parse(line));
    } catch {}
  }
  return out;
}

/** Audit keys that hold an entry's id (`id` only in an entry_* event: elsewhere it is a trace's or a proposal's). */
const ENTRY_KEYS = ["entry", "superseded"];

/**
 * Audit events with the entries they name: `entries` maps each entry id in them to its handle and
 * title (now, or from the trash: `trashed`; null once it is gone), and a project id in `scope`/`from`/`to` to its label.
 */
function namedAudit(store: Store, events: unknown[]): unknown[] {
  const recs = events as Record<string, unknown>[];
  const idsOf = (r: Record<string, unknown>) =>
    Object.entries(r).flatMap(([k, v]) =>
      typeof v === "string" &&
      ID_RE.test(v) &&
      (ENTRY_KEYS.includes(k) || (k === "id" && String(r.event ?? "").startsWith("entry_")))
        ? [v]
        : [],
    );
  const ids = [...new Set(recs.flatMap(idsOf))];
  const titles = entryTitles(store, ids);
  const trashed = new Set<string>();
  for (const t of listTrash())
    if (!titles.has(t.id)) {
      titles.set(t.id, t.title);
      trashed.add(t.id);
    }
  const labels = new Map(
    browsableScopes().map((s) => [s, s === GLOBAL ? "Global" : isTeamKey(s) ? s : projectMeta(s).label]),
  );
  return recs.map((r) => {
    const named: Record<string, unknown> = { ...r };
    for (const k of ["scope", "from", "to"])
      if (typeof r[k] === "string" && labels.has(r[k] as string)) named[k] = labels.get(r[k] as string);
    const entries = Object.fromEntries(
      idsOf(r).map((id) => [id, { handle: handle(id), title: titles.get(id) ?? null, trashed: trashed.has(id) }]),
    );
    return Object.keys(entries).length ? { ...named, entries } : named;
  });
}

route("GET", "/api/v1/ui/health", async (_req, _url, _p, ctx) => {
  const overview = await withUiStore(ctx, undefined, (store) => scopeOverview(store));
  let indexBytes = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      indexBytes += statSync(paths.indexDb() + suffix).size;
    } catch {}
  }
  const { runDoctor } = await import("../link/doctor");
  const { allHostLinks } = await import("../hosts/index");
  const { homeDir } = await import("../lib/paths");
  const doctor = await runDoctor(await allHostLinks(), ctx.cwd, homeDir());
  const { syncStatus } = await import("../sync/status");
  let sync: unknown = null;
  try {
    sync = syncStatus() ?? null;
  } catch (err) {
    sync = { summary: `unknown (${(err as Error).message})` };
  }
  let inboxCount = 0;
  try {
    inboxCount = (await import("../inbox/inbox")).countTraces();
  } catch {}
  let conflicts = 0;
  let team = 0;
  let budget: unknown = null;
  try {
    const d = await import("../serve/distill");
    conflicts = (await d.listInboxConflicts()).length;
    team = (await d.listInboxTeamProposals()).length;
    budget = (await import("../distill/budget")).distillBudget(loadConfig());
  } catch {}
  return json({
    counts: {
      entries: overview.reduce((n, s) => n + s.entries, 0),
      projects: overview.filter((s) => s.scope !== GLOBAL).length,
      inbox: inboxCount,
      conflicts,
      team,
    },
    budget,
    index: { bytes: indexBytes },
    doctor: {
      binary: doctor.binary,
      hosts: doctor.hosts.map((h) => ({
        host: h.host,
        scope: h.scope,
        status: h.status,
        events: h.events,
        missing_events: h.missing_events,
        mcp: h.mcp.registered,
        hooks_seen: h.hooks_seen,
        notes: h.notes,
        problems: h.problems,
        warnings: h.warnings,
      })),
      store: {
        index: doctor.store.index.state,
        model: doctor.store.model,
        model_why: doctor.store.model_why,
        notes: doctor.store.notes,
      },
      problems: doctor.problems,
      warnings: doctor.warnings,
    },
    sync,
    audit: await withUiStore(ctx, undefined, (store) => namedAudit(store, auditTail(200))),
  });
});
