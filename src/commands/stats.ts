import { defineCommand } from "citty";
import { usePass } from "../capture/use-pass";
import { loadConfig } from "../config/config";
import { collectStats, STATS_DEFAULT_DAYS, type Stats } from "../distill/stats";
import { handle } from "../lib/handle";
import { isTerminal, writeOut } from "../lib/output";
import { thousands as n } from "../lib/time";
import { closeStore, isTeamKey, UNUSED_MIN } from "../store";
import { withExamples } from "./_run";
import { cliStore, jsonArg, parseSince, plural, printJson, short } from "./_shared";

const BARS = "▁▂▃▄▅▆▇█";

/** One character per value, scaled to the largest (all zero: a flat baseline). */
export function sparkline(values: number[]): string {
  const max = Math.max(0, ...values);
  return values
    .map((v) =>
      max <= 0 || v <= 0 ? BARS[0] : BARS[Math.min(BARS.length - 1, Math.ceil((v / max) * (BARS.length - 1)))],
    )
    .join("");
}

function render(s: Stats, tty: boolean): string {
  const out: string[] = [];
  const spark = (values: number[]) => (tty && values.length > 1 ? `  ${sparkline(values)}` : "");
  out.push(`Since ${s.since} (${plural(s.days.length, "day")})`, "");

  const d = s.distill;
  const est = d.estimated_tokens ? ` (${n(d.estimated_tokens)} estimated)` : "";
  out.push(
    `Distilling: ${n(d.tokens)} tokens in ${plural(d.calls, "call")}, ${n(d.input_tokens)} in / ${n(d.output_tokens)} out${est}${spark(d.per_day)}`,
  );
  for (const m of d.by_model)
    out.push(
      `  ${m.model}: ${n(m.input_tokens + m.output_tokens)} tokens, ${plural(m.calls, "call")}${m.estimated_tokens ? ` (${n(m.estimated_tokens)} estimated)` : ""}${m.cost_usd !== undefined ? `, $${m.cost_usd.toFixed(4)} as reported` : ""}`,
    );
  out.push(`  model: ${d.model.label ?? "none"} (${d.model.why})`);
  out.push(`  budget: ${d.budget.summary}`);
  out.push(
    `Sessions: ${n(s.sessions.distilled)} distilled, ${n(s.sessions.pending)} pending, ${n(s.sessions.failed)} failed`,
    "",
  );

  const h = s.hooks;
  out.push(
    `Hooks injected: about ${n(h.tokens)} tokens (${n(h.chars)} characters) in ${plural(h.events, "event")}, ${plural(h.deliveries, "entry body", "entry bodies")}${spark(h.per_day)}`,
  );
  for (const x of h.by_host) out.push(`  ${x.host}: about ${n(x.tokens)} tokens, ${plural(x.events, "event")}`);
  if (h.by_event.length)
    out.push(`  by event: ${h.by_event.map((e) => `${e.event} ${n(e.tokens)}`).join(", ")} (tokens, about)`);
  if (!h.counted_since) out.push("  (nothing counted yet: the hooks count what they inject from this version on)");
  out.push("");

  const e = s.entries;
  const sources = Object.entries(e.added)
    .map(([k, v]) => `${k} ${n(v)}`)
    .join(", ");
  out.push(`Entries added: ${n(e.added_total)}${sources ? ` (${sources})` : ""}${spark(e.per_day)}`);
  const nat = s.native;
  if (nat.total || nat.gone) {
    const hosts = Object.entries(nat.by_host)
      .filter(([, v]) => v.total)
      .map(([h, v]) => `${h} ${n(v.total)}`)
      .join(", ");
    out.push(
      `Harvested from the agents' own memory: ${n(nat.total)} (${hosts || "none now"}), ${n(nat.added)} in this window${nat.gone ? `; ${n(nat.gone)} deleted at the source, kept here` : ""}`,
    );
  }
  if (e.most_delivered.length) {
    out.push("Delivered most often:");
    for (const x of e.most_delivered)
      out.push(
        `  ${String(x.deliveries).padStart(5)}  ${handle(x.id)}  ${short(x.title ?? "(entry gone)", 70)}${lane(x.scope)}`,
      );
  }
  const stale = e.never_delivered;
  out.push(
    `Not delivered in ${stale.days} days: ${n(stale.total)} ${stale.total === 1 ? "entry" : "entries"} (candidates to prune${h.counted_since ? `; counting since ${h.counted_since}` : ""})`,
  );
  for (const x of stale.entries)
    out.push(`  ${handle(x.id)}  ${x.created.slice(0, 10)}  ${short(x.title, 70)}${lane(x.scope)}`);
  out.push("", ...renderUse(s.use));
  return `${out.join("\n")}\n`;
}

const pct = (used: number, judged: number) => (judged ? `${Math.round((used / judged) * 100)}%` : "-");

/** Whether the agents used what they were given (all time), per kind and per entry. */
function renderUse(u: Stats["use"]): string[] {
  if (!u.judged)
    return ["Used by the agent: nothing judged yet (finished sessions' transcripts are read in the background)"];
  const out = [
    `Used by the agent: ${n(u.used)} of ${plural(u.judged, "judged delivery", "judged deliveries")} (${pct(u.used, u.judged)})`,
    `  by kind: ${u.by_kind.map((k) => `${k.kind} ${k.used}/${k.judged}`).join(", ")}`,
  ];
  for (const x of u.entries)
    out.push(
      `  ${`${x.used}/${x.judged}`.padStart(7)}  ${handle(x.id)}  ${short(x.title ?? "(entry gone)", 70)}${lane(x.scope)}`,
    );
  if (u.unused.length) {
    out.push(`Delivered ${UNUSED_MIN}+ times, never used (\`coffer list --unused\`; keep, edit or forget):`);
    for (const x of u.unused)
      out.push(`  ${String(x.judged).padStart(5)}  ${handle(x.id)}  ${short(x.title, 70)}${lane(x.scope)}`);
  }
  return out;
}

/** A team lane's entry says so: it came from the repository's .coffer/, not the user's memory. */
const lane = (scope: string | null) => (scope && isTeamKey(scope) ? "  (team)" : "");

export default withExamples(
  defineCommand({
    meta: {
      name: "stats",
      description: "Tokens spent distilling and injected by hooks; entries added, delivered and used",
    },
    args: {
      since: {
        type: "string",
        description: `The window, e.g. ${STATS_DEFAULT_DAYS}d (default), 24h, 4w`,
        valueHint: "7d",
      },
      ...jsonArg,
    },
    async run({ args }) {
      const windowMs = parseSince(args.since ?? `${STATS_DEFAULT_DAYS}d`);
      const store = cliStore();
      try {
        const config = loadConfig();
        usePass(store, config); // finished sessions not judged yet (cheap: no model)
        const stats = collectStats({ config, store, windowMs });
        if (args.json) return printJson(stats);
        writeOut(render(stats, Boolean(isTerminal(1))));
      } finally {
        closeStore(store);
      }
    },
  }),
  ["coffer stats", "coffer stats --since 30d", "coffer stats --json"],
);
