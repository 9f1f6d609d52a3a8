/** Projects, Rules (+ handoffs), Sessions, Inbox (+ transcripts, model), Trash, Health. */
import { openEntry } from "./entries";
import {
  api,
  bytes,
  errorBox,
  h,
  loadScopes,
  routeParams,
  scopeLabel,
  scopeSelect,
  session,
  setRouteParams,
  toast,
  when,
} from "./lib";

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

type Bundle = { host: string; text: string; size: number; limit: number; unit: string };

export async function rulesPage(main: HTMLElement): Promise<void> {
  const { projects, current } = await loadScopes();
  const p = routeParams();
  const scope = p.get("scope") || current || "global";
  const cwd = p.get("cwd") ?? "";
  main.replaceChildren(h("h1", {}, "Rules"), h("p", { role: "status" }, "Loading…"));
  let data: { scope: string; text: string; cwd: string | null; cwds: string[]; bundles: Bundle[] };
  try {
    data = await api(
      "GET",
      `/api/v1/ui/rules?scope=${encodeURIComponent(scope)}${cwd ? `&cwd=${encodeURIComponent(cwd)}` : ""}`,
    );
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
      const r = await api<{ changed: boolean; scrubbed: string | null }>("PUT", "/api/v1/ui/rules", {
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
        value: data.cwd ?? "",
        placeholder: "/absolute/path/in/the/project",
      }),
    ),
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

  const bundles = data.cwd
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
      const hs = await api<{
        handoffs: { branch: string | null; file: string; body: string; updated: string | null }[];
      }>("GET", `/api/v1/ui/handoffs?scope=${encodeURIComponent(scope)}`);
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

type InboxItem = {
  id: string;
  host: string;
  session: string;
  created: string;
  messages: number;
  redactions: number;
  removed_lines: number;
  title: string;
  project: string | null;
};
type Transcript = {
  host: string;
  session_id: string;
  project: string | null;
  messages: number;
  last_activity: string | null;
  status: string;
  title: string;
  error: string | null;
};
type Insight = { kind: string; title: string; body: string };

export async function inboxPage(main: HTMLElement): Promise<void> {
  const p = routeParams();
  const host = p.get("host") || "claude";
  const [inbox, conflicts, budget, model] = await Promise.all([
    api<{ items: InboxItem[] }>("GET", "/api/v1/inbox"),
    api<{ conflicts: Conflict[] }>("GET", "/api/v1/ui/conflicts"),
    api<Budget>("GET", "/api/v1/ui/budget"),
    api<{
      model: {
        provider: string;
        model: string;
        base_url: string;
        key_env: string | null;
        key_set: boolean | null;
      } | null;
    }>("GET", "/api/v1/ui/model"),
  ]);
  const modelLine = model.model
    ? h(
        "p",
        { id: "model-state" },
        "Model: ",
        h("strong", {}, `${model.model.provider} ${model.model.model}`),
        ` at ${model.model.base_url}`,
        model.model.key_env
          ? ` · key from $${model.model.key_env} (${model.model.key_set ? "set" : "not set"})`
          : " · no key sent",
      )
    : h(
        "p",
        { id: "model-state", class: "error" },
        "No model configured: approving and distilling need one (coffer config set model.provider openai …).",
      );

  const items = inbox.items.length
    ? h(
        "ul",
        { id: "inbox-list", class: "plain" },
        inbox.items.map((t) => inboxItem(t, main)),
      )
    : h("p", {}, "The inbox is empty. Sessions queued at session end land here after coffer observe --queue.");

  const hostForm = h(
    "form",
    { class: "row", "aria-label": "Pick an agent" },
    h(
      "label",
      { for: "tr-host" },
      "Agent",
      h(
        "select",
        { id: "tr-host" },
        ["claude", "codex", "gemini"].map((x) => h("option", { value: x, selected: x === host }, x)),
      ),
    ),
    h("button", { type: "submit", class: "ghost" }, "Show transcripts"),
  );
  hostForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setRouteParams("inbox", { host: (hostForm.querySelector("select") as HTMLSelectElement).value });
  });
  const transcripts = h("div", { id: "transcripts" }, h("p", { role: "status" }, "Loading transcripts…"));
  const conflictList = conflicts.conflicts.length
    ? h(
        "ul",
        { id: "conflict-list", class: "plain" },
        conflicts.conflicts.map((c) => conflictItem(c, main)),
      )
    : h("p", { id: "no-conflicts" }, "No contradictions waiting.");
  main.replaceChildren(
    h("h1", {}, "Inbox and distillation"),
    modelLine,
    budgetBox(budget),
    h("h2", {}, `Inbox (${inbox.items.length})`),
    items,
    h("h2", { id: "conflicts-heading" }, `Contradictions (${conflicts.conflicts.length})`),
    h(
      "p",
      { class: "muted" },
      "Insights the model found to contradict an existing entry without settling which is right. Approve: the new insight becomes an entry and supersedes the old one (kept on disk, never routed again). Reject: the old entry stays and the insight is dropped.",
    ),
    conflictList,
    h("h2", {}, "Transcripts"),
    hostForm,
    transcripts,
  );
  try {
    const tr = await api<{ transcripts: Transcript[] }>("GET", `/api/v1/ui/transcripts?host=${host}`);
    transcripts.replaceChildren(
      tr.transcripts.length
        ? h(
            "table",
            { id: "transcripts-table" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ["Session", "Project", "Messages", "Last activity", "Status", ""].map((c) =>
                  h("th", { scope: "col" }, c),
                ),
              ),
            ),
            h(
              "tbody",
              {},
              tr.transcripts.map((t) =>
                h(
                  "tr",
                  {},
                  h("td", {}, t.title || "(untitled)", h("div", { class: "muted" }, h("code", {}, t.session_id))),
                  h("td", {}, t.project ?? "— (not in a repository)"),
                  h("td", { class: "num" }, String(t.messages)),
                  h("td", {}, when(t.last_activity)),
                  h("td", {}, t.status, t.error ? h("div", { class: "error" }, t.error) : null),
                  h(
                    "td",
                    {},
                    h(
                      "button",
                      {
                        type: "button",
                        class: "ghost",
                        "aria-label": `Distill ${t.title || t.session_id}`,
                        onclick: async (ev: Event) => {
                          const b = ev.target as HTMLButtonElement;
                          b.disabled = true;
                          b.textContent = "Distilling…";
                          try {
                            const r = await api<{ results: { outcome: string; message: string; entries: string[] }[] }>(
                              "POST",
                              `/api/v1/agents/${t.host}/transcripts/distill`,
                              { sessions: [t.session_id] },
                            );
                            const res = r.results[0]!;
                            toast(`${res.outcome}: ${res.message || `${res.entries.length} entries`}`);
                          } catch (err) {
                            toast(err instanceof Error ? err.message : String(err));
                          }
                          await inboxPage(main);
                        },
                      },
                      "Distill",
                    ),
                  ),
                ),
              ),
            ),
          )
        : h("p", {}, `No ${host} transcripts found on this machine.`),
    );
  } catch (err) {
    transcripts.replaceChildren(errorBox(err));
  }
}

export type Budget = {
  day: string;
  budget: number;
  spent: number;
  estimated: number;
  remaining: number | null;
  paused: boolean;
  paused_at: string | null;
  needed: number | null;
  resumes_at: string | null;
  summary: string;
  model?: string | null;
};

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

type Conflict = {
  id: string;
  created: string;
  host: string;
  session: string;
  project: { id: string; label: string; origin?: string };
  existing: { id: string; kind: string; title: string; body: string };
  insight: { kind: string; title: string; body: string };
};

function conflictItem(c: Conflict, main: HTMLElement): HTMLElement {
  const settle = async (decision: "approve" | "reject", ev: Event) => {
    for (const b of (ev.target as HTMLElement).closest("li")?.querySelectorAll("button") ?? []) b.disabled = true;
    try {
      const r = await api<{ status: string; entry?: string; superseded?: string }>(
        "POST",
        `/api/v1/ui/conflicts/${encodeURIComponent(c.id)}/${decision}`,
        {},
      );
      toast(
        decision === "approve"
          ? r.superseded
            ? `Approved: “${c.insight.title}” now supersedes “${c.existing.title}”`
            : `Approved: “${c.insight.title}” written (the old entry was already gone or superseded)`
          : `Rejected: “${c.existing.title}” stays as it is`,
      );
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err));
    }
    await inboxPage(main);
  };
  const headingId = `conflict-${c.id}`;
  return h(
    "li",
    { class: "panel", "data-conflict": c.id, "aria-labelledby": headingId },
    h("h3", { id: headingId }, `“${c.insight.title}” contradicts “${c.existing.title}”`),
    h(
      "p",
      { class: "muted" },
      `${c.project.label} · from ${c.host} session `,
      h("code", {}, c.session),
      ` · ${when(c.created)}`,
    ),
    h(
      "div",
      { class: "versus" },
      h(
        "section",
        { class: "existing", "aria-label": "Existing entry" },
        h("h4", {}, "Existing entry ", h("span", { class: "kind" }, c.existing.kind)),
        h(
          "p",
          {},
          h("button", { type: "button", class: "link", onclick: () => openEntry(c.existing.id, []) }, c.existing.title),
          " ",
          h("code", { class: "muted" }, c.existing.id),
        ),
        h("pre", {}, c.existing.body),
      ),
      h(
        "section",
        { class: "insight", "aria-label": "New insight" },
        h("h4", {}, "New insight ", h("span", { class: "kind" }, c.insight.kind)),
        h("p", {}, h("strong", {}, c.insight.title)),
        h("pre", {}, c.insight.body),
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
          onclick: (ev: Event) => settle("approve", ev),
        },
        "Approve: new supersedes old",
      ),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          "aria-describedby": headingId,
          onclick: (ev: Event) => settle("reject", ev),
        },
        "Reject: keep existing",
      ),
    ),
  );
}

function inboxItem(t: InboxItem, main: HTMLElement): HTMLElement {
  const out = h("div", { class: "preview" });
  const text = h("pre", { hidden: true });
  const li = h(
    "li",
    { class: "panel", "data-trace": t.id },
    h("h3", {}, t.title || "(untitled session)"),
    h(
      "p",
      { class: "muted" },
      `${t.host} · ${t.project ?? "no project"} · ${t.messages} messages · ${t.redactions} redacted · ${t.removed_lines} lines removed · ${when(t.created)}`,
    ),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        {
          type: "button",
          class: "ghost",
          onclick: async () => {
            if (text.hidden && !text.textContent) {
              const d = await api<{ text: string }>("GET", `/api/v1/ui/inbox/${t.id}`);
              text.textContent = d.text;
            }
            text.hidden = !text.hidden;
          },
        },
        "Show conversation",
      ),
      h(
        "button",
        {
          type: "button",
          onclick: async (ev: Event) => {
            const b = ev.target as HTMLButtonElement;
            b.disabled = true;
            out.replaceChildren(h("p", { role: "status" }, "Asking the model for insights…"));
            try {
              const r = await api<{ status: string; preview?: string; insights?: Insight[]; result?: unknown }>(
                "POST",
                `/api/v1/ui/inbox/${t.id}/preview`,
                {},
              );
              if (r.status !== "preview") {
                out.replaceChildren(h("p", {}, "Done."));
                await inboxPage(main);
                return;
              }
              out.replaceChildren(previewBox(r.preview!, r.insights ?? [], main));
              (out.querySelector("button") as HTMLButtonElement | null)?.focus();
            } catch (err) {
              out.replaceChildren(errorBox(err));
            } finally {
              b.disabled = false;
            }
          },
        },
        "Approve…",
      ),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          onclick: async () => {
            await api("POST", `/api/v1/inbox/${t.id}/reject`, {});
            toast("Trace rejected and deleted");
            await inboxPage(main);
          },
        },
        "Reject",
      ),
    ),
    text,
    out,
  );
  return li;
}

function previewBox(pid: string, insights: Insight[], main: HTMLElement): HTMLElement {
  const decide = async (decision: "confirm" | "cancel") => {
    try {
      const r = await api<{ status: string; entries: string[] }>(
        "POST",
        `/api/v1/ui/inbox/previews/${pid}/${decision}`,
        {},
      );
      toast(
        decision === "confirm"
          ? `Approved: ${r.entries.length} entr${r.entries.length === 1 ? "y" : "ies"} written`
          : "Cancelled; the trace stays in the inbox",
      );
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err));
    }
    await inboxPage(main);
  };
  return h(
    "section",
    { class: "panel", "aria-label": "Insights preview" },
    h("h4", {}, `The model proposes ${insights.length} insight${insights.length === 1 ? "" : "s"}`),
    insights.length
      ? h(
          "ol",
          { class: "insights" },
          insights.map((i) => h("li", {}, h("strong", {}, `[${i.kind}] ${i.title}`), h("div", {}, i.body))),
        )
      : h("p", {}, "Nothing worth keeping; confirming records the session as distilled and removes the trace."),
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", onclick: () => decide("confirm") }, "Confirm and write"),
      h("button", { type: "button", class: "ghost", onclick: () => decide("cancel") }, "Cancel"),
    ),
  );
}

export async function trashPage(main: HTMLElement): Promise<void> {
  const data = await api<{
    items: { id: string; title: string; kind: string; scope: string; scope_label: string; deleted: string }[];
  }>("GET", "/api/v1/ui/trash");
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
                h("td", {}, t.title),
                h("td", { class: "kind" }, t.kind),
                h("td", {}, t.scope === "global" ? "Global" : t.scope_label),
                h("td", {}, when(t.deleted)),
                h(
                  "td",
                  {},
                  h(
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

type Health = {
  counts: { entries: number; projects: number; inbox: number; conflicts?: number };
  budget: Budget | null;
  index: { bytes: number };
  doctor: {
    binary: string;
    hosts: {
      host: string;
      scope: string;
      status: string;
      events: string[];
      missing_events: string[];
      mcp: boolean;
      notes: string[];
      problems: { message: string; fix: string }[];
    }[];
    store: { index: string; model: string | null; notes: string[] };
    problems: { where: string; message: string; fix: string }[];
  };
  sync: { summary: string } | null;
  audit: Record<string, unknown>[];
};

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
          `${d.counts.inbox} trace${d.counts.inbox === 1 ? "" : "s"}, ${d.counts.conflicts ?? 0} contradiction${d.counts.conflicts === 1 ? "" : "s"}`,
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
      h("dd", {}, d.doctor.store.model ?? "none"),
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
          ["Agent", "Status", "Hook events", "MCP", "Problems and fixes"].map((c) => h("th", { scope: "col" }, c)),
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
            h("td", {}, x.mcp ? "registered" : "—"),
            h(
              "td",
              {},
              x.problems.length
                ? x.problems.map((p) =>
                    h("div", {}, h("span", { class: "error" }, p.message), " — fix: ", h("code", {}, p.fix)),
                  )
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
    d.audit.length
      ? h(
          "table",
          { id: "audit-table" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["When", "Event", "Actor", "Details"].map((c) => h("th", { scope: "col" }, c)),
            ),
          ),
          h(
            "tbody",
            {},
            d.audit.map((a) => {
              const { at, event, actor, ...rest } = a;
              return h(
                "tr",
                {},
                h("td", {}, when(String(at ?? ""))),
                h("td", {}, String(event ?? "")),
                h("td", {}, String(actor ?? "")),
                h(
                  "td",
                  {},
                  h(
                    "code",
                    {},
                    Object.entries(rest)
                      .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(",") : String(v)}`)
                      .join(" "),
                  ),
                ),
              );
            }),
          ),
        )
      : h("p", {}, "Nothing audited yet."),
  );
}

type Stats = {
  since: string;
  until: string;
  days: string[];
  distill: {
    calls: number;
    input_tokens: number;
    output_tokens: number;
    tokens: number;
    estimated_tokens: number;
    by_model: { model: string; calls: number; input_tokens: number; output_tokens: number; estimated_tokens: number }[];
    per_day: number[];
    budget: Budget;
  };
  sessions: { distilled: number; failed: number; pending: number };
  hooks: {
    events: number;
    chars: number;
    tokens: number;
    by_host: { host: string; events: number; chars: number; tokens: number }[];
    by_event: { event: string; events: number; chars: number; tokens: number }[];
    per_day: number[];
    deliveries: number;
    counted_since: string | null;
  };
  entries: {
    added: Record<string, number>;
    added_total: number;
    per_day: number[];
    most_delivered: { id: string; scope: string | null; title: string | null; deliveries: number }[];
    never_delivered: { days: number; total: number; entries: { id: string; title: string; created: string }[] };
  };
};

const SVG = "http://www.w3.org/2000/svg";

/** A per-day series as a small line chart, described in words for screen readers. */
function sparkline(values: number[], days: string[], what: string): Element {
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

function table(id: string, head: string[], rows: (string | number | Node)[][], numFrom = 1): HTMLElement {
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

export async function statsPage(main: HTMLElement): Promise<void> {
  const days = Number(routeParams().get("days")) || 30;
  const { projects } = await loadScopes();
  const s = await api<Stats>("GET", `/api/v1/ui/stats?days=${days}`);
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
      ? table(
          "stats-models",
          ["Model", "Calls", "Input tokens", "Output tokens", "Estimated"],
          s.distill.by_model.map((m) => [m.model, m.calls, m.input_tokens, m.output_tokens, m.estimated_tokens]),
        )
      : h("p", {}, "No model calls in this window."),
    h("h2", {}, "Injected by host and event"),
    s.hooks.by_host.length
      ? h(
          "div",
          { class: "row" },
          table(
            "stats-hosts",
            ["Host", "Events", "Characters", "≈ Tokens"],
            s.hooks.by_host.map((x) => [x.host, x.events, x.chars, x.tokens]),
          ),
          table(
            "stats-events",
            ["Event", "Events", "Characters", "≈ Tokens"],
            s.hooks.by_event.map((x) => [x.event, x.events, x.chars, x.tokens]),
          ),
        )
      : h("p", {}, "The hooks injected nothing in this window."),
    h("h2", {}, "Delivered most often"),
    s.entries.most_delivered.length
      ? table(
          "stats-most",
          ["Entry", "Deliveries"],
          s.entries.most_delivered.map((d) => [
            h("button", { type: "button", class: "link", onclick: () => openEntry(d.id, projects) }, d.title ?? d.id),
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
              h("button", { type: "button", class: "link", onclick: () => openEntry(e.id, projects) }, e.title),
              h("span", { class: "muted" }, ` · created ${when(e.created)}`),
            ),
          ),
        )
      : h("p", {}, "Every older entry was delivered recently: nothing to prune."),
  );
}
