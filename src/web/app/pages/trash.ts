/** Trash: deleted entries for 30 days, with Restore. */
import type { Trash } from "../../../serve/api-types";
import { api, h, toast, when } from "../lib";
import { inlineMd } from "../md";

export async function trashPage(main: HTMLElement): Promise<void> {
  const data = await api<Trash>("GET", "/api/v1/ui/trash");
  main.replaceChildren(
    h("h1", {}, "Trash"),
    h(
      "p",
      { class: "muted" },
      "Deleted entries wait here for 30 days (in state/trash/ on this machine: never indexed, never synced); Restore brings one back with the same id.",
    ),
    data.items.length
      ? h(
          "table",
          { id: "trash-table" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["Title", "Kind", "Scope", "Deleted", ""].map((c) => h("th", { scope: "col" }, c)),
            ),
          ),
          h(
            "tbody",
            {},
            data.items.map((t) =>
              h(
                "tr",
                {},
                h("td", {}, inlineMd(t.title)),
                h("td", { class: "kind" }, t.kind),
                h("td", {}, t.scope === "global" ? "Global" : t.scope_label),
                h("td", {}, when(t.deleted)),
                h(
                  "td",
                  {},
                  // promote's personal copy: the entry lives in the team lane now, one id cannot be in both
                  t.in_team
                    ? h("span", { class: "muted", title: t.in_team }, "Promoted: in the team lane now")
                    : h(
                        "button",
                        {
                          type: "button",
                          class: "ghost",
                          "aria-label": `Restore ${t.title}`,
                          onclick: async () => {
                            await api("POST", `/api/v1/ui/entries/${t.id}/restore`, {});
                            toast(`Restored “${t.title}”`);
                            await trashPage(main);
                          },
                        },
                        "Restore",
                      ),
                ),
              ),
            ),
          ),
        )
      : h("p", {}, "The trash is empty."),
  );
}
