/** Rules and handoffs per scope, and the sessions the hooks delivered to (with the rules they were sent). */
import * as v from "valibot";
import { loadConfigOrDefaults } from "../../config/config";
import { HOSTS, type Host } from "../../lib/hosts";
import type { Handoffs, RulesSaved, RulesView, Sessions } from "../../serve/api-types";
import { readJsonBody } from "../../serve/body";
import { badRequest, json } from "../../serve/errors";
import {
  deliveryRecords,
  GLOBAL,
  isAbsoluteDir,
  knownCwds,
  listHandoffs,
  resolveProject,
  type ScopeKey,
  type SessionRecord,
  type Store,
  sessionKey,
  sessionVerdicts,
  shownRules,
  withOpenStore,
  writeRules,
} from "../../store";
import { parse, scopeParam, scrubbed, type UiContext, type UiRoute, withUiStore } from "./shared";

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

const rulesBody = v.strictObject({ scope: v.string(), text: v.pipe(v.string(), v.maxLength(65536)) });

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

type RulesNow = { sig: string; counts: { project: number; team: number; global: number } };

/** Per working directory: the rules bundle its session start would send now (its signature, its rules per lane). */
async function rulesNow(cwds: string[]): Promise<Map<string, RulesNow>> {
  const out = new Map<string, RulesNow>();
  const dirs = [...new Set(cwds)].filter(isAbsoluteDir).slice(0, 20);
  if (!dirs.length) return out;
  const { readBundle } = await import("../../hooks/run");
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

/** Rules (with the bundle each host would get), handoffs, sessions. */
export function ruleRoutes(route: UiRoute): void {
  route("GET", "/api/v1/ui/rules", async (_req, url, _p, ctx) => {
    const scope = scopeParam(url.searchParams.get("scope") ?? GLOBAL);
    const cwds = await withUiStore(ctx, undefined, (store) => cwdsFor(store, ctx, scope));
    const asked = url.searchParams.get("cwd");
    if (asked && !isAbsoluteDir(asked)) throw badRequest("cwd must be an absolute path of an existing directory");
    const cwd = asked || cwds[0] || null;
    const bundles: { host: Host; text: string; size: number; limit: number; unit: string }[] = [];
    if (cwd) {
      const { sessionStartContext } = await import("../../hooks/context");
      const { loadHookAdapter } = await import("../../hosts/index");
      const config = loadConfigOrDefaults();
      for (const host of HOSTS) {
        const adapter = await loadHookAdapter(host);
        if (!adapter.injects.includes("session-start")) continue;
        const cap = adapter.capacity(config);
        const text = await sessionStartContext(host, cwd);
        bundles.push({ host, text, size: cap.measure(text), limit: cap.limit, unit: cap.unit });
      }
    }
    return json<RulesView>({ scope, text: shownRules(scope), cwd, cwds, bundles });
  });

  route("PUT", "/api/v1/ui/rules", async (req, _url, _p, ctx) => {
    const parsed = parse(rulesBody, await readJsonBody(req), "rules");
    const scope = scopeParam(parsed.scope);
    const { fields: body, note } = scrubbed(parsed);
    return withUiStore(ctx, scope, (store) => {
      const res = writeRules(store, scope, body.text, "user");
      return json<RulesSaved>({ scope, changed: res.changed, scrubbed: note, text: shownRules(scope) });
    });
  });

  route("GET", "/api/v1/ui/handoffs", (_req, url) => {
    const scope = scopeParam(url.searchParams.get("scope") ?? "");
    return json<Handoffs>({ scope, handoffs: listHandoffs(scope) });
  });

  route("GET", "/api/v1/ui/sessions", async (_req, url, _p, ctx) => {
    const limit = Math.min(Math.max(Number(url.searchParams.get("limit") ?? 100) || 100, 1), 500);
    const records = await withUiStore(ctx, undefined, (store) =>
      deliveryRecords(store, limit).map((r) => {
        const p = isAbsoluteDir(r.cwd) ? resolveProject(r.cwd) : undefined;
        return { ...withUse(store, r), project: p ? { id: p.id, label: p.label } : null };
      }),
    );
    const rules = await rulesNow(records.filter((r) => r.bundle_sig).map((r) => r.cwd));
    return json<Sessions>({
      sessions: records.map((r) => {
        const now = rules.get(r.cwd);
        // The rules a session start sent, told by today's files while they are the same (the bundle's signature).
        return { ...r, rules: now && r.bundle_sig ? { ...now.counts, unchanged: now.sig === r.bundle_sig } : null };
      }),
    });
  });
}
