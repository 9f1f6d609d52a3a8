/** Rules: a scope's rules.md, the session-start bundle per host, the handoffs per branch. */
import type { Handoffs, RulesSaved, RulesView } from "../../../serve/api-types";
import {
  api,
  errorBox,
  h,
  loadScopes,
  onPage,
  routeParams,
  scopeLabel,
  scopeSelect,
  setRouteParams,
  toast,
  when,
} from "../lib";

export async function rulesPage(main: HTMLElement): Promise<void> {
  const { projects, current } = await loadScopes();
  const p = routeParams();
  const scope = p.get("scope") || current || "global";
  const cwd = p.get("cwd") ?? "";
  main.replaceChildren(h("h1", {}, "Rules"), h("p", { role: "status" }, "Loading…"));
  type Data = RulesView;
  const load = (dir: string) =>
    api<Data>(
      "GET",
      `/api/v1/ui/rules?scope=${encodeURIComponent(scope)}${dir ? `&cwd=${encodeURIComponent(dir)}` : ""}`,
    );
  let data: Data;
  // A directory that does not exist is the field's problem, not the page's: the page stays, the
  // error shows beside the field, with the typed value kept there to fix.
  let cwdError: string | undefined;
  try {
    try {
      data = await load(cwd);
    } catch (err) {
      if (!cwd) throw err;
      cwdError = err instanceof Error ? err.message : String(err);
      data = { ...(await load("")), cwd: null, bundles: [] };
    }
  } catch (err) {
    main.replaceChildren(h("h1", {}, "Rules"), errorBox(err));
    return;
  }
  const picker = h(
    "form",
    { class: "row", "aria-label": "Pick a scope" },
    scopeSelect("rules-scope", "Scope", projects, scope),
    h("button", { type: "submit", class: "ghost" }, "Show"),
  );
  picker.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setRouteParams("rules", { scope: (picker.querySelector("select") as HTMLSelectElement).value });
  });
  const area = h("textarea", { id: "rules-text", rows: 12, "aria-describedby": "rules-help" }, data.text);
  const saved = h("span", { role: "status", class: "muted", id: "rules-status" });
  const editor = h(
    "form",
    { id: "rules-form" },
    h(
      "label",
      { for: "rules-text", class: "block" },
      "rules.md (bullets of guidance, delivered whole at session start)",
      area,
    ),
    h(
      "p",
      { class: "muted", id: "rules-help" },
      "Project rules come first, then global. An empty file empties the lane.",
    ),
    h("div", { class: "row" }, h("button", { type: "submit" }, "Save rules"), saved),
  );
  editor.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const r = await api<RulesSaved>("PUT", "/api/v1/ui/rules", {
        scope,
        text: area.value,
      });
      saved.textContent = r.changed ? "Saved." : "No change.";
      toast((r.changed ? "Rules saved" : "Rules unchanged") + (r.scrubbed ? ` (${r.scrubbed})` : ""));
      await rulesPage(main);
    } catch (err) {
      saved.replaceChildren(errorBox(err));
    }
  });

  const cwdForm = h(
    "form",
    { class: "row", "aria-label": "Render the session-start bundle" },
    h(
      "label",
      { for: "bundle-cwd" },
      "Working directory to render for",
      h("input", {
        id: "bundle-cwd",
        name: "cwd",
        list: "cwd-list",
        size: 50,
        value: cwdError ? cwd : (data.cwd ?? ""),
        placeholder: "/absolute/path/in/the/project",
        "aria-invalid": cwdError ? "true" : null,
        "aria-describedby": cwdError ? "bundle-cwd-error" : null,
      }),
    ),
    cwdError ? h("p", { class: "error field-error", id: "bundle-cwd-error", role: "alert" }, cwdError) : null,
    h(
      "datalist",
      { id: "cwd-list" },
      data.cwds.map((c) => h("option", { value: c })),
    ),
    h("button", { type: "submit", class: "ghost" }, "Render"),
  );
  cwdForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setRouteParams("rules", { scope, cwd: (cwdForm.querySelector("input") as HTMLInputElement).value });
  });

  const bundles = cwdError
    ? []
    : data.cwd
      ? data.bundles.map((b, i) =>
          h(
            "details",
            { class: "panel", "data-host": b.host, open: i === 0 },
            h(
              "summary",
              {},
              h("strong", {}, b.host),
              ": ",
              h(
                "span",
                { class: b.size > b.limit ? "over" : "" },
                `${b.size.toLocaleString()} of ${b.limit.toLocaleString()} ${b.unit}`,
              ),
              " ",
              h("meter", {
                min: 0,
                max: b.limit,
                value: Math.min(b.size, b.limit),
                "aria-label": `${b.host} size against its cap`,
              }),
            ),
            h("pre", { class: "bundle" }, b.text || "(nothing: this host gets no session-start context here)"),
          ),
        )
      : [
          h(
            "p",
            { class: "muted" },
            "No working directory in this project is known yet (the hooks have not run here). Type one to render the bundle.",
          ),
        ];

  let handoffs: HTMLElement[] = [];
  if (scope !== "global") {
    try {
      const hs = await api<Handoffs>("GET", `/api/v1/ui/handoffs?scope=${encodeURIComponent(scope)}`);
      handoffs = [
        h("h2", { id: "handoffs" }, "Handoffs per branch"),
        hs.handoffs.length
          ? h(
              "div",
              {},
              hs.handoffs.map((x) =>
                h(
                  "section",
                  { class: "panel" },
                  h("h3", {}, x.branch ?? "(detached HEAD)"),
                  h("p", { class: "muted" }, `Saved ${when(x.updated)} · `, h("code", {}, x.file)),
                  h("pre", {}, x.body),
                ),
              ),
            )
          : h("p", { class: "muted" }, "No handoff saved in this project."),
      ];
    } catch (err) {
      handoffs = [errorBox(err)];
    }
  }
  const label = projects.find((s) => s.scope === scope);
  if (!onPage("rules")) return;
  main.replaceChildren(
    h("h1", {}, `Rules: ${label ? scopeLabel(label) : scope}`),
    picker,
    editor,
    h("h2", {}, "Session-start bundle, exactly as each host receives it"),
    cwdForm,
    ...bundles,
    ...handoffs,
  );
  if (p.get("show") === "handoffs") document.getElementById("handoffs")?.scrollIntoView();
}
