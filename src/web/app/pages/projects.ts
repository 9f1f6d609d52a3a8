/** Projects: every scope with its entries, last activity, rules and handoffs. */
import { h, loadScopes, when } from "../lib";

export async function projectsPage(main: HTMLElement): Promise<void> {
  const { current, projects } = await loadScopes(true);
  main.replaceChildren(
    h("h1", {}, "Projects and scopes"),
    h(
      "table",
      { id: "projects-table" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Scope", "Origin", "Entries", "Last activity", "Rules", "Handoffs"].map((c, i) =>
            h("th", { scope: "col", class: i === 2 ? "num" : null }, c),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        projects.map((s) =>
          h(
            "tr",
            {},
            h(
              "td",
              {},
              h("a", { href: `#/entries?scope=${s.scope}` }, s.scope === "global" ? "Global" : s.label),
              s.scope === current ? h("span", { class: "muted" }, " (this server's project)") : null,
              s.scope !== "global" ? h("div", { class: "muted" }, h("code", {}, s.scope)) : null,
            ),
            h("td", {}, s.origin ?? "—"),
            h("td", { class: "num" }, s.entries.toLocaleString()),
            h("td", {}, when(s.last_activity)),
            h(
              "td",
              {},
              h("a", { href: `#/rules?scope=${s.scope}` }, s.rules_chars ? `${s.rules_chars} chars` : "none"),
            ),
            h(
              "td",
              {},
              s.scope === "global"
                ? "—"
                : h("a", { href: `#/rules?scope=${s.scope}&show=handoffs` }, String(s.handoffs)),
            ),
          ),
        ),
      ),
    ),
  );
}
