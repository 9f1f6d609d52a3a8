/** Health: counts, the doctor's findings, sync, and the audit log with the entries it names. */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { loadConfig } from "../../config/config";
import { handle } from "../../lib/handle";
import { paths } from "../../lib/paths";
import type { Health } from "../../serve/api-types";
import { json } from "../../serve/errors";
import {
  browsableScopes,
  entryTitles,
  GLOBAL,
  isTeamKey,
  listTrash,
  projectMeta,
  type Store,
  scopeOverview,
} from "../../store";
import { ID_RE, type UiRoute, withUiStore } from "./shared";

function auditTail(max: number): Record<string, unknown>[] {
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
  const out: Record<string, unknown>[] = [];
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
function namedAudit(store: Store, recs: Record<string, unknown>[]): Record<string, unknown>[] {
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

/** One page of everything worth checking. */
export function healthRoutes(route: UiRoute): void {
  route("GET", "/api/v1/ui/health", async (_req, _url, _p, ctx) => {
    const overview = await withUiStore(ctx, undefined, (store) => scopeOverview(store));
    let indexBytes = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        indexBytes += statSync(paths.indexDb() + suffix).size;
      } catch {}
    }
    const { runDoctor } = await import("../../link/doctor");
    const { allHostLinks } = await import("../../hosts/index");
    const { homeDir } = await import("../../lib/paths");
    const doctor = await runDoctor(await allHostLinks(), ctx.cwd, homeDir());
    const { syncStatus } = await import("../../sync/status");
    let sync: Health["sync"] = null;
    try {
      sync = syncStatus() ?? null;
    } catch (err) {
      sync = { summary: `unknown (${(err as Error).message})` };
    }
    let inboxCount = 0;
    try {
      inboxCount = (await import("../../inbox/traces")).countTraces();
    } catch {}
    let conflicts = 0;
    let team = 0;
    let budget: Health["budget"] = null;
    try {
      const d = await import("../../serve/sessions");
      conflicts = (await d.listInboxConflicts()).length;
      team = (await d.listInboxTeamProposals()).length;
      budget = (await import("../../distill/budget")).distillBudget(loadConfig());
    } catch {}
    return json<Health>({
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
}
