/** What the web UI's routes share: their context, validation, scope parameters, the store opened for a scope, an entry as JSON. */
import * as v from "valibot";
import { describeFound, type Found, scrub } from "../../scrub/index";
import { badRequest, notFound } from "../../serve/errors";
import type { Params, router } from "../../serve/router";
import {
  browsableScopes,
  type Entry,
  GLOBAL,
  isTeamKey,
  projectMeta,
  resolveProject,
  type ScopeKey,
  type Store,
  teamWorktree,
  uncommittedInTeam,
  withOpenStore,
} from "../../store";

export type UiContext = { cwd: string; auth: WebAuth; bearer: boolean; version: string };

import type { WebAuth } from "../auth";

/** Adds one route to the UI's table (each routes file exports a function that adds its own). */
export type UiRoute = ReturnType<typeof router<UiContext>>["route"];

export function parse<S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
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

export function scopeParam(raw: unknown): ScopeKey {
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
export function withTeamStore<T>(key: ScopeKey, fn: (store: Store) => T): Promise<T> {
  const worktree = teamWorktree(key);
  if (!worktree) throw notFound(`no team lane "${key}" on this machine`);
  return withOpenStore({ cwd: worktree, freshness: "none", notice: (m) => process.stderr.write(`coffer: ${m}\n`) }, fn);
}

/** The checkout a project's entry is promoted from: the server's own, else one whose team lane this machine read. */
export function checkoutOf(ctx: UiContext, project: ScopeKey): string | undefined {
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
export function withUiStore<T>(ctx: UiContext, scope: ScopeKey | undefined, fn: (store: Store) => T): Promise<T> {
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

export const scopeNameFor = (scope: ScopeKey) => (scope === GLOBAL ? "global" : isTeamKey(scope) ? "team" : "project");

export function entryJson(e: Entry, scope: ScopeKey) {
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

export const tagList = v.pipe(
  v.array(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64)), "tags must be a list of strings"),
  v.maxLength(32, "at most 32 tags"),
);
export const keywordList = v.array(
  v.string("keywords must be a list of strings"),
  "keywords must be a list of strings",
);
export const globList = v.pipe(
  v.array(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)), "applies_to must be a list of globs"),
  v.maxLength(32, "at most 32 globs"),
);

/** Secrets never land in memory: every text a person saves is scrubbed first, and told so. */
export function scrubbed<T extends Record<string, unknown>>(fields: T): { fields: T; note: string | null } {
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

export const ID_RE = /^[0-9A-Za-z]{6,64}$/;
export function idParam(p: Params): string {
  const id = p.id ?? "";
  if (!ID_RE.test(id)) throw badRequest("an entry id is letters and digits (a ULID)");
  return id;
}
