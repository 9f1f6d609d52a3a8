/** Staleness (store/stale.ts): entries whose files, scripts, targets or dependencies are gone. */
import * as v from "valibot";
import type { StaleChecked, StaleKept, StaleList } from "../../serve/api-types";
import { readJsonBody } from "../../serve/body";
import { badRequest, HttpError, json, notFound } from "../../serve/errors";
import {
  browsableScopes,
  checkedRoots,
  checkKnownProjects,
  findEntry,
  GLOBAL,
  isTeamKey,
  keepStale,
  knownCwds,
  listStale,
  projectMeta,
  reasonText,
  refresh,
  resolveProject,
  type ScopeKey,
  type StaleReason,
  teamWorktree,
} from "../../store";
import { idParam, parse, scopeParam, type UiRoute, withUiStore } from "./shared";

const staleReason = (r: StaleReason) => ({ ...r, text: reasonText(r) });

const staleCheckBody = v.strictObject({ scope: v.optional(v.string()) });

/** How long Check now may hold the server (the background pass checks in a child process). */
const STALE_CHECK_NOW_MS = 3_000;

/** The stale list, Check now, and keeping an entry as it is. */
export function staleRoutes(route: UiRoute): void {
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
      return json<StaleList>({ entries, checkouts });
    }),
  );

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
      return json<StaleChecked>({
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
      return json<StaleKept>({ status: "kept", id: hit.entry.id, scope: hit.scope, kept: kept.map(staleReason) });
    }),
  );
}
