import { defineCommand } from "citty";
import { approveConflict, type Conflict, findConflict, listConflicts, rejectConflict } from "../distill/conflicts";
import type { Insight } from "../distill/insights";
import { findTrace, listTraces, summary, type Trace } from "../inbox/inbox";
import { approveRequest, approveTrace, rejectTrace } from "../inbox/review";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { loadConfig } from "../store/config";
import { withExamples } from "./_run";
import { consola, jsonArg, plural, printJson, short } from "./_shared";
import { entryLine } from "./distill";

const idArg = {
  id: {
    type: "positional",
    description: "Trace or conflict id as `coffer inbox` shows it, or the whole id",
    required: true,
  },
} as const;

function requireTrace(id: string): Trace {
  const t = findTrace(id);
  if (!t) throw new CofferError(`no inbox trace or conflict "${id}"`, 1, "List them with `coffer inbox list`.");
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

const list = withExamples(
  defineCommand({
    meta: { name: "list", description: "Traces and contradictions waiting for review, oldest first" },
    args: { ...jsonArg },
    run({ args }) {
      const traces = listTraces();
      const conflicts = listConflicts();
      if (args.json) return printJson({ traces: traces.map(summary), conflicts });
      if (!traces.length && !conflicts.length) {
        consola.info("The inbox is empty.");
        return;
      }
      for (const c of conflicts)
        process.stdout.write(
          `${handle(c.id)}  conflict  ${c.project.label.slice(0, 20).padEnd(20)}  "${short(c.insight.title, 40)}" vs ${handle(c.existing.id)} "${short(c.existing.title, 40)}"\n`,
        );
      for (const t of traces) {
        process.stdout.write(
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
      if (c) return args.json ? printJson(c) : process.stdout.write(conflictLines(c));
      const t = requireTrace(args.id);
      if (args.json) return printJson(t);
      const s = summary(t);
      process.stdout.write(
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
  for (const i of insights) process.stderr.write(`  [${i.kind}] ${i.title}\n      ${short(i.body, 160)}\n`);
}

const approve = withExamples(
  defineCommand({
    meta: {
      name: "approve",
      description: "Distill a trace into entries (shows a preview first; --yes skips the question)",
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
      for (const e of res.entries) process.stdout.write(`    ${entryLine(e)}\n`);
      if (res.scrubbed) consola.warn(`${res.scrubbed}: replaced by [redacted] before sending and writing`);
    },
  }),
  ["coffer inbox approve 7A6B5C4D", "coffer inbox approve 7A6B5C4D --yes"],
);

const reject = withExamples(
  defineCommand({
    meta: {
      name: "reject",
      description: "Delete a trace without distilling it, or keep the entry a contradiction is about",
    },
    args: { ...idArg, ...jsonArg },
    run({ args }) {
      const c = findConflict(args.id);
      if (c) {
        rejectConflict(c);
        if (args.json) return printJson({ id: c.id, status: "rejected", kept: c.existing.id });
        return consola.success(`Rejected ${handle(c.id)}: entry ${handle(c.existing.id)} stays as it is`);
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
      description: "Review observed session traces and contradictions (list, show, approve, reject)",
    },
    subCommands: { list, show, approve, reject },
    default: "list",
  }),
  ["coffer inbox", "coffer inbox show <id>", "coffer inbox approve <id> --yes", "coffer inbox reject <id>"],
);
