/** Widgets shared by the pages: the entry dialog (view, edit, add, delete), badges, tags, tables, charts, the budget box. */

import { handle } from "../../lib/handle";
import type { Budget, EntryDetail, EntryJson, EntrySaved, Promoted } from "../../serve/api-types";
import { api, h, type Scope, scopeSelect, session, toast, when } from "./lib";
import { blockMd, inlineMd } from "./md";

/** An entry as the dialog shows it: the whole entry, with its deliveries, use and neighbours when they were asked for. */
export type Full = EntryJson & Partial<EntryDetail>;

/** "superseded by <id>": the entry a newer one replaced, with a link to the newer one. */
export function supersededBadge(
  r: { status?: string; superseded_by?: string | null },
  scopes: Scope[],
): HTMLElement | null {
  if (r.status !== "superseded") return null;
  const by = r.superseded_by;
  return h(
    "span",
    { class: "badge", "data-superseded-by": by ?? "" },
    "superseded",
    by
      ? [
          " by ",
          h(
            "button",
            {
              type: "button",
              class: "link",
              title: "Open the entry that supersedes this one",
              onclick: () => openEntry(by, scopes),
            },
            h("code", { title: by }, handle(by)),
          ),
        ]
      : null,
  );
}

/** A team lane's key (`team` + 26 characters): the repository's committed `.coffer/`. */
const isTeamScope = (scope: string) => /^team[0-9A-Z]{26}$/.test(scope);

/** "not committed" on a team entry git would call untracked or modified: teammates do not have it yet. */
export function uncommittedBadge(r: { uncommitted?: boolean }): HTMLElement | null {
  return r.uncommitted
    ? h(
        "span",
        { class: "badge", "data-uncommitted": "1", title: "Untracked or modified in git: commit it to share it" },
        "not committed",
      )
    : null;
}

async function promoteEntry(e: Full): Promise<void> {
  try {
    const r = await api<Promoted>("POST", `/api/v1/ui/entries/${encodeURIComponent(e.id)}/promote`, {});
    toast(
      r.status === "duplicate"
        ? `The team lane already says this (${r.file})`
        : `Promoted “${e.title}” to the team lane: ${r.file} (commit it to share it)`,
    );
  } catch (err) {
    toast(err instanceof Error ? err.message : String(err));
  }
  rerender();
}

export function tags(list: string[]): HTMLElement[] {
  return list.map((t) => h("span", { class: "tag" }, t));
}

// One entry: view, edit, add, delete

function dialog(title: string | (Node | string)[], ...content: (Node | string)[]): HTMLDialogElement {
  document.getElementById("entry-dialog")?.remove();
  const d = h(
    "dialog",
    { id: "entry-dialog", "aria-labelledby": "dialog-title" },
    h("h2", { id: "dialog-title" }, title),
    ...content,
  );
  d.addEventListener("close", () => d.remove());
  document.body.appendChild(d);
  d.showModal();
  return d;
}

export async function openEntry(id: string, scopes: Scope[]): Promise<void> {
  let e: Full;
  try {
    e = await api<EntryDetail>("GET", `/api/v1/ui/entries/${encodeURIComponent(id)}`);
  } catch (err) {
    toast(err instanceof Error ? err.message : String(err));
    return;
  }
  const d = dialog(
    inlineMd(e.title),
    h(
      "dl",
      { class: "meta" },
      h("dt", {}, "Id"),
      h("dd", {}, h("code", { title: e.id }, handle(e.id)), h("span", { class: "muted" }, ` (${e.id})`)),
      h("dt", {}, "Kind"),
      h("dd", {}, e.kind),
      e.status === "superseded"
        ? [
            h("dt", {}, "Status"),
            h("dd", { id: "entry-status" }, supersededBadge(e, scopes), "never routed or injected"),
          ]
        : null,
      h("dt", {}, "Scope"),
      h(
        "dd",
        { id: "entry-scope" },
        e.scope === "global" ? "Global" : `${e.scope_label} (${e.scope})`,
        uncommittedBadge(e) ? [" ", uncommittedBadge(e)] : null,
      ),
      h("dt", {}, "Tags"),
      h("dd", {}, e.tags.length ? tags(e.tags) : "—"),
      e.keywords?.length ? [h("dt", {}, "Keywords"), h("dd", {}, tags(e.keywords))] : null,
      h("dt", {}, "Applies to"),
      h("dd", {}, e.applies_to.join(", ") || "—"),
      h("dt", {}, "By"),
      h("dd", {}, `${e.actor} via ${e.source}`),
      h("dt", {}, "Created"),
      h("dd", {}, when(e.created)),
      h("dt", {}, "Updated"),
      h("dd", {}, when(e.updated)),
      e.origin_session ? [h("dt", {}, "From session"), h("dd", {}, e.origin_session)] : null,
      e.imported_from ? [h("dt", {}, "Imported from"), h("dd", {}, e.imported_from)] : null,
      h("dt", {}, "File"),
      h("dd", {}, h("code", {}, e.file)),
      h("dt", {}, "Delivered to"),
      h(
        "dd",
        { id: "entry-delivered" },
        e.delivered_to?.length
          ? e.delivered_to.map((d) => h("div", {}, `${d.host} session `, h("code", {}, d.session), ` · ${when(d.at)}`))
          : "no session yet (per the hooks' records of the last 7 days)",
      ),
      h("dt", {}, "Used by the agent"),
      h("dd", { id: "entry-use" }, e.use?.text ?? "—"),
      h("dt", {}, "Related"),
      h(
        "dd",
        { id: "entry-related" },
        e.related?.length
          ? e.related.map((r) =>
              h(
                "div",
                {},
                h(
                  "button",
                  { type: "button", class: "link", title: "Open this entry", onclick: () => openEntry(r.id, scopes) },
                  h("code", { title: r.id }, handle(r.id)),
                ),
                ` ${r.title} `,
                h("span", { class: "muted", title: "similarity in meaning" }, r.similarity.toFixed(2)),
              ),
            )
          : "none near it in meaning",
      ),
    ),
    h("div", { id: "entry-body", class: "md" }, blockMd(e.text)),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            d.close();
            openEditor(e, scopes, e.scope);
          },
        },
        "Edit",
      ),
      isTeamScope(e.scope) || e.status === "superseded"
        ? null
        : h(
            "button",
            {
              type: "button",
              id: "entry-promote",
              title: "Move it into the repository's .coffer/entries/, to commit and review like code",
              onclick: async () => {
                d.close();
                await promoteEntry(e);
              },
            },
            "Promote to team",
          ),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          onclick: async () => {
            d.close();
            await deleteEntry(e.id, e.title);
          },
        },
        "Delete",
      ),
      h("button", { type: "button", class: "ghost", onclick: () => d.close() }, "Close"),
    ),
  );
}

export async function deleteEntry(id: string, title: string): Promise<void> {
  try {
    await api("DELETE", `/api/v1/ui/entries/${encodeURIComponent(id)}`);
  } catch (err) {
    toast(err instanceof Error ? err.message : String(err));
    return;
  }
  rerender();
  toast(`Deleted “${title}”`, {
    label: "Undo",
    run: async () => {
      try {
        await api("POST", `/api/v1/ui/entries/${encodeURIComponent(id)}/restore`, {});
        toast(`Restored “${title}”`);
      } catch (err) {
        toast(err instanceof Error ? err.message : String(err));
      }
      rerender();
    },
  });
}

function rerender(): void {
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

export function openEditor(e: Full | undefined, scopes: Scope[], scope: string): void {
  const max = session?.body_max ?? 8192;
  const initialScope = e?.scope ?? (scope && scope !== "all" ? scope : "global");
  const err = h("p", { class: "error", role: "alert", id: "editor-error" });
  const text = h("textarea", { id: "ed-text", name: "text", rows: 10, required: true, maxlength: max }, e?.text ?? "");
  const counter = h("span", { class: "muted", id: "ed-count" }, `${(e?.text ?? "").length} / ${max}`);
  text.addEventListener("input", () => {
    counter.textContent = `${text.value.length} / ${max}`;
  });
  const form = h(
    "form",
    { method: "dialog", id: "entry-form" },
    e
      ? h("p", { class: "muted" }, `Scope: ${e.scope === "global" ? "Global" : e.scope_label}`)
      : scopeSelect("ed-scope", "Scope", scopes, initialScope),
    h(
      "label",
      { for: "ed-title" },
      "Title (optional, at most 120 characters)",
      h("input", { id: "ed-title", name: "title", maxlength: 120, value: e?.title ?? "" }),
    ),
    h(
      "label",
      { for: "ed-kind" },
      "Kind",
      h(
        "select",
        { id: "ed-kind", name: "kind" },
        (session?.kinds ?? ["note"]).map((k) => h("option", { value: k, selected: (e?.kind ?? "note") === k }, k)),
      ),
    ),
    h(
      "label",
      { for: "ed-tags" },
      "Tags (comma-separated)",
      h("input", { id: "ed-tags", name: "tags", value: e?.tags.join(", ") ?? "" }),
    ),
    h(
      "label",
      { for: "ed-keywords" },
      "Keywords (other words someone would ask with; at most 8, comma-separated)",
      h("input", { id: "ed-keywords", name: "keywords", value: e?.keywords?.join(", ") ?? "" }),
    ),
    h(
      "label",
      { for: "ed-applies" },
      "Applies to (globs relative to the project root, comma-separated)",
      h("input", { id: "ed-applies", name: "applies_to", value: e?.applies_to.join(", ") ?? "" }),
    ),
    h("label", { for: "ed-text" }, "Text", text),
    counter,
    err,
    h(
      "div",
      { class: "row" },
      h("button", { type: "submit", value: "save" }, e ? "Save changes" : "Add entry"),
      h("button", { type: "button", class: "ghost", onclick: () => d.close() }, "Cancel"),
    ),
  );
  const d = dialog(e ? `Edit “${e.title}”` : "New entry", form);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const list = (s: string) =>
      s
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
    const fd = new FormData(form);
    const body = {
      title: String(fd.get("title") ?? ""),
      kind: String(fd.get("kind") ?? "note"),
      tags: list(String(fd.get("tags") ?? "")),
      keywords: list(String(fd.get("keywords") ?? "")),
      applies_to: list(String(fd.get("applies_to") ?? "")),
      text: String(fd.get("text") ?? ""),
    };
    if (!body.text.trim()) {
      err.textContent = "Text is empty: give the memory some text.";
      text.focus();
      return;
    }
    if (body.text.trim().length > max) {
      err.textContent = `Text is ${body.text.trim().length} characters; the limit is ${max}.`;
      return;
    }
    try {
      if (e) {
        const res = await api<EntrySaved>("PATCH", `/api/v1/ui/entries/${encodeURIComponent(e.id)}`, body);
        toast(`Saved “${res.entry.title}”${res.scrubbed ? ` (${res.scrubbed})` : ""}`);
      } else {
        const scopeSel = String(fd.get("ed-scope") ?? "global");
        const res = await api<EntrySaved>("POST", "/api/v1/ui/entries", {
          ...body,
          scope: scopeSel,
        });
        toast(
          (res.status === "duplicate"
            ? `Already there: “${res.entry.title}” (refreshed)`
            : `Added “${res.entry.title}”`) + (res.scrubbed ? ` (${res.scrubbed})` : ""),
        );
      }
      d.close();
      rerender();
    } catch (error) {
      err.textContent = error instanceof Error ? error.message : String(error);
    }
  });
  (form.querySelector("input, select, textarea") as HTMLElement | null)?.focus();
}

/** Today's distillation spend against the daily token budget; a paused sweep says so plainly. */
export function budgetBox(b: Budget): HTMLElement {
  const n = (x: number) => x.toLocaleString();
  if (!b.paused)
    return h(
      "p",
      { id: "budget-state", class: "muted" },
      b.budget
        ? `Distillation budget: ${n(b.spent)} of ${n(b.budget)} tokens spent today (${n(b.remaining ?? 0)} left).`
        : `Distillation: ${n(b.spent)} tokens today; no daily budget (distill.daily_token_budget = 0).`,
    );
  return h(
    "section",
    { id: "budget-state", class: "panel warn", role: "status", "aria-label": "Distillation budget" },
    h("h2", {}, "Distillation paused: daily token budget reached"),
    h(
      "dl",
      { class: "meta" },
      h("dt", {}, "Spent today"),
      h("dd", {}, `${n(b.spent)} of ${n(b.budget)} tokens${b.estimated ? ` (${n(b.estimated)} estimated)` : ""}`),
      h("dt", {}, "Next session needs"),
      h("dd", {}, b.needed === null ? "—" : `about ${n(b.needed)} tokens`),
      h("dt", {}, "Stopped"),
      h("dd", {}, when(b.paused_at)),
      h("dt", {}, "Resumes"),
      h("dd", {}, `${when(b.resumes_at)} (the next day, by itself)`),
    ),
    h(
      "p",
      {},
      "Raise ",
      h("code", {}, "distill.daily_token_budget"),
      " to go on today, or distill one session anyway with ",
      h("code", {}, "coffer distill run <session> --force"),
      ".",
    ),
  );
}

const SVG = "http://www.w3.org/2000/svg";

/** A per-day series as a small line chart, described in words for screen readers. */
export function sparkline(values: number[], days: string[], what: string): Element {
  const w = 180;
  const hgt = 36;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? w / (values.length - 1) : w;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(hgt - 2 - (v / max) * (hgt - 4)).toFixed(1)}`);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
  svg.setAttribute("width", String(w));
  svg.setAttribute("height", String(hgt));
  svg.setAttribute("role", "img");
  const total = values.reduce((a, b) => a + b, 0);
  const peak = values.indexOf(Math.max(...values));
  svg.setAttribute(
    "aria-label",
    `${what} per day from ${days[0]} to ${days.at(-1)}: ${total.toLocaleString()} in all${total ? `, most on ${days[peak]} (${values[peak]!.toLocaleString()})` : ""}`,
  );
  svg.classList.add("spark");
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", points.join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "currentColor");
  line.setAttribute("stroke-width", "2");
  svg.appendChild(line);
  return svg;
}

export function dataTable(id: string, head: string[], rows: (string | number | Node)[][], numFrom = 1): HTMLElement {
  return h(
    "table",
    { id, class: "compact" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        head.map((c, i) => h("th", { scope: "col", class: i >= numFrom ? "num" : null }, c)),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((r) =>
        h(
          "tr",
          {},
          r.map((c, i) =>
            h("td", { class: i >= numFrom ? "num" : null }, typeof c === "number" ? c.toLocaleString() : c),
          ),
        ),
      ),
    ),
  );
}

/** "21–40 of 200" with Newer/Older buttons; `go(page)` shows another page. */
export function pager(
  page: number,
  pages: number,
  total: number,
  per: number,
  go: (page: number) => void,
  id: string,
): HTMLElement | null {
  if (pages <= 1) return null;
  const from = page * per + 1;
  const to = Math.min(total, (page + 1) * per);
  return h(
    "nav",
    { class: "row pager", id: `${id}-pager`, "aria-label": "Pages" },
    h("button", { type: "button", class: "ghost", disabled: page === 0, onclick: () => go(page - 1) }, "Newer"),
    h("span", { role: "status" }, `${from}–${to} of ${total}`),
    h("button", { type: "button", class: "ghost", disabled: page >= pages - 1, onclick: () => go(page + 1) }, "Older"),
  );
}
