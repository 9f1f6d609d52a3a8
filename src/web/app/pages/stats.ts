/** Stats: distillation spend, what the hooks injected, entries added and delivered. */

import { handle } from "../../../lib/handle";
import type { Stats } from "../../../serve/api-types";
import { api, h, loadScopes, routeParams, setRouteParams, when } from "../lib";
import { inlineMd } from "../md";
import { budgetBox, dataTable, openEntry, sparkline } from "../widgets";

const pct = (used: number, judged: number) => (judged ? `${Math.round((used / judged) * 100)}%` : "—");

export async function statsPage(main: HTMLElement): Promise<void> {
  // No window asked for: the server's default (the same as `coffer stats`).
  const asked = Number(routeParams().get("days")) || undefined;
  const { projects } = await loadScopes();
  const s = await api<Stats>("GET", `/api/v1/ui/stats${asked ? `?days=${asked}` : ""}`);
  const days = s.window_days;
  const picker = h(
    "form",
    { class: "row", "aria-label": "Window" },
    h(
      "label",
      { for: "stats-days" },
      "Window",
      h(
        "select",
        { id: "stats-days" },
        [7, 30, 90, 365].map((d) => h("option", { value: d, selected: d === days }, `last ${d} days`)),
      ),
    ),
    h("button", { type: "submit", class: "ghost" }, "Show"),
  );
  picker.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setRouteParams("stats", { days: (picker.querySelector("select") as HTMLSelectElement).value });
  });
  const b = s.distill.budget;
  const card = (title: string, value: string, spark: Element, note?: string) =>
    h(
      "section",
      { class: "panel card" },
      h("h2", {}, title),
      h("p", { class: "big" }, value),
      spark,
      note ? h("p", { class: "muted" }, note) : null,
    );
  main.replaceChildren(
    h("h1", {}, "Stats"),
    picker,
    h("p", { class: "muted" }, `${s.since} to ${s.until}`),
    b.paused ? budgetBox(b) : "",
    h(
      "div",
      { class: "cards" },
      card(
        "Distillation",
        `${s.distill.tokens.toLocaleString()} tokens`,
        sparkline(s.distill.per_day, s.days, "Tokens spent distilling"),
        `${s.distill.calls} model call${s.distill.calls === 1 ? "" : "s"}${s.distill.estimated_tokens ? `, ${s.distill.estimated_tokens.toLocaleString()} tokens estimated` : ""}. Today: ${b.spent.toLocaleString()}${b.budget ? ` of ${b.budget.toLocaleString()}` : ""}${b.paused ? " — paused at the daily budget" : ""}.`,
      ),
      card(
        "Injected by hooks",
        `≈ ${s.hooks.tokens.toLocaleString()} tokens`,
        sparkline(s.hooks.per_day, s.days, "Characters injected by hooks"),
        `${s.hooks.events.toLocaleString()} events, ${s.hooks.chars.toLocaleString()} characters, ${s.hooks.deliveries.toLocaleString()} bodies${s.hooks.counted_since ? ` (counted since ${s.hooks.counted_since})` : " (nothing counted yet)"}.`,
      ),
      card(
        "Entries added",
        s.entries.added_total.toLocaleString(),
        sparkline(s.entries.per_day, s.days, "Entries added"),
        Object.entries(s.entries.added)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ") || "none",
      ),
      h(
        "section",
        { class: "panel card" },
        h("h2", {}, "Sessions"),
        h("p", { class: "big" }, `${s.sessions.distilled} distilled`),
        h("p", {}, `${s.sessions.pending} pending, ${s.sessions.failed} failed`),
      ),
    ),
    h("h2", {}, "Distillation by model"),
    s.distill.by_model.length
      ? dataTable(
          "stats-models",
          ["Model", "Calls", "Input tokens", "Output tokens", "Estimated"],
          s.distill.by_model.map((m) => [m.model, m.calls, m.input_tokens, m.output_tokens, m.estimated_tokens]),
        )
      : h("p", {}, "No model calls in this window."),
    h("h2", {}, "Injected by host and event"),
    s.hooks.by_host.length
      ? h(
          "div",
          { class: "row tables" },
          dataTable(
            "stats-hosts",
            ["Host", "Events", "Characters", "≈ Tokens"],
            s.hooks.by_host.map((x) => [x.host, x.events, x.chars, x.tokens]),
          ),
          dataTable(
            "stats-events",
            ["Event", "Events", "Characters", "≈ Tokens"],
            s.hooks.by_event.map((x) => [x.event, x.events, x.chars, x.tokens]),
          ),
        )
      : h("p", {}, "The hooks injected nothing in this window."),
    h("h2", {}, "Delivered most often"),
    s.entries.most_delivered.length
      ? dataTable(
          "stats-most",
          ["Entry", "Deliveries"],
          s.entries.most_delivered.map((d) => [
            h(
              "button",
              { type: "button", class: "link", onclick: () => openEntry(d.id, projects) },
              d.title === null ? handle(d.id) : inlineMd(d.title),
            ),
            d.deliveries,
          ]),
        )
      : h("p", {}, "No deliveries counted in this window."),
    h("h2", {}, `Not delivered in ${s.entries.never_delivered.days} days (${s.entries.never_delivered.total})`),
    s.entries.never_delivered.entries.length
      ? h(
          "ul",
          {},
          s.entries.never_delivered.entries.map((e) =>
            h(
              "li",
              {},
              h(
                "button",
                { type: "button", class: "link", onclick: () => openEntry(e.id, projects) },
                inlineMd(e.title),
              ),
              h("span", { class: "muted" }, ` · created ${when(e.created)}`),
            ),
          ),
        )
      : h("p", {}, "Every older entry was delivered recently: nothing to prune."),
    ...useSection(s, projects),
  );
}

/** Did the agents use what they were given? Per kind and per entry, and what was never used. */
function useSection(s: Stats, projects: Parameters<typeof openEntry>[1]): HTMLElement[] {
  const u = s.use;
  const entry = (id: string, title: string | null) =>
    h(
      "button",
      { type: "button", class: "link", onclick: () => openEntry(id, projects) },
      title === null ? handle(id) : inlineMd(title),
    );
  if (!u?.judged)
    return [
      h("h2", {}, "Used by the agent"),
      h("p", {}, "Nothing judged yet: finished sessions' transcripts are read in the background."),
    ];
  return [
    h("h2", {}, `Used by the agent: ${u.used} of ${u.judged} judged deliveries (${pct(u.used, u.judged)})`),
    dataTable(
      "stats-use-kinds",
      ["Kind", "Judged", "Used", "Share"],
      u.by_kind.map((k) => [k.kind, k.judged, k.used, pct(k.used, k.judged)]),
    ),
    dataTable(
      "stats-use-entries",
      ["Entry", "Judged", "Used"],
      u.entries.map((x) => [entry(x.id, x.title), x.judged, x.used]),
    ),
    ...(u.unused.length
      ? [
          h(
            "div",
            {},
            h("h3", {}, "Delivered often, never used (keep, edit or forget)"),
            h(
              "ul",
              { id: "stats-unused" },
              u.unused.map((x) =>
                h("li", {}, entry(x.id, x.title), h("span", { class: "muted" }, ` · ${x.judged} times`)),
              ),
            ),
          ),
        ]
      : []),
  ];
}
