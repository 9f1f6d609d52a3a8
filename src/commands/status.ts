import { defineCommand } from "citty";
import { writeOut } from "../lib/output";
import { agoText, nowMs } from "../lib/time";
import { readLinkState } from "../link/state";
import { lastHookEvents, type Store, storeStatus } from "../store";
import { withExamples } from "./_run";
import { cliStore, jsonArg, plural, printJson } from "./_shared";

function size(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

type HooksFiring = {
  host: string;
  linked_at: string | null;
  last: { event: string; at: string; project: string | null } | null;
};

/**
 * Proof that the hooks fire, as doctor gives it: for each linked host (and any host that sent one),
 * the last hook event Coffer received.
 */
function hooksFiring(store: Store): HooksFiring[] {
  const linked = new Map<string, string>();
  for (const [key, at] of Object.entries(readLinkState().linked_at ?? {})) {
    const host = key.split("@")[0]!;
    if (!linked.has(host) || at > linked.get(host)!) linked.set(host, at);
  }
  const last = new Map(lastHookEvents(store).map((e) => [e.host, e]));
  const hosts = [...new Set([...linked.keys(), ...last.keys()])].sort();
  return hosts.map((host) => {
    const e = last.get(host);
    return {
      host,
      linked_at: linked.get(host) ?? null,
      last: e
        ? { event: e.event, at: new Date(e.at_ms).toISOString().replace(/\.\d{3}Z$/, "Z"), project: e.project }
        : null,
    };
  });
}

function hooksSummary(hooks: HooksFiring[]): string {
  if (!hooks.length) return "no agent linked (coffer link claude, codex, gemini, ...)";
  const now = nowMs();
  return hooks
    .map((h) =>
      h.last
        ? `${h.host} last fired ${h.last.event} ${agoText(now - Date.parse(h.last.at))}`
        : `${h.host} none yet${h.linked_at ? ` (linked ${agoText(now - Date.parse(h.linked_at))}; coffer doctor says why)` : ""}`,
    )
    .join("; ");
}

export default withExamples(
  defineCommand({
    meta: { name: "status", description: "Counts, sizes and last activity per scope" },
    args: { ...jsonArg },
    async run({ args }) {
      // Folders only: counts move with added and removed files, which the folders' mtimes show; an
      // edit in place reaches the sizes with the next search or walk.
      const store = cliStore({ freshness: "shallow" });
      const status = storeStatus(store);
      const current = store.project
        ? {
            id: store.project.id,
            label: store.project.label,
            branch: store.project.branch ?? null,
            origin: store.project.origin ?? null,
          }
        : null;
      const sync = await import("../sync/status").then((m) => m.syncStatus()).catch(() => undefined);
      const distill = await Promise.all([import("../distill/budget"), import("../config/config")])
        .then(([b, c]) => b.distillBudget(c.loadConfig()))
        .catch(() => undefined);
      const sweep = await Promise.all([import("../capture/background"), import("../config/config")])
        .then(([b, c]) => b.sweepState(c.loadConfig()))
        .catch(() => undefined);
      // Sessions the sweep gave up on (their failed tries): never left to look like "not yet".
      const skipped = await import("../distill/ledger")
        .then((m) => m.givenUpSessions().map((g) => ({ ...g, why: m.givenUpText(g) })))
        .catch(() => []);
      const hooks = (() => {
        try {
          return hooksFiring(store);
        } catch {
          return undefined; // an unreadable index or link state is doctor's to report
        }
      })();
      if (args.json)
        return printJson({
          ...status,
          project: current,
          ...(hooks ? { hooks } : {}),
          ...(sync ? { sync } : {}),
          ...(distill ? { distill } : {}),
          ...(sweep ? { sweep } : {}),
          skipped_sessions: skipped,
        });
      const out: string[] = [`Coffer home: ${status.home}`];
      out.push(
        current
          ? `This directory: project ${current.label} (${current.id})${current.branch ? ` on ${current.branch}` : ""}`
          : "This directory: no project (global only)",
      );
      out.push("");
      for (const s of status.scopes) {
        out.push(
          `${s.label === s.scope || s.scope === "team" ? s.label : `${s.label} (${s.scope})`}: ${plural(s.entries, "entry", "entries")}, ${plural(s.rules, "rule")}, ${size(s.bytes)}${s.last_updated ? `, last ${s.last_updated}` : ""}`,
        );
      }
      out.push(
        "",
        `Index: ${plural(status.index.entries, "entry", "entries")}, ${size(status.index.bytes)} (${status.index.file})`,
      );
      if (hooks) out.push(`Hooks: ${hooksSummary(hooks)}`);
      if (sync) out.push(`Sync: ${sync.summary}`);
      if (distill) out.push(`Distill: ${distill.model ? distill.summary : "no model configured"}`);
      if (sweep) out.push(`Sweep: ${sweep.summary}`);
      if (skipped.length)
        out.push(
          `Skipped: ${plural(skipped.length, "session")} the sweep gave up on after failed tries (coffer distill list says why; coffer distill run <session> --force tries again)`,
        );
      writeOut(`${out.join("\n")}\n`);
    },
  }),
  ["coffer status", "coffer status --json"],
);
