/** Sessions: what the hooks delivered to each agent session, event by event. */

import { handle } from "../../../lib/handle";
import type { DeliveryWhy, SentEntry, SessionRecordJson, Sessions } from "../../../serve/api-types";
import { api, h, loadScopes, type Scope, when } from "../lib";
import { inlineMd } from "../md";
import { openEntry } from "../widgets";

type Why = DeliveryWhy;
type SessionRec = SessionRecordJson;

/** `used`: whether the agent then used it, judged from the finished session's transcript (absent: not yet). */
type Sent = SentEntry;

const USED_TEXT = { used: "used", unused: "not used", unknown: "use unknown" } as const;

/** "2 project rules, 1 global rule and Coffer's built-in rules" (the built-in ones always come along). */
function rulesText(r: { project: number; team: number; global: number }): string {
  const lanes = (
    [
      ["project", r.project],
      ["team", r.team],
      ["global", r.global],
    ] as const
  ).filter(([, n]) => n > 0);
  const mine = lanes.map(([lane, n]) => `${n} ${lane} rule${n === 1 ? "" : "s"}`);
  return mine.length ? `${mine.join(", ")} and Coffer's built-in rules` : "Coffer's built-in rules only";
}

/**
 * Why an entry went out, as `recall --explain` says it: the prompt's terms it matched (where, and
 * through which alternative), its similarity in meaning, the path named, an inheritance.
 */
function whyText(w: Why): string {
  if (w.card) return "a memory card of the session start";
  const parts: string[] = [];
  if (w.inherited) parts.push("inherited from the parent session");
  if (w.path) parts.push(`the path ${w.path} matches its applies_to`);
  if (w.terms?.length) {
    // Per field, in the order first met: "“stripe”, “webhooks” in the title, “database” as “postgres” in the body".
    const byField = new Map<string, string[]>();
    for (const t of w.terms)
      byField.set(t.field, [...(byField.get(t.field) ?? []), `“${t.term}”${t.via ? ` as “${t.via}”` : ""}`]);
    parts.push(`matched ${[...byField].map(([f, ts]) => `${ts.join(", ")} in the ${f}`).join("; ")}`);
  }
  if (w.meaning) parts.push("close in meaning (no word in common needed)");
  if (w.similarity !== undefined) parts.push(`similarity ${w.similarity.toFixed(2)}`);
  return parts.join("; ");
}

/** One delivered entry: its title (opens it), its handle and its scope, and why it went out. */
function entryItem(e: Sent, projects: Scope[]): HTMLElement {
  const scope =
    e.scope === "global" ? "Global" : (projects.find((p) => p.scope === e.scope)?.label ?? (e.scope ? e.scope : "—"));
  const why = e.why && !e.why.card ? whyText(e.why) : "";
  return h(
    "li",
    { "data-entry": e.id },
    e.title === null
      ? h("span", { class: "muted" }, "(entry gone) ")
      : h("button", { type: "button", class: "link", onclick: () => openEntry(e.id, projects) }, inlineMd(e.title)),
    " ",
    h("code", { class: "muted" }, handle(e.id)),
    h("span", { class: "muted" }, ` · ${scope}`),
    e.used ? [" ", h("span", { class: `badge use-${e.used}`, "data-used": e.used }, USED_TEXT[e.used])] : null,
    why ? h("div", { class: "why muted" }, `Why: ${why}`) : null,
  );
}

/** What one event sent: its bodies (each with why), a session start's rules bundle and cards. */
function sentCell(s: SessionRec, e: SessionRec["events"][number], projects: Scope[]): (Node | string)[] {
  const out: (Node | string)[] = [];
  if (e.delivered?.length)
    out.push(
      h(
        "ul",
        { class: "plain" },
        e.delivered.map((d) => entryItem(d, projects)),
      ),
    );
  else if (e.entries) out.push(`${e.entries} (recorded before this list was kept)`);
  if (e.event === "session-start" && e.chars > 0) {
    const rules = `#/rules?${new URLSearchParams({ ...(s.project ? { scope: s.project.id } : { scope: "global" }), cwd: s.cwd })}`;
    out.push(
      h(
        "div",
        { class: "start-sent" },
        s.rules?.unchanged ? `Rules: ${rulesText(s.rules)}` : "The rules bundle",
        s.bundle_sig ? [" ", h("code", { class: "muted" }, s.bundle_sig.slice(0, 8))] : "",
        s.rules && !s.rules.unchanged ? " (changed since: " : " (",
        h("a", { href: rules }, s.rules && !s.rules.unchanged ? "see today's" : "see them whole"),
        ")",
        e.cards?.length ? `; ${e.cards.length} memory card${e.cards.length === 1 ? "" : "s"}:` : "; no memory card",
      ),
    );
    if (e.cards?.length)
      out.push(
        h(
          "ul",
          { class: "plain cards-sent" },
          e.cards.map((d) => entryItem(d, projects)),
        ),
      );
  }
  return out.length ? out : [h("span", { class: "muted" }, "none")];
}

function eventsTable(s: SessionRec, projects: Scope[]): HTMLElement {
  return h(
    "table",
    { class: "events" },
    h("caption", { class: "caption muted" }, "Hook events, newest first"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Time", "Event", "What it sent, and why", "Characters"].map((c, i) =>
          h("th", { scope: "col", class: i === 3 ? "num" : null }, c),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      s.events.map((e) =>
        h(
          "tr",
          { "data-event": e.event },
          h("td", {}, when(e.at)),
          h("td", {}, e.event),
          h("td", {}, sentCell(s, e, projects)),
          h("td", { class: "num" }, e.chars.toLocaleString()),
        ),
      ),
    ),
  );
}

export async function sessionsPage(main: HTMLElement): Promise<void> {
  const { projects } = await loadScopes(true); // fresh: a session may name a project made since
  const data = await api<Sessions>("GET", "/api/v1/ui/sessions");
  main.replaceChildren(
    h("h1", {}, "Sessions"),
    h(
      "p",
      { class: "muted" },
      "What each agent session got from the hooks, and why: every hook event with the entry bodies it delivered (each with the prompt's words it matched, or the path, or its similarity), a session start's rules and memory cards, and the characters injected. Ids, reasons and counts are kept, never the prompt itself. A compact or /clear does not erase what was sent. Records older than 7 days are pruned.",
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
            data.sessions.map((s) => {
              // The summary is the events' own sum, so the two always agree (also after a compact).
              const bodies = s.events.reduce((n, e) => n + e.entries, 0);
              const sent = s.sent?.length ? s.sent : s.delivered;
              return h(
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
                    s.events.length ? eventsTable(s, projects) : null,
                    h("h4", {}, "Entries delivered in this session"),
                    sent.length
                      ? h(
                          "ul",
                          { class: "plain sent" },
                          sent.map((d) => entryItem(d, projects)),
                        )
                      : h("p", {}, "No entry bodies delivered (rules bundle only, or nothing routed)."),
                  ),
                ),
                h("td", {}, s.project?.label ?? "—"),
                h("td", {}, when(s.updated)),
                h("td", {}, s.bundle_sig ? h("code", { class: "nowrap" }, s.bundle_sig.slice(0, 8)) : "—"),
                h("td", { class: "num" }, String(s.events.length)),
                h("td", { class: "num", "data-bodies": bodies }, String(bodies)),
                h("td", { class: "num" }, s.events.reduce((n, e) => n + e.chars, 0).toLocaleString()),
              );
            }),
          ),
        )
      : h("p", {}, "No hook has delivered anything yet. Link an agent with coffer link <host>."),
  );
}
