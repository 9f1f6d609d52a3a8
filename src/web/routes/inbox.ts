/** The inbox and distillation: traces, previews, contradictions, team proposals, the budget, transcripts, the model, stats. */

import { loadConfig, loadConfigOrDefaults } from "../../config/config";
import { isHost } from "../../lib/hosts";
import type {
  Budget,
  InboxConflicts,
  InboxPreview,
  InboxTrace,
  Insight,
  ModelInfo,
  PreviewDecided,
  Settled,
  Stats,
  SyncConflicts,
  TeamProposals,
  Transcripts,
  UnusedOffers,
} from "../../serve/api-types";
import { badRequest, HttpError, json, notFound } from "../../serve/errors";
import { findEntry, GLOBAL, isTeamKey, keepUnused, projectMeta, syncConflicts, unusedOffers } from "../../store";
import { checkoutOf, idParam, type UiRoute, withUiStore } from "./shared";

type Pending = {
  trace: string;
  insights: Insight[];
  decide: (ok: boolean) => void;
  result: Promise<unknown>;
  timer: ReturnType<typeof setTimeout>;
};
const pending = new Map<string, Pending>();

/** Inbox items and what distillation left for a person, and what it costs. */
export function inboxRoutes(route: UiRoute): void {
  route("GET", "/api/v1/ui/inbox/{id}", async (_req, _url, p) => {
    const { findTrace } = await import("../../inbox/traces");
    const { traceText } = await import("../../distill/review");
    const t = findTrace(p.id ?? "");
    if (!t) throw notFound(`no inbox item "${p.id}"`);
    return json<InboxTrace>({
      id: t.id,
      host: t.host,
      session: t.session,
      title: t.title,
      project: t.project?.label ?? null,
      created: t.created,
      text: traceText(t),
    });
  });

  /** Approve step 1: ask the model, hold its insights for the person to confirm (nothing written yet). */
  route("POST", "/api/v1/ui/inbox/{id}/preview", async (_req, _url, p) => {
    const { findTrace } = await import("../../inbox/traces");
    const { approveTrace } = await import("../../distill/review");
    const trace = findTrace(p.id ?? "");
    if (!trace) throw notFound(`no inbox item "${p.id}"`);
    const pid = crypto.randomUUID();
    let decide!: (ok: boolean) => void;
    const decided = new Promise<boolean>((r) => {
      decide = r;
    });
    let shown!: (insights: Insight[]) => void;
    const preview = new Promise<Insight[]>((r) => {
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
    if ("done" in first) return json<InboxPreview>({ status: "done", result: first.done });
    const timer = setTimeout(() => {
      pending.get(pid)?.decide(false);
      pending.delete(pid);
    }, 15 * 60_000);
    pending.set(pid, { trace: trace.id, insights: first.insights, decide, result, timer });
    return json<InboxPreview>({ status: "preview", preview: pid, trace: trace.id, insights: first.insights });
  });

  route("POST", "/api/v1/ui/inbox/previews/{pid}/{decision}", async (_req, _url, p) => {
    const held = pending.get(p.pid ?? "");
    if (!held) throw notFound("this preview expired or was already decided; preview again");
    if (p.decision !== "confirm" && p.decision !== "cancel") throw notFound("use .../confirm or .../cancel");
    pending.delete(p.pid!);
    clearTimeout(held.timer);
    held.decide(p.decision === "confirm");
    const r = (await held.result) as { status: string; entries: { id: string }[]; scrubbed?: string };
    return json<PreviewDecided>({
      status: r.status,
      trace: held.trace,
      entries: r.entries.map((e) => e.id),
      ...(r.scrubbed ? { scrubbed: r.scrubbed } : {}),
    });
  });

  // Contradictions distillation left for a person: approve makes the new insight supersede the old
  // entry (kept on disk, marked), reject drops the insight.
  route("GET", "/api/v1/ui/conflicts", async () => {
    const { listInboxConflicts } = await import("../../serve/sessions");
    return json<InboxConflicts>({ conflicts: await listInboxConflicts() });
  });

  route("POST", "/api/v1/ui/conflicts/{id}/{decision}", async (_req, _url, p) => {
    if (p.decision !== "approve" && p.decision !== "reject") throw notFound("use .../approve or .../reject");
    const { settleConflict } = await import("../../serve/sessions");
    const r = await settleConflict(p.id ?? "", p.decision);
    if (r.status === "not_found") throw notFound(`no contradiction "${p.id}" in the inbox`);
    return json<Settled>(r);
  });

  // Entries edited on two machines: the older version sync kept as a superseded copy, until it is
  // forgotten (DELETE /api/v1/ui/entries/{copy} resolves it).
  route("GET", "/api/v1/ui/sync-conflicts", (_req, _url, _p, ctx) =>
    withUiStore(ctx, undefined, (store) =>
      json<SyncConflicts>({
        conflicts: syncConflicts(store).map((c) => ({ ...c, scope_label: projectMeta(c.scope).label })),
      }),
    ),
  );

  // Entries delivered inbox.unused_after times and never used by the agent (issue 41): offered for
  // review. Keep puts the offer off until as many more deliveries; edit and forget are the entry's own.
  route("GET", "/api/v1/ui/unused", (_req, _url, _p, ctx) =>
    withUiStore(ctx, undefined, (store) => {
      const min = loadConfigOrDefaults()["inbox.unused_after"];
      return json<UnusedOffers>({
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
    const { listInboxTeamProposals } = await import("../../serve/sessions");
    return json<TeamProposals>({ proposals: await listInboxTeamProposals() });
  });

  route("POST", "/api/v1/ui/team-proposals/{id}/{decision}", async (_req, _url, p, ctx) => {
    if (p.decision !== "approve" && p.decision !== "reject") throw notFound("use .../approve or .../reject");
    const { settleTeamProposal } = await import("../../serve/sessions");
    const r = await settleTeamProposal(p.id ?? "", p.decision, (project) => checkoutOf(ctx, project));
    if (r.status === "not_found") throw notFound(`no team-lane proposal "${p.id}" in the inbox`);
    if (r.status === "failed") throw badRequest(r.message);
    return json<Settled>(r);
  });

  /** Today's distillation spend against distill.daily_token_budget, and whether the sweep is paused. */
  route("GET", "/api/v1/ui/budget", async () => {
    const { distillBudget } = await import("../../distill/budget");
    return json<Budget>(distillBudget(loadConfig()));
  });

  route("GET", "/api/v1/ui/transcripts", async (_req, url) => {
    const host = url.searchParams.get("host") ?? "claude";
    if (!isHost(host)) throw badRequest(`unknown host "${host}"`);
    const { listTranscripts } = await import("../../serve/sessions");
    const { readQueue } = await import("../../capture/queue");
    const { readLedger } = await import("../../distill/ledger");
    const { listTraces } = await import("../../inbox/traces");
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
      const error =
        status === "failed" ? (last?.error ?? null) : status === "skipped" ? (t.skipped?.why ?? null) : null;
      return { ...rest, status, error };
    });
    return json<Transcripts>({ host, transcripts: list });
  });

  route("GET", "/api/v1/ui/model", async () => {
    const { cliFacts, describeSettings, isCliSettings, resolveModel } = await import("../../distill/model");
    const choice = resolveModel(loadConfigOrDefaults());
    const m = choice.settings;
    return json<ModelInfo>({
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
    const { usageStats } = await import("../../serve/sessions");
    const { STATS_DEFAULT_DAYS } = await import("../../distill/stats");
    return json<Stats>({ ...(await usageStats({ days, cwd: ctx.cwd })), window_days: days ?? STATS_DEFAULT_DAYS });
  });
}
