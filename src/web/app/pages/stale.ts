/** Stale: entries whose files, scripts, targets or dependencies are gone, with Keep, Edit and Forget. */

import { handle } from "../../../lib/handle";
import type { StaleChecked, StaleList } from "../../../serve/api-types";
import { api, h, loadScopes, routeParams, type Scope, scopeSelect, setRouteParams, toast, when } from "../lib";
import { inlineMd } from "../md";
import { deleteEntry, type Full, openEditor, openEntry } from "../widgets";

type StaleRow = StaleList["entries"][number];

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export async function stalePage(main: HTMLElement): Promise<void> {
  const scope = routeParams().get("scope") || "all";
  const [data, { projects }] = await Promise.all([
    api<StaleList>("GET", `/api/v1/ui/stale?scope=${encodeURIComponent(scope)}`),
    loadScopes(),
  ]);
  const rerender = () => stalePage(main);
  const form = h(
    "form",
    { class: "row filters", "aria-label": "Stale entries of" },
    scopeSelect(
      "st-scope",
      "Project",
      projects.filter((s) => s.scope !== "global"),
      scope,
      { all: true },
    ),
    h("button", { type: "submit", class: "ghost" }, "Show"),
    h(
      "button",
      { type: "button", id: "stale-check", onclick: (ev: Event) => checkNow(ev, scope, rerender) },
      "Check now",
    ),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const next = (form.querySelector("select") as HTMLSelectElement).value;
    setRouteParams("stale", { scope: next === "all" ? undefined : next });
  });
  const where = data.checkouts.length
    ? [
        "Checked here: ",
        data.checkouts.map((c, i) => [i ? ", " : "", h("strong", {}, c.scope_label), " (", h("code", {}, c.root), ")"]),
        ".",
      ]
    : "No checkout checked on this machine yet: Check now, or run coffer stale in a repository.";
  main.replaceChildren(
    h("h1", {}, "Stale entries"),
    h(
      "p",
      { class: "muted" },
      "Entries that name a file, a package.json script, a make target or a dependency their project no longer has. Agents still get them, marked “may be stale”, ranked below fresh ones. Keep: the entry still holds (silenced until the file, script or dependency changes again). Edit: fix it. Forget: move it to the trash.",
    ),
    form,
    h(
      "p",
      { class: "muted", id: "stale-status", role: "status" },
      `${plural(data.entries.length, "stale entry", "stale entries")}. `,
      where,
    ),
    data.entries.length
      ? h(
          "ul",
          { id: "stale-list", class: "plain" },
          data.entries.map((e) => staleItem(e, projects, rerender)),
        )
      : h("p", { id: "stale-empty" }, "Nothing stale: every checked entry still matches its project's files."),
  );
}

async function checkNow(ev: Event, scope: string, rerender: () => Promise<void>): Promise<void> {
  const b = ev.target as HTMLButtonElement;
  b.disabled = true;
  b.textContent = "Checking…";
  try {
    const r = await api<StaleChecked>("POST", "/api/v1/ui/stale/check", scope === "all" ? {} : { scope });
    const stale = r.projects.reduce((n, p) => n + p.stale, 0);
    const checked = r.projects.reduce((n, p) => n + p.checked, 0);
    toast(
      r.projects.length
        ? `Checked ${plural(checked, "entry", "entries")} in ${r.projects.map((p) => p.scope_label).join(", ")}: ${stale} stale`
        : "No checkout of this project on this machine to check against: run coffer stale in it.",
    );
  } catch (err) {
    toast(err instanceof Error ? err.message : String(err));
  }
  await rerender();
}

function staleItem(e: StaleRow, scopes: Scope[], rerender: () => Promise<void>): HTMLElement {
  const headingId = `stale-${e.id}`;
  const busy = (ev: Event) => {
    for (const b of (ev.target as HTMLElement).closest("li")?.querySelectorAll("button") ?? []) b.disabled = true;
  };
  return h(
    "li",
    { class: "panel", "data-stale": e.id, "aria-labelledby": headingId },
    h(
      "h3",
      { id: headingId },
      h("button", { type: "button", class: "link title", onclick: () => openEntry(e.id, scopes) }, inlineMd(e.title)),
      " ",
      h("code", { class: "muted handle", title: e.id }, handle(e.id)),
    ),
    h(
      "p",
      { class: "muted" },
      h("span", { class: "kind" }, e.kind),
      ` · ${e.scope === "global" ? "Global" : e.scope_label} · updated ${when(e.updated)}`,
    ),
    h(
      "ul",
      { class: "reasons" },
      e.reasons.map((r) =>
        h(
          "li",
          { "data-anchor": r.anchor },
          r.why,
          r.moved ? [" (maybe moved to ", h("code", {}, r.moved), ")"] : null,
        ),
      ),
    ),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        {
          type: "button",
          "aria-describedby": headingId,
          title: "It still holds: silence these reasons until the file, script or dependency changes again",
          onclick: async (ev: Event) => {
            busy(ev);
            try {
              await api("POST", `/api/v1/ui/stale/${encodeURIComponent(e.id)}/keep`, {});
              toast(`Kept “${e.title}”`);
            } catch (err) {
              toast(err instanceof Error ? err.message : String(err));
            }
            await rerender();
          },
        },
        "Keep",
      ),
      h(
        "button",
        {
          type: "button",
          class: "ghost",
          "aria-describedby": headingId,
          onclick: async () => {
            try {
              const full = await api<Full>("GET", `/api/v1/ui/entries/${encodeURIComponent(e.id)}`);
              openEditor(full, scopes, full.scope);
            } catch (err) {
              toast(err instanceof Error ? err.message : String(err));
            }
          },
        },
        "Edit",
      ),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          "aria-describedby": headingId,
          onclick: async (ev: Event) => {
            busy(ev);
            await deleteEntry(e.id, e.title);
          },
        },
        "Forget",
      ),
    ),
  );
}
