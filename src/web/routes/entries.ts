/** The web UI's session, its scopes and the entries: browse, read, add, edit, delete, promote, restore, bulk. */
import * as v from "valibot";
import { loadConfigOrDefaults } from "../../config/config";
import { HOSTS } from "../../lib/hosts";
import { browseEntries } from "../../retrieval/search";
import { relatedTo } from "../../retrieval/similarity";
import type {
  BulkResult,
  Deleted,
  EntriesPage,
  EntryDetail,
  EntrySaved,
  Facets,
  Projects,
  Promoted,
  Restored,
  SessionInfo,
  Trash,
} from "../../serve/api-types";
import { readJsonBody } from "../../serve/body";
import { badRequest, HttpError, json, notFound } from "../../serve/errors";
import { intString } from "../../serve/router";
import {
  activeScopes,
  type BrowseFilter,
  browsableScopes,
  deliveriesOf,
  describeUse,
  entryUses,
  facets,
  findEntry,
  GLOBAL,
  isTeamKey,
  KINDS,
  listTrash,
  moveEntry,
  moveToTrash,
  projectMeta,
  promote,
  refresh,
  remember,
  resolveProject,
  restoreEntry,
  retagEntry,
  type ScopeKey,
  SOURCES,
  type Store,
  scopeName,
  scopeOverview,
  uncommittedInTeam,
  unmarkResolvedConflict,
  withOpenStore,
} from "../../store";
import {
  checkoutOf,
  entryJson,
  globList,
  ID_RE,
  idParam,
  keywordList,
  parse,
  scopeNameFor,
  scopeParam,
  scrubbed,
  tagList,
  type UiRoute,
  withTeamStore,
  withUiStore,
} from "./shared";

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

const createBody = v.strictObject({
  scope: v.string(),
  text: v.pipe(v.string("text must be a string"), v.trim(), v.minLength(1, "text is empty")),
  title: v.optional(v.string()),
  kind: v.optional(v.picklist(KINDS, `kind must be one of: ${KINDS.join(", ")}`)),
  tags: v.optional(tagList),
  keywords: v.optional(keywordList),
  applies_to: v.optional(globList),
});

const patchBody = v.strictObject({
  text: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "text is empty"))),
  title: v.optional(v.string()),
  kind: v.optional(v.picklist(KINDS, `kind must be one of: ${KINDS.join(", ")}`)),
  tags: v.optional(tagList),
  keywords: v.optional(keywordList),
  applies_to: v.optional(globList),
});

// Deletes are soft: the entry waits in the trash (state/trash/, 30 days) and comes back on restore.
function deleteOne(store: Store, id: string): { id: string; scope: ScopeKey; title: string } {
  const hit = findEntry(store, id);
  if (!hit) throw notFound(`no entry with id "${id}"`);
  const item = moveToTrash(store, hit, "user");
  unmarkResolvedConflict(store, hit); // a sync-conflict copy: the last one resolves the conflict
  return { id: item.id, scope: item.scope, title: item.title };
}

const bulkBody = v.strictObject({
  ids: v.pipe(v.array(v.pipe(v.string(), v.regex(ID_RE, "ids are ULIDs"))), v.minLength(1), v.maxLength(500)),
  action: v.picklist(["delete", "move", "retag"], "action must be delete, move or retag"),
  to: v.optional(v.string()),
  add: v.optional(tagList),
  remove: v.optional(tagList),
});

/** Session and scopes, then entries, the trash and bulk actions. */
export function entryRoutes(route: UiRoute): void {
  route("GET", "/api/v1/ui/session", (_req, _url, _p, ctx) => {
    const config = loadConfigOrDefaults();
    return json<SessionInfo>({
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
      return json<Projects>({ current: here, projects: scopeOverview(store) });
    }),
  );

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
      return json<EntriesPage>({ total: res.total, entries, took_ms: Math.round(performance.now() - t0) });
    });
  });

  route("GET", "/api/v1/ui/facets", (_req, url, _p, ctx) =>
    withUiStore(ctx, undefined, (store) => {
      const q = url.searchParams.get("scope") ?? "all";
      const scopes = q === "all" ? [GLOBAL, ...browsableScopes().filter((s) => s !== GLOBAL)] : [scopeParam(q)];
      return json<Facets>(facets(store, scopes));
    }),
  );

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
      return json<EntryDetail>({
        ...entryJson(hit.entry, hit.scope),
        delivered_to: deliveriesOf(store, hit.entry.id),
        related,
        use: { ...use, text: describeUse(use) },
      });
    }),
  );

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
      return json<EntrySaved>(
        { status: res.status, scrubbed: note, entry: entryJson(res.entry, scope) },
        res.status === "created" ? 201 : 200,
      );
    });
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
      return json<EntrySaved>({ status: res.status, scrubbed: note, entry: entryJson(res.entry, hit.scope) });
    });
  });

  route("DELETE", "/api/v1/ui/entries/{id}", (_req, _url, p, ctx) =>
    withUiStore(ctx, undefined, (store) => json<Deleted>({ status: "deleted", ...deleteOne(store, idParam(p)) })),
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
      if (hit.scope !== GLOBAL && store.project?.id !== hit.scope)
        throw badRequest("the checkout is another project's");
      return promote(store, hit.entry.id, "user");
    });
    const team = await withOpenStore({ cwd, freshness: "shallow" }, (store) =>
      store.team ? findEntry(store, res.team_id, { scopes: [store.team.key] }) : undefined,
    );
    return json<Promoted>({ ...res, entry: team ? entryJson(team.entry, team.scope) : null });
  });

  route("POST", "/api/v1/ui/entries/{id}/restore", (_req, _url, p, ctx) =>
    withUiStore(ctx, undefined, (store) =>
      json<Restored>({ status: "restored", ...restoreEntry(store, idParam(p), "user") }),
    ),
  );

  route("GET", "/api/v1/ui/trash", () =>
    json<Trash>({ items: listTrash().map((t) => ({ ...t, scope_label: projectMeta(t.scope).label })) }),
  );

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
      return json<BulkResult>({ action: body.action, results });
    });
  });
}
