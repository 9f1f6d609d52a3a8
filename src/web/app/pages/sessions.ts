/** Sessions: what the hooks delivered to each agent session. */
import { api, h, loadScopes, when } from "../lib";
import { openEntry } from "../widgets";

type SessionRec = {
  host: string;
  session: string;
  cwd: string;
  subagent: boolean;
  updated: string;
  bundle_sig: string | null;
  chars: number;
  delivered: { id: string; at: string; title: string | null; chars: number }[];
  events: { event: string; at: string; entries: number; chars: number }[];
  project: { id: string; label: string } | null;
};

export async function sessionsPage(main: HTMLElement): Promise<void> {
  const { projects } = await loadScopes();
  const data = await api<{ sessions: SessionRec[] }>("GET", "/api/v1/ui/sessions");
  main.replaceChildren(
    h("h1", {}, "Sessions"),
    h(
      "p",
      { class: "muted" },
      "What the hooks delivered to each agent session, from the delivery records: each hook event with the entry bodies and characters it injected (counts and ids, never prompt text). Records older than 7 days are pruned.",
    ),
    data.sessions.length
      ? h(
          "table",
          { id: "sessions-table" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["Host", "Session", "Project", "Last hook", "Rules bundle", "Events", "Bodies", "Injected chars"].map(
                (c, i) => h("th", { scope: "col", class: i >= 5 ? "num" : null }, c),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            data.sessions.map((s) =>
              h(
                "tr",
                { "data-session": s.session },
                h("td", {}, s.host),
                h(
                  "td",
                  {},
                  h(
                    "details",
                    {},
                    h("summary", {}, h("code", {}, s.session), s.subagent ? " (subagent)" : ""),
                    h("p", { class: "muted" }, "cwd ", h("code", {}, s.cwd)),
                    s.events.length
                      ? h(
                          "table",
                          { class: "events" },
                          h("caption", { class: "caption muted" }, "Hook events, newest first"),
                          h(
                            "thead",
                            {},
                            h(
                              "tr",
                              {},
                              ["Time", "Event", "Bodies", "Characters"].map((c, i) =>
                                h("th", { scope: "col", class: i >= 2 ? "num" : null }, c),
                              ),
                            ),
                          ),
                          h(
                            "tbody",
                            {},
                            s.events.map((e) =>
                              h(
                                "tr",
                                {},
                                h("td", {}, when(e.at)),
                                h("td", {}, e.event),
                                h("td", { class: "num" }, String(e.entries)),
                                h("td", { class: "num" }, e.chars.toLocaleString()),
                              ),
                            ),
                          ),
                        )
                      : null,
                    h("h4", {}, "Entry bodies delivered"),
                    s.delivered.length
                      ? h(
                          "ol",
                          {},
                          s.delivered.map((d) =>
                            h(
                              "li",
                              {},
                              h(
                                "button",
                                { type: "button", class: "link", onclick: () => openEntry(d.id, projects) },
                                d.title ?? d.id,
                              ),
                              h("span", { class: "muted" }, ` · ${d.chars} chars · ${when(d.at)}`),
                            ),
                          ),
                        )
                      : h("p", {}, "No entry bodies delivered (rules bundle only, or nothing routed)."),
                  ),
                ),
                h("td", {}, s.project?.label ?? "—"),
                h("td", {}, when(s.updated)),
                h("td", {}, s.bundle_sig ? h("code", {}, s.bundle_sig.slice(0, 8)) : "—"),
                h("td", { class: "num" }, String(s.events.length)),
                h("td", { class: "num" }, String(s.delivered.length)),
                h("td", { class: "num" }, s.events.reduce((n, e) => n + e.chars, 0).toLocaleString()),
              ),
            ),
          ),
        )
      : h("p", {}, "No hook has delivered anything yet. Link an agent with coffer link <host>."),
  );
}
