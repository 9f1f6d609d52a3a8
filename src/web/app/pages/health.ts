/** Health: counts, agents (doctor), the store, the audit log. */
import type { Health, HooksSeen } from "../../../serve/api-types";
import { api, bytes, h, session, when } from "../lib";
import { inlineMd } from "../md";
import { dataTable, openEntry, pager } from "../widgets";

/** The proof that a linked host's hooks fire: the last event Coffer received, and this week's injections. */
function hooksSeen(s: HooksSeen | null): (HTMLElement | string)[] | string {
  if (!s) return "—";
  return [
    s.last
      ? h("span", {}, `${s.last.event}, `, when(s.last.at), s.last.project ? ` in ${s.last.project}` : "")
      : h("span", { class: "error" }, s.linked_at ? ["none since linked ", when(s.linked_at)] : "none yet"),
    h("div", { class: "muted" }, `${s.injections_7d} injection${s.injections_7d === 1 ? "" : "s"} in 7 days`),
  ];
}

export async function healthPage(main: HTMLElement): Promise<void> {
  const d = await api<Health>("GET", "/api/v1/ui/health");
  main.replaceChildren(
    h("h1", {}, "Health"),
    h(
      "dl",
      { class: "meta", id: "health-counts" },
      h("dt", {}, "Entries"),
      h("dd", {}, d.counts.entries.toLocaleString()),
      h("dt", {}, "Projects"),
      h("dd", {}, String(d.counts.projects)),
      h("dt", {}, "Inbox"),
      h(
        "dd",
        {},
        h(
          "a",
          { href: "#/inbox" },
          `${d.counts.inbox} trace${d.counts.inbox === 1 ? "" : "s"}, ${d.counts.conflicts ?? 0} contradiction${d.counts.conflicts === 1 ? "" : "s"}, ${d.counts.team ?? 0} team proposal${d.counts.team === 1 ? "" : "s"}`,
        ),
      ),
      h("dt", {}, "Distillation"),
      h(
        "dd",
        { id: "health-budget", class: d.budget?.paused ? "error" : null },
        d.budget ? (d.budget.paused ? `Paused: ${d.budget.summary.replace(/^paused: /, "")}` : d.budget.summary) : "—",
      ),
      h("dt", {}, "Index"),
      h("dd", {}, `${bytes(d.index.bytes)} (${d.doctor.store.index})`),
      h("dt", {}, "Model"),
      h("dd", { id: "health-model" }, `${d.doctor.store.model ?? "none"} (${d.doctor.store.model_why})`),
      h("dt", {}, "Sync"),
      h("dd", {}, d.sync?.summary ?? "—"),
      h("dt", {}, "Binary"),
      h("dd", {}, h("code", {}, d.doctor.binary)),
      h("dt", {}, "Version"),
      h("dd", {}, session?.version ?? ""),
    ),
    h("h2", {}, "Agents"),
    h(
      "table",
      { id: "doctor-table" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Agent", "Status", "Hook events", "Last hook seen", "MCP", "Problems and fixes"].map((c) =>
            h("th", { scope: "col" }, c),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        d.doctor.hosts.map((x) =>
          h(
            "tr",
            {},
            h("td", {}, x.host, x.scope === "project" ? " (project)" : ""),
            h("td", {}, x.status),
            h(
              "td",
              {},
              x.events.join(", ") || "—",
              x.missing_events.length ? h("div", { class: "error" }, `missing: ${x.missing_events.join(", ")}`) : null,
            ),
            h("td", { class: "hooks-seen" }, hooksSeen(x.hooks_seen)),
            h("td", {}, x.mcp ? "registered" : "—"),
            h(
              "td",
              {},
              x.problems.length || x.warnings.length
                ? [
                    ...x.problems.map((p) =>
                      h("div", {}, h("span", { class: "error" }, p.message), " — fix: ", h("code", {}, p.fix)),
                    ),
                    ...x.warnings.map((w) =>
                      h(
                        "div",
                        { class: "warning" },
                        h("span", { class: "error" }, `Warning: ${w.message}`),
                        " — ",
                        w.fix,
                      ),
                    ),
                  ]
                : x.status === "not linked"
                  ? h("span", {}, "link with ", h("code", {}, `coffer link ${x.host}`))
                  : h("span", { class: "ok" }, "ok"),
              x.notes.map((n) => h("div", { class: "muted" }, n)),
            ),
          ),
        ),
      ),
    ),
    d.doctor.store.notes.length
      ? h(
          "ul",
          {},
          d.doctor.store.notes.map((n) => h("li", {}, n)),
        )
      : "",
    h("h2", {}, "Audit log (newest first)"),
    d.audit.length ? auditLog(d.audit) : h("p", {}, "Nothing audited yet."),
  );
}

const AUDIT_PAGE = 20;

/** The audit events, AUDIT_PAGE at a time, with Newer/Older (paged here: the server sends the newest 200). */
function auditLog(audit: Record<string, unknown>[]): HTMLElement {
  const box = h("section", { id: "audit-log", "aria-label": "Audit log" });
  const show = (page: number) => {
    const pages = Math.ceil(audit.length / AUDIT_PAGE);
    const rows = audit.slice(page * AUDIT_PAGE, (page + 1) * AUDIT_PAGE);
    box.replaceChildren(
      dataTable(
        "audit-table",
        ["When", "Event", "Actor", "Details"],
        rows.map((a) => {
          const { at, event, actor, entries, ...rest } = a;
          const named = (entries ?? {}) as Record<string, { handle: string; title: string | null; trashed: boolean }>;
          return [
            when(String(at ?? "")),
            String(event ?? ""),
            String(actor ?? ""),
            h(
              "span",
              { class: "audit-details" },
              Object.entries(rest).map(([k, v]) => {
                const e = typeof v === "string" ? named[v] : undefined;
                if (!e) return h("span", {}, `${k}: ${Array.isArray(v) ? v.join(", ") : String(v)} `);
                // An entry: its title (opens it while it is there) and handle, never the raw id.
                return h(
                  "span",
                  { "data-entry": v as string },
                  `${k}: `,
                  e.title === null
                    ? h("span", { class: "muted" }, "(gone)")
                    : e.trashed
                      ? [inlineMd(e.title), h("span", { class: "muted" }, " (in the trash)")]
                      : h(
                          "button",
                          { type: "button", class: "link", onclick: () => openEntry(v as string, []) },
                          inlineMd(e.title),
                        ),
                  " ",
                  h("code", { class: "muted handle", title: v as string }, e.handle),
                  " ",
                );
              }),
            ),
          ];
        }),
        4,
      ),
      pager(page, pages, audit.length, AUDIT_PAGE, show, "audit") ?? "",
    );
    // Keep the keyboard where it was: on the pager (the button just pressed may now be disabled).
    if (box.isConnected) box.querySelector<HTMLButtonElement>("#audit-pager button:not([disabled])")?.focus();
  };
  show(0);
  return box;
}
