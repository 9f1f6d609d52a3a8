/** Entries: server-side search and filters, paged list or timeline, open/edit/add, delete with undo, bulk actions. */

import { handle } from "../../../lib/handle";
import type { BulkResult, EntriesPage, EntryRow, Facets } from "../../../serve/api-types";
import {
  api,
  errorBox,
  h,
  loadScopes,
  routeParams,
  type Scope,
  scopeSelect,
  session,
  setRouteParams,
  toast,
  when,
  whenSession,
} from "../lib";
import { inlineMd } from "../md";
import { openEditor, openEntry, supersededBadge, tags, uncommittedBadge } from "../widgets";

type Row = EntryRow;

const PAGE = 50;
const FILTERS = [
  "scope",
  "q",
  "mode",
  "kind",
  "tag",
  "source",
  "actor",
  "since",
  "until",
  "superseded",
  "view",
  "offset",
] as const;

export async function entriesPage(main: HTMLElement): Promise<void> {
  const p = routeParams();
  const get = (k: string) => p.get(k) ?? "";
  // The scopes and the first page load side by side; the filter suggestions come after the rows.
  const params: Record<string, string> = {};
  for (const k of FILTERS) if (get(k) && k !== "view") params[k] = get(k);
  if (params.scope === undefined) params.scope = "all";
  params.limit = String(PAGE);
  const pageP = api<EntriesPage>("GET", `/api/v1/ui/entries?${new URLSearchParams(params)}`).then(
    (data) => ({ data }),
    (error: unknown) => ({ error }),
  );
  const [{ projects, current }] = await Promise.all([loadScopes(), whenSession()]);
  const scope = get("scope") || "all";
  const view = get("view") === "timeline" ? "timeline" : "list";
  const offset = Number(get("offset")) || 0;

  const form = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Search entries" },
    scopeSelect("f-scope", "Scope", projects, scope, { all: true }),
    h(
      "label",
      { for: "f-q" },
      "Search",
      h("input", {
        id: "f-q",
        name: "q",
        type: "search",
        value: get("q"),
        placeholder: "words, or /regex/ in grep mode",
      }),
    ),
    h(
      "label",
      { for: "f-mode" },
      "Mode",
      h(
        "select",
        { id: "f-mode", name: "mode" },
        h("option", { value: "keyword", selected: get("mode") !== "grep" }, "Keyword"),
        h("option", { value: "grep", selected: get("mode") === "grep" }, "Grep (lines)"),
      ),
    ),
    h(
      "label",
      { for: "f-kind" },
      "Kind",
      h(
        "select",
        { id: "f-kind", name: "kind" },
        h("option", { value: "" }, "Any"),
        (session?.kinds ?? []).map((k) => h("option", { value: k, selected: get("kind") === k }, k)),
      ),
    ),
    h(
      "label",
      { for: "f-tag" },
      "Tag",
      h("input", { id: "f-tag", name: "tag", value: get("tag"), list: "tag-list", size: 12 }),
    ),
    h(
      "label",
      { for: "f-source" },
      "Source",
      h(
        "select",
        { id: "f-source", name: "source" },
        h("option", { value: "" }, "Any"),
        (session?.sources ?? []).map((s) => h("option", { value: s, selected: get("source") === s }, s)),
      ),
    ),
    h(
      "label",
      { for: "f-actor" },
      "Actor",
      h("input", {
        id: "f-actor",
        name: "actor",
        value: get("actor"),
        list: "actor-list",
        size: 12,
        placeholder: "user, agent, agent:claude",
      }),
    ),
    h(
      "span",
      { class: "range" },
      h(
        "label",
        { for: "f-since" },
        "Updated from",
        h("input", { id: "f-since", name: "since", type: "date", value: get("since") }),
      ),
      h(
        "label",
        { for: "f-until" },
        "to",
        h("input", { id: "f-until", name: "until", type: "date", value: get("until") }),
      ),
    ),
    h(
      "label",
      { for: "f-superseded", class: "check" },
      h("input", {
        id: "f-superseded",
        name: "superseded",
        type: "checkbox",
        value: "1",
        checked: get("superseded") === "1",
      }),
      "Show superseded",
    ),
    h(
      "label",
      { for: "f-view" },
      "View",
      h(
        "select",
        { id: "f-view", name: "view" },
        h("option", { value: "list", selected: view === "list" }, "List"),
        h("option", { value: "timeline", selected: view === "timeline" }, "Timeline"),
      ),
    ),
    h("button", { type: "submit" }, "Search"),
    h(
      "button",
      {
        type: "button",
        class: "ghost",
        onclick: () => openEditor(undefined, projects, scope === "all" ? (current ?? "global") : scope),
      },
      "New entry",
    ),
    h("datalist", { id: "tag-list" }),
    h("datalist", { id: "actor-list" }),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const next: Record<string, string> = {};
    for (const k of FILTERS) {
      const v = data.get(k === "scope" ? "f-scope" : k);
      if (typeof v === "string" && v) next[k] = v;
    }
    if (next.mode === "keyword") delete next.mode;
    if (next.view === "list") delete next.view;
    if (next.scope === "all") delete next.scope;
    setRouteParams("entries", next);
  });

  const status = h("p", { class: "muted", id: "result-status", role: "status" }, "Searching…");
  const results = h("div", { id: "results" });
  main.replaceChildren(h("h1", {}, "Entries"), form, status, results);

  const loaded = await pageP;
  if ("error" in loaded) {
    status.replaceChildren(errorBox(loaded.error));
    return;
  }
  const data = loaded.data;
  const from = data.total ? offset + 1 : 0;
  const to = Math.min(offset + data.entries.length, data.total);
  status.textContent = `${data.total.toLocaleString()} entr${data.total === 1 ? "y" : "ies"}${data.total ? `, showing ${from}–${to}` : ""} (${data.took_ms} ms on the server)${get("superseded") === "1" && get("q") && get("mode") !== "grep" ? ". Superseded entries are kept out of the keyword index: Grep mode finds them" : ""}`;

  const selected = new Set<string>();
  const bulk = bulkBar(selected, projects, () => entriesPage(main));
  const pager = h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    h(
      "button",
      {
        type: "button",
        class: "ghost",
        disabled: offset === 0,
        onclick: () =>
          setRouteParams("entries", { ...currentParams(), offset: Math.max(0, offset - PAGE) || undefined }),
      },
      "Previous",
    ),
    h("span", {}, `Page ${Math.floor(offset / PAGE) + 1} of ${Math.max(1, Math.ceil(data.total / PAGE))}`),
    h(
      "button",
      {
        type: "button",
        class: "ghost",
        disabled: offset + PAGE >= data.total,
        onclick: () => setRouteParams("entries", { ...currentParams(), offset: offset + PAGE }),
      },
      "Next",
    ),
  );
  if (projects.every((s) => s.entries === 0)) {
    // An empty store: say how to start rather than "No entries match."
    results.replaceChildren(firstRun(() => openEditor(undefined, projects, current ?? "global")));
    return;
  }
  const body =
    view === "timeline" ? timeline(data.entries, projects) : table(data.entries, selected, bulk.update, projects);
  results.replaceChildren(bulk.el, body, data.total > PAGE ? pager : "");
  (window as unknown as { __cofferRendered?: number }).__cofferRendered = performance.now();
  performance.mark("coffer-entries-rendered");
  void suggestions(params.scope);
}

/** What an empty store shows: the three ways memory gets in. */
function firstRun(add: () => void): HTMLElement {
  return h(
    "section",
    { id: "first-run", class: "panel", "aria-labelledby": "first-run-title" },
    h("h2", { id: "first-run-title" }, "Nothing remembered yet"),
    h(
      "ol",
      {},
      h(
        "li",
        {},
        h("strong", {}, "Remember something: "),
        h("button", { type: "button", class: "link", onclick: add }, "add an entry here"),
        ", or in a repository run ",
        h("code", {}, 'coffer remember "We deploy with make release" --kind convention'),
        ".",
      ),
      h(
        "li",
        {},
        h("strong", {}, "Link an agent: "),
        h("code", {}, "coffer link claude"),
        " (or codex, gemini, cursor, windsurf, opencode; ",
        h("code", {}, "coffer link --all"),
        " for every one installed). It then gets your rules and memory, and remembers through MCP.",
      ),
      h(
        "li",
        {},
        h("strong", {}, "Bring in what you have: "),
        h("code", {}, "coffer import native"),
        " (what the agents saved themselves), ",
        h("code", {}, "coffer import claude-mem"),
        ", ",
        h("code", {}, "coffer import engram <file>"),
        ".",
      ),
    ),
  );
}

/** Tags and actors in use, for the filter inputs' suggestion lists. */
async function suggestions(scope: string | undefined): Promise<void> {
  try {
    const f = await api<Facets>("GET", `/api/v1/ui/facets?scope=${encodeURIComponent(scope ?? "all")}`);
    document.getElementById("tag-list")?.replaceChildren(...f.tags.map((t) => h("option", { value: t })));
    document
      .getElementById("actor-list")
      ?.replaceChildren(...["user", "agent", ...f.actors].map((t) => h("option", { value: t })));
  } catch {}
}

function currentParams(): Record<string, string> {
  return Object.fromEntries(routeParams());
}

/** "superseded by <id>": the entry a newer one replaced, with a link to the newer one. */

function table(rows: Row[], selected: Set<string>, onSelect: () => void, scopes: Scope[]): HTMLElement {
  if (!rows.length) return h("p", {}, "No entries match.");
  const all = h("input", {
    type: "checkbox",
    id: "select-all",
    "aria-label": "Select all entries on this page",
    onchange: (ev: Event) => {
      const on = (ev.target as HTMLInputElement).checked;
      for (const box of document.querySelectorAll<HTMLInputElement>("input[data-id]")) {
        box.checked = on;
        if (on) selected.add(box.dataset.id!);
        else selected.delete(box.dataset.id!);
      }
      onSelect();
    },
  });
  return h(
    "table",
    { id: "entries-table" },
    h("caption", { class: "muted caption" }, "Entries, newest first (best match first for a keyword search)"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, all),
        h("th", { scope: "col" }, "Title"),
        h("th", { scope: "col" }, "Kind"),
        h("th", { scope: "col" }, "Scope"),
        h("th", { scope: "col" }, "Tags"),
        h("th", { scope: "col" }, "By"),
        h("th", { scope: "col" }, "Updated"),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((r) =>
        h(
          "tr",
          { "data-row": r.id, class: r.status === "superseded" ? "superseded" : null },
          h(
            "td",
            {},
            h("input", {
              type: "checkbox",
              "data-id": r.id,
              "aria-label": `Select ${r.title}`,
              onchange: (ev: Event) => {
                if ((ev.target as HTMLInputElement).checked) selected.add(r.id);
                else selected.delete(r.id);
                onSelect();
              },
            }),
          ),
          h(
            "td",
            {},
            supersededBadge(r, scopes),
            h(
              "button",
              { type: "button", class: "link title", onclick: () => openEntry(r.id, scopes) },
              inlineMd(r.title),
            ),
            " ",
            h("code", { class: "muted handle", title: r.id }, handle(r.id)),
            r.lines?.length
              ? h(
                  "div",
                  { class: "snippet" },
                  r.lines.map((l) => h("div", {}, h("code", {}, `${l.line}: ${l.text}`))),
                )
              : snippet(r),
          ),
          h("td", { class: "kind" }, r.kind),
          h(
            "td",
            {},
            r.scope === "global" ? "Global" : r.scope_label,
            uncommittedBadge(r) ? [" ", uncommittedBadge(r)] : null,
          ),
          h("td", {}, tags(r.tags)),
          h("td", {}, `${r.actor} · ${r.source}`),
          h("td", {}, h("time", { datetime: r.updated }, when(r.updated))),
        ),
      ),
    ),
  );
}

/**
 * The body's opening under the title, unless it only says the title again: a one-line entry's body
 * is its title, and a long title's body goes on where the title's "…" stopped.
 */
function snippet(r: Row): HTMLElement | null {
  const flat = (t: string) => t.replace(/\s+/g, " ").trim();
  const body = flat(r.snippet);
  const title = flat(r.title);
  const head = title.endsWith("…") ? title.slice(0, -1).trimEnd() : title;
  const rest = body === title ? "" : head && body.startsWith(head) ? `…${body.slice(head.length)}` : body;
  if (!rest || rest === "…") return null;
  return h("div", { class: "snippet" }, inlineMd(rest.length > 160 ? `${rest.slice(0, 160)}…` : rest));
}

function timeline(rows: Row[], scopes: Scope[]): HTMLElement {
  if (!rows.length) return h("p", {}, "No entries match.");
  const days = new Map<string, Row[]>();
  for (const r of rows) {
    const day = r.updated.slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), r]);
  }
  return h(
    "div",
    { class: "timeline" },
    [...days.entries()].map(([day, list]) =>
      h(
        "section",
        { "aria-label": day },
        h("h2", {}, new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { dateStyle: "full", timeZone: "UTC" })),
        h(
          "ol",
          {},
          list.map((r) =>
            h(
              "li",
              {},
              h("time", { datetime: r.updated }, r.updated.slice(11, 16)),
              h("span", { class: "kind" }, r.kind),
              h("button", { type: "button", class: "link", onclick: () => openEntry(r.id, scopes) }, inlineMd(r.title)),
              supersededBadge(r, scopes),
              h("span", { class: "muted" }, r.scope === "global" ? "Global" : r.scope_label),
              uncommittedBadge(r),
            ),
          ),
        ),
      ),
    ),
  );
}

function bulkBar(selected: Set<string>, scopes: Scope[], reload: () => void): { el: HTMLElement; update: () => void } {
  const count = h("strong", { id: "bulk-count" }, "0 selected");
  const moveTo = scopeSelect("bulk-to", "Move to", scopes, "global");
  const addTags = h("input", { id: "bulk-add", size: 12, placeholder: "tag, tag" });
  const removeTags = h("input", { id: "bulk-remove", size: 12, placeholder: "tag" });
  const run = async (action: "delete" | "move" | "retag") => {
    const ids = [...selected];
    if (!ids.length) return;
    const split = (s: string) =>
      s
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
    try {
      const res = await api<BulkResult>("POST", "/api/v1/ui/bulk", {
        ids,
        action,
        to: action === "move" ? (moveTo.querySelector("select") as HTMLSelectElement).value : undefined,
        add: action === "retag" ? split(addTags.value) : undefined,
        remove: action === "retag" ? split(removeTags.value) : undefined,
      });
      const failed = res.results.filter((r) => !r.ok);
      const done = res.results.length - failed.length;
      const verb = action === "delete" ? "Deleted" : action === "move" ? "Moved" : "Retagged";
      const msg = `${verb} ${done} entr${done === 1 ? "y" : "ies"}${failed.length ? `; ${failed.length} failed: ${failed[0]!.error}` : ""}`;
      toast(
        msg,
        action === "delete" && done
          ? {
              label: "Undo",
              run: async () => {
                for (const r of res.results.filter((x) => x.ok))
                  await api("POST", `/api/v1/ui/entries/${r.id}/restore`, {});
                toast(`Restored ${done} entr${done === 1 ? "y" : "ies"}`);
                reload();
              },
            }
          : undefined,
      );
      reload();
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err));
    }
  };
  const el = h(
    "div",
    { class: "panel bulk row", id: "bulk", hidden: true, role: "region", "aria-label": "Bulk actions" },
    count,
    h("button", { type: "button", class: "danger", onclick: () => run("delete") }, "Delete selected"),
    moveTo,
    h("button", { type: "button", class: "ghost", onclick: () => run("move") }, "Move selected"),
    h("label", { for: "bulk-add" }, "Add tags", addTags),
    h("label", { for: "bulk-remove" }, "Remove tags", removeTags),
    h("button", { type: "button", class: "ghost", onclick: () => run("retag") }, "Retag selected"),
  );
  return {
    el,
    update: () => {
      el.hidden = selected.size === 0;
      count.textContent = `${selected.size} selected`;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// One entry: view, edit, add, delete
