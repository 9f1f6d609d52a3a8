import { relative } from "node:path";
import { defineCommand } from "citty";
import { loadConfig } from "../config/config";
import type { Insight } from "../distill/insights";
import { approveRequest, approveTrace, rejectTrace } from "../distill/review";
import { approveConflict, type Conflict, findConflict, listConflicts, rejectConflict } from "../inbox/conflicts";
import {
  approveTeamProposal,
  findTeamProposal,
  listTeamProposals,
  proposedEntry,
  rejectTeamProposal,
  type TeamProposal,
} from "../inbox/team-proposals";
import { findTrace, listTraces, summary, type Trace } from "../inbox/traces";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { writeErr, writeOut } from "../lib/output";
import {
  closeStore,
  GLOBAL,
  isTeamKey,
  keepUnused,
  projectMeta,
  type SyncConflict,
  syncConflicts,
  type UnusedEntry,
  unusedOffers,
} from "../store";
import { withExamples } from "./_run";
import { cliStore, consola, entryLine, jsonArg, plural, printJson, short } from "./_shared";

const idArg = {
  id: {
    type: "positional",
    description: "Trace, conflict or team proposal id as `coffer inbox` shows it, or the whole id",
    required: true,
  },
} as const;

function requireTrace(id: string): Trace {
  const t = findTrace(id);
  if (!t)
    throw new CofferError(
      `no inbox trace, conflict or team proposal "${id}"`,
      1,
      "List them with `coffer inbox list`.",
    );
  return t;
}

function conflictLines(c: Conflict): string {
  return [
    `id: ${handle(c.id)} (a contradiction for you to settle)`,
    `project: ${c.project.label}`,
    `found: ${c.created} in ${c.host} session ${c.session}`,
    "",
    `existing entry ${handle(c.existing.id)} [${c.existing.kind}] ${c.existing.title}`,
    c.existing.body,
    "",
    `new insight [${c.insight.kind}] ${c.insight.title}`,
    c.insight.body,
    "",
    `coffer inbox approve ${handle(c.id)}   # the new insight replaces the entry (which is kept, marked superseded)`,
    `coffer inbox reject ${handle(c.id)}    # the entry stays as it is`,
    "",
  ].join("\n");
}

function teamProposalLines(p: TeamProposal): string {
  const entry = proposedEntry(p);
  return [
    `id: ${handle(p.id)} (proposed for the team lane: the repository's .coffer/)`,
    `project: ${p.project.label}`,
    `proposed: ${p.created} from ${p.host} session ${p.session}`,
    "",
    entry
      ? `entry ${handle(p.entry.id)} [${entry.kind}] ${entry.title}\n${entry.body}`
      : `entry ${handle(p.entry.id)} [${p.entry.kind}] ${p.entry.title}: no longer in your project memory (forgotten?)`,
    "",
    `coffer inbox approve ${handle(p.id)}   # inside the repository: coffer promote moves it into .coffer/entries/`,
    `coffer inbox reject ${handle(p.id)}    # it stays in your personal project memory`,
    "",
  ].join("\n");
}

/** Sync-conflict copies waiting to be resolved (store/sync-conflicts.ts), with where they are. */
function syncCopies(): (SyncConflict & { where: string })[] {
  const store = cliStore();
  try {
    return syncConflicts(store).map((c) => ({
      ...c,
      where: c.scope === GLOBAL ? "global" : projectMeta(c.scope).label,
    }));
  } finally {
    closeStore(store);
  }
}

/**
 * Entries delivered `inbox.unused_after` times (judged from finished sessions) and never used by the
 * agent: offered for review (keep, edit or forget), never removed by themselves (issue 41).
 */
function unusedCopies(): (UnusedEntry & { where: string })[] {
  const store = cliStore();
  try {
    return unusedOffers(store, loadConfig()["inbox.unused_after"]).map((u) => ({
      ...u,
      where: u.scope === GLOBAL ? "global" : isTeamKey(u.scope) ? "team" : projectMeta(u.scope).label,
    }));
  } finally {
    closeStore(store);
  }
}

/** An unused-entry offer by its entry's id or handle. */
function findUnused(id: string): UnusedEntry | undefined {
  const want = id.toUpperCase();
  return unusedCopies().find((u) => u.id === want || handle(u.id) === want);
}

const list = withExamples(
  defineCommand({
    meta: {
      name: "list",
      description:
        "Traces, contradictions, team-lane proposals, sync-conflict copies and never-used entries waiting for review",
    },
    args: { ...jsonArg },
    run({ args }) {
      const traces = listTraces();
      const conflicts = listConflicts();
      const team = listTeamProposals();
      const sync = syncCopies();
      const unused = unusedCopies();
      if (args.json) return printJson({ traces: traces.map(summary), conflicts, team, sync, unused });
      if (!traces.length && !conflicts.length && !team.length && !sync.length && !unused.length) {
        consola.info("The inbox is empty.");
        return;
      }
      for (const c of conflicts)
        writeOut(
          `${handle(c.id)}  conflict  ${c.project.label.slice(0, 20).padEnd(20)}  "${short(c.insight.title, 40)}" vs ${handle(c.existing.id)} "${short(c.existing.title, 40)}"\n`,
        );
      for (const c of sync)
        writeOut(
          `${handle(c.copy)}  sync      ${c.where.slice(0, 20).padEnd(20)}  "${short(c.title, 40)}": older copy of ${handle(c.kept)} (edited on two machines); keep the newer: coffer forget ${handle(c.copy)}\n`,
        );
      for (const u of unused)
        writeOut(
          `${handle(u.id)}  unused    ${u.where.slice(0, 20).padEnd(20)}  "${short(u.title, 40)}": delivered ${u.judged === 1 ? "once" : `${u.judged} times`}, never used: keep (coffer inbox reject ${handle(u.id)}), edit or forget\n`,
        );
      for (const p of team)
        writeOut(
          `${handle(p.id)}  team      ${p.project.label.slice(0, 20).padEnd(20)}  "${short(p.entry.title, 40)}" (${handle(p.entry.id)})\n`,
        );
      for (const t of traces) {
        writeOut(
          `${handle(t.id)}  ${t.host.padEnd(6)}  ${(t.project?.label ?? "-").slice(0, 20).padEnd(20)}  ${String(t.messages).padStart(3)} msgs  ${String(t.redactions).padStart(2)} redacted  ${short(t.title, 50)}\n`,
        );
      }
    },
  }),
  ["coffer inbox list", "coffer inbox list --json"],
);

const show = withExamples(
  defineCommand({
    meta: { name: "show", description: "Print a trace: its wrapper and the conversation approve would send" },
    args: { ...idArg, ...jsonArg },
    run({ args }) {
      const c = findConflict(args.id);
      if (c) return args.json ? printJson(c) : writeOut(conflictLines(c));
      const p = findTeamProposal(args.id);
      if (p) {
        if (!args.json) return writeOut(teamProposalLines(p));
        return printJson({ ...p, entry: { ...p.entry, body: proposedEntry(p)?.body ?? null } });
      }
      const t = requireTrace(args.id);
      if (args.json) return printJson(t);
      const s = summary(t);
      writeOut(
        [
          `id: ${handle(s.id)}`,
          `host: ${s.host}`,
          `session: ${s.session}`,
          `project: ${s.project?.label ?? "-"}`,
          `title: ${s.title}`,
          `created: ${s.created}`,
          `messages: ${s.messages}${s.omitted ? ` (${s.omitted} omitted to fit the budget)` : ""}`,
          `redactions: ${s.redactions}`,
          `removed lines: ${s.removed_lines}`,
          `source sha256: ${s.source_sha256}`,
          "",
        ].join("\n") +
          "\n" +
          approveRequest(t).text,
      );
    },
  }),
  ["coffer inbox show 7A6B5C4D", "coffer inbox show 7A6B5C4D --json"],
);

function preview(insights: Insight[]): void {
  if (!insights.length) {
    consola.info("The model found nothing worth keeping in this trace.");
    return;
  }
  consola.info(`${plural(insights.length, "entry", "entries")} would be written:`);
  for (const i of insights) writeErr(`  [${i.kind}] ${i.title}\n      ${short(i.body, 160)}\n`);
}

const approve = withExamples(
  defineCommand({
    meta: {
      name: "approve",
      description:
        "Distill a trace into entries (shows a preview first; --yes skips the question), settle a contradiction, or promote a proposed entry",
    },
    args: {
      ...idArg,
      yes: { type: "boolean", alias: "y", description: "Write without asking (for scripts)" },
      ...jsonArg,
    },
    async run({ args }) {
      const c = findConflict(args.id);
      if (c) {
        const res = approveConflict(c);
        if (args.json) return printJson({ id: c.id, status: "approved", ...res });
        consola.success(
          `Approved ${handle(c.id)}: ${handle(res.entry)} written${res.superseded ? `, ${handle(res.superseded)} superseded (kept; coffer list --all shows it)` : ""}`,
        );
        return;
      }
      const p = findTeamProposal(args.id);
      if (p) {
        const store = cliStore();
        const res = approveTeamProposal(store, p);
        if (args.json) return printJson(res);
        if (res.status === "gone")
          throw new CofferError(
            `entry ${handle(res.entry)} is no longer in your project memory (forgotten or moved): nothing to promote`,
            1,
            `Proposal ${handle(p.id)} was removed.`,
          );
        if (res.status === "already_team")
          return consola.info(`${handle(res.entry)} is already in the team lane; proposal ${handle(p.id)} removed`);
        const r = res.promoted!;
        if (r.status === "duplicate")
          return consola.info(
            `${handle(r.id)} says what the team's ${handle(r.team_id)} already says; your copy went to the trash`,
          );
        if (r.scrubbed) consola.warn(`${handle(r.id)}: ${r.scrubbed}: replaced by [redacted]`);
        return consola.success(
          `Approved ${handle(p.id)}: ${handle(r.id)} promoted to ${relative(store.team?.worktree ?? store.cwd, r.file)}: commit it to share it with the team`,
        );
      }
      const trace = requireTrace(args.id);
      const interactive = !args.yes && Boolean(process.stdin.isTTY) && !args.json;
      if (!args.yes && !interactive) {
        throw new CofferError(
          "approve asks before writing, but there is no terminal to ask on",
          1,
          `Add --yes: coffer inbox approve ${handle(trace.id)} --yes`,
        );
      }
      const res = await approveTrace(trace, loadConfig(), async (insights) => {
        if (!args.json) preview(insights);
        if (!interactive || !insights.length) return true;
        return (
          (await consola.prompt("Write these entries and remove the trace?", { type: "confirm", initial: true })) ===
          true
        );
      });
      if (args.json)
        return printJson({
          id: res.id,
          status: res.status,
          entries: res.entries,
          dropped: res.dropped,
          ...(res.scrubbed ? { scrubbed: res.scrubbed } : {}),
        });
      if (res.status === "cancelled")
        return consola.info(`Nothing written; trace ${handle(res.id)} stays in the inbox.`);
      const created = res.entries.filter((e) => e.status === "created").length;
      consola.success(
        `Approved ${handle(res.id)}: ${plural(res.entries.length, "entry", "entries")} (${created} new) in project ${trace.project?.label}; trace removed`,
      );
      for (const e of res.entries) writeOut(`    ${entryLine(e)}\n`);
      if (res.scrubbed) consola.warn(`${res.scrubbed}: replaced by [redacted] before sending and writing`);
    },
  }),
  ["coffer inbox approve 7A6B5C4D", "coffer inbox approve 7A6B5C4D --yes"],
);

const reject = withExamples(
  defineCommand({
    meta: {
      name: "reject",
      description:
        "Delete a trace without distilling it, keep the entry a contradiction is about, keep a proposed entry personal, or keep an entry offered as never used",
    },
    args: { ...idArg, ...jsonArg },
    run({ args }) {
      const c = findConflict(args.id);
      if (c) {
        rejectConflict(c);
        if (args.json) return printJson({ id: c.id, status: "rejected", kept: c.existing.id });
        return consola.success(`Rejected ${handle(c.id)}: entry ${handle(c.existing.id)} stays as it is`);
      }
      const p = findTeamProposal(args.id);
      if (p) {
        rejectTeamProposal(p);
        if (args.json) return printJson({ id: p.id, status: "rejected", kept: p.entry.id });
        return consola.success(`Rejected ${handle(p.id)}: entry ${handle(p.entry.id)} stays in your project memory`);
      }
      const u = findUnused(args.id);
      if (u) {
        const store = cliStore();
        try {
          keepUnused(store, u.id);
        } finally {
          closeStore(store);
        }
        if (args.json) return printJson({ id: u.id, status: "kept" });
        return consola.success(
          `Kept ${handle(u.id)} as it is: offered again after ${u.judged} more deliveries without use`,
        );
      }
      const trace = requireTrace(args.id);
      rejectTrace(trace);
      if (args.json) return printJson({ id: trace.id, status: "rejected" });
      consola.success(`Rejected ${handle(trace.id)}: trace deleted`);
    },
  }),
  ["coffer inbox reject 7A6B5C4D"],
);

export default withExamples(
  defineCommand({
    meta: {
      name: "inbox",
      description: "Review traces, contradictions, team proposals (list, show, approve, reject)",
    },
    subCommands: { list, show, approve, reject },
    default: "list",
  }),
  ["coffer inbox", "coffer inbox show <id>", "coffer inbox approve <id> --yes", "coffer inbox reject <id>"],
);
