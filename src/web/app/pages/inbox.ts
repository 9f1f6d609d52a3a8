/** Inbox: traces waiting for approval, contradictions, sync conflicts, team-lane proposals, never-used entries, transcripts to distill, the model in use. */

import { handle } from "../../../lib/handle";
import type {
  Budget,
  DistillResults,
  InboxConflict,
  InboxConflicts,
  InboxList,
  InboxPreview,
  InboxTrace,
  Insight,
  ModelInfo,
  PreviewDecided,
  Settled,
  SyncConflicts,
  TeamProposal,
  TeamProposals,
  Transcripts,
  UnusedOffers,
} from "../../../serve/api-types";
import { api, errorBox, h, routeParams, setRouteParams, toast, when } from "../lib";
import { inlineMd } from "../md";
import { budgetBox, openEntry } from "../widgets";

type InboxItem = InboxList["items"][number];
type SyncCopy = SyncConflicts["conflicts"][number];
type UnusedOffer = UnusedOffers["entries"][number];

export async function inboxPage(main: HTMLElement): Promise<void> {
  const p = routeParams();
  const host = p.get("host") || "claude";
  const [inbox, conflicts, proposals, budget, model, sync, unused] = await Promise.all([
    api<InboxList>("GET", "/api/v1/inbox"),
    api<InboxConflicts>("GET", "/api/v1/ui/conflicts"),
    api<TeamProposals>("GET", "/api/v1/ui/team-proposals"),
    api<Budget>("GET", "/api/v1/ui/budget"),
    api<ModelInfo>("GET", "/api/v1/ui/model"),
    api<SyncConflicts>("GET", "/api/v1/ui/sync-conflicts"),
    api<UnusedOffers>("GET", "/api/v1/ui/unused"),
  ]);
  const m = model.model;
  const modelLine = m
    ? h(
        "p",
        { id: "model-state" },
        "Model: ",
        h("strong", {}, m.label),
        m.command
          ? ` · ${m.cli ? `the agent's own CLI (${m.plan})` : "its CLI was not found"}`
          : ` at ${m.base_url}${m.key_env ? ` · key from $${m.key_env} (${m.key_set ? "set" : "not set"})` : " · no key sent"}`,
        h("br"),
        h("small", {}, model.why),
      )
    : h(
        "p",
        { id: "model-state", class: model.source === "off" ? null : "error" },
        model.source === "off"
          ? "Distillation is off (model.provider = none)."
          : `No model: ${model.why}. Link an agent (coffer link claude) or configure one (coffer config set model.provider …).`,
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
    h("h2", { id: "sync-conflicts-heading" }, `Sync conflicts (${sync.conflicts.length})`),
    h(
      "p",
      { class: "muted" },
      "Entries edited on two machines. Sync kept the newer version (agents get it, with a note naming the older copy) and saved the older one as a superseded copy. Compare them, copy into the kept entry what you need, then forget the older copy: that resolves the conflict.",
    ),
    sync.conflicts.length
      ? h(
          "ul",
          { id: "sync-conflict-list", class: "plain" },
          sync.conflicts.map((c) => syncConflictItem(c, main)),
        )
      : h("p", { id: "no-sync-conflicts" }, "No sync conflicts."),
    h("h2", { id: "unused-heading" }, `Delivered often, never used (${unused.entries.length})`),
    h(
      "p",
      { class: "muted" },
      `Entries the hooks delivered ${unused.min} times or more without the agent using them (judged from the finished sessions' transcripts). Keep one as it is (offered again after as many more deliveries), edit it so it helps, or forget it. Nothing is removed by itself; rules are never offered.`,
    ),
    unused.entries.length
      ? h(
          "ul",
          { id: "unused-list", class: "plain" },
          unused.entries.map((u) => unusedItem(u, main)),
        )
      : h("p", { id: "no-unused" }, "No entry was delivered that often without being used."),
    h("h2", { id: "team-proposals-heading" }, `Proposed for the team lane (${proposals.proposals.length})`),
    h(
      "p",
      { class: "muted" },
      "Entries distillation found every contributor to a repository needs. They are in your project memory; approve moves one into the repository's .coffer/entries/ (commit it to share it), reject keeps it personal.",
    ),
    proposals.proposals.length
      ? h(
          "ul",
          { id: "team-proposal-list", class: "plain" },
          proposals.proposals.map((t) => teamProposalItem(t, main)),
        )
      : h("p", { id: "no-team-proposals" }, "No proposals waiting."),
    h("h2", {}, "Transcripts"),
    hostForm,
    transcripts,
  );
  try {
    const tr = await api<Transcripts>("GET", `/api/v1/ui/transcripts?host=${host}`);
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
                            const r = await api<DistillResults>(
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

function conflictItem(c: InboxConflict, main: HTMLElement): HTMLElement {
  const settle = async (decision: "approve" | "reject", ev: Event) => {
    for (const b of (ev.target as HTMLElement).closest("li")?.querySelectorAll("button") ?? []) b.disabled = true;
    try {
      const r = await api<Settled>("POST", `/api/v1/ui/conflicts/${encodeURIComponent(c.id)}/${decision}`, {});
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
          h(
            "button",
            { type: "button", class: "link", onclick: () => openEntry(c.existing.id, []) },
            inlineMd(c.existing.title),
          ),
          " ",
          h("code", { class: "muted", title: c.existing.id }, handle(c.existing.id)),
        ),
        h("pre", {}, c.existing.body),
      ),
      h(
        "section",
        { class: "insight", "aria-label": "New insight" },
        h("h4", {}, "New insight ", h("span", { class: "kind" }, c.insight.kind)),
        h("p", {}, h("strong", {}, inlineMd(c.insight.title))),
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

function unusedItem(u: UnusedOffer, main: HTMLElement): HTMLElement {
  const act = async (ev: Event, call: () => Promise<unknown>, done: string) => {
    for (const b of (ev.target as HTMLElement).closest("li")?.querySelectorAll("button") ?? []) b.disabled = true;
    try {
      await call();
      toast(done);
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err));
    }
    await inboxPage(main);
  };
  const headingId = `unused-${u.id}`;
  return h(
    "li",
    { class: "panel", "data-unused": u.id, "aria-labelledby": headingId },
    h("h3", { id: headingId }, inlineMd(u.title)),
    h(
      "p",
      { class: "muted" },
      `${u.scope_label} · ${u.kind} · `,
      h("code", {}, handle(u.id)),
      ` · delivered ${u.judged === 1 ? "once" : `${u.judged} times`}, never used · `,
      h("button", { type: "button", class: "link", onclick: () => openEntry(u.id, []) }, "Show or edit"),
    ),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        {
          type: "button",
          "aria-describedby": headingId,
          onclick: (ev: Event) =>
            act(
              ev,
              () => api("POST", `/api/v1/ui/unused/${encodeURIComponent(u.id)}/keep`),
              `Kept ${handle(u.id)} as it is`,
            ),
        },
        "Keep",
      ),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          "aria-describedby": headingId,
          onclick: (ev: Event) =>
            act(
              ev,
              () => api("DELETE", `/api/v1/ui/entries/${encodeURIComponent(u.id)}`),
              `Forgot ${handle(u.id)} (the trash keeps it 30 days)`,
            ),
        },
        "Forget",
      ),
    ),
  );
}

function syncConflictItem(c: SyncCopy, main: HTMLElement): HTMLElement {
  const resolve = async (ev: Event) => {
    for (const b of (ev.target as HTMLElement).closest("li")?.querySelectorAll("button") ?? []) b.disabled = true;
    try {
      await api("DELETE", `/api/v1/ui/entries/${encodeURIComponent(c.copy)}`);
      toast(
        `Forgot the older copy ${handle(c.copy)}: ${handle(c.kept)} is the one version (the trash keeps the copy 30 days)`,
      );
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err));
    }
    await inboxPage(main);
  };
  const headingId = `sync-conflict-${c.copy}`;
  return h(
    "li",
    { class: "panel", "data-sync-conflict": c.copy, "aria-labelledby": headingId },
    h("h3", { id: headingId }, c.title),
    h(
      "p",
      { class: "muted" },
      `${c.scope_label} · older copy `,
      h("code", {}, handle(c.copy)),
      ` (${when(c.updated)}) of `,
      h("code", {}, handle(c.kept)),
      " · ",
      h("button", { type: "button", class: "link", onclick: () => openEntry(c.copy, []) }, "Show older copy"),
      " · ",
      h("button", { type: "button", class: "link", onclick: () => openEntry(c.kept, []) }, "Show kept entry"),
    ),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        { type: "button", class: "danger", "aria-describedby": headingId, onclick: resolve },
        "Resolve: forget the older copy",
      ),
    ),
  );
}

function teamProposalItem(t: TeamProposal, main: HTMLElement): HTMLElement {
  const settle = async (decision: "approve" | "reject", ev: Event) => {
    for (const b of (ev.target as HTMLElement).closest("li")?.querySelectorAll("button") ?? []) b.disabled = true;
    try {
      const r = await api<Settled>("POST", `/api/v1/ui/team-proposals/${encodeURIComponent(t.id)}/${decision}`, {});
      toast(
        decision === "reject"
          ? `Rejected: “${t.entry.title}” stays in your project memory`
          : r.status === "promoted"
            ? `Promoted “${t.entry.title}” to the repository's .coffer/entries/: commit it to share it`
            : r.status === "duplicate"
              ? `The team lane already says this; your copy went to the trash`
              : `“${t.entry.title}” is no longer in your project memory; the proposal was removed`,
      );
    } catch (err) {
      toast(err instanceof Error ? err.message : String(err));
    }
    await inboxPage(main);
  };
  const headingId = `team-proposal-${t.id}`;
  return h(
    "li",
    { class: "panel", "data-team-proposal": t.id, "aria-labelledby": headingId },
    h("h3", { id: headingId }, t.entry.title, " ", h("span", { class: "kind" }, t.entry.kind)),
    h(
      "p",
      { class: "muted" },
      `${t.project.label} · from ${t.host} session `,
      h("code", {}, t.session),
      ` · ${when(t.created)} · `,
      h("button", { type: "button", class: "link", onclick: () => openEntry(t.entry.id, []) }, "Show entry"),
    ),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        { type: "button", "aria-describedby": headingId, onclick: (ev: Event) => settle("approve", ev) },
        "Approve: promote to team",
      ),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          "aria-describedby": headingId,
          onclick: (ev: Event) => settle("reject", ev),
        },
        "Reject: keep personal",
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
              const d = await api<InboxTrace>("GET", `/api/v1/ui/inbox/${t.id}`);
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
              const r = await api<InboxPreview>("POST", `/api/v1/ui/inbox/${t.id}/preview`, {});
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
      const r = await api<PreviewDecided>("POST", `/api/v1/ui/inbox/previews/${pid}/${decision}`, {});
      toast(
        decision === "confirm"
          ? `Approved: ${r.entries.length} entr${r.entries.length === 1 ? "y" : "ies"} written${r.scrubbed ? ` (${r.scrubbed})` : ""}`
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
