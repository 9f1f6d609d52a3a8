import { defineCommand } from "citty";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { writeOut } from "../lib/output";
import { checkKnownProjects, checkProjectStale, keepStale, reasonText, requireEntry, STALE_BUDGET_MS } from "../store";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, notice, paint, plural, printJson } from "./_shared";

const check = withExamples(
  defineCommand({
    meta: {
      name: "check",
      description: "Check this project's entries against its working tree: files, scripts, targets, dependencies",
    },
    args: {
      all: {
        type: "boolean",
        description:
          "Check every project checked on this machine before too (what `coffer serve` does in the background)",
      },
      ...jsonArg,
    },
    run({ args }) {
      const store = cliStore();
      if (args.all) {
        const reports = checkKnownProjects(store);
        const projects = reports.map((r) => ({
          scope: r.scope,
          root: r.root,
          checked: r.checked,
          stale: r.stale.length,
          kept: r.kept,
          unchecked: r.unchecked,
        }));
        if (args.json) return printJson({ projects });
        for (const p of projects)
          notice(
            `${p.root}: ${plural(p.stale, "stale entry", "stale entries")} of ${plural(p.checked, "entry", "entries")} checked${p.unchecked ? `, ${p.unchecked} left for the next check` : ""}.`,
          );
        if (!projects.length) notice("No project to check: run `coffer stale` inside a repository first.");
        return;
      }
      const report = checkProjectStale(store);
      if (!report) {
        if (args.json) return printJson({ checked: 0, stale: [], kept: 0 });
        notice("Not in a repository: nothing to check (global entries are never checked).");
        return;
      }
      if (args.json)
        return printJson({
          project: store.project?.label,
          root: report.root,
          checked: report.checked,
          kept: report.kept,
          unchecked: report.unchecked,
          stale: report.stale.map((s) => ({
            id: s.id,
            title: s.title,
            reasons: s.reasons, // `why` and `moved` say it all: no `text` that repeats `why`
          })),
        });
      for (const s of report.stale) {
        writeOut(`${paint.id(handle(s.id))}  ${s.title}\n`);
        for (const r of s.reasons) writeOut(`  ${paint.bad("-")} ${reasonText(r)}\n`);
      }
      const kept = report.kept ? `, ${report.kept} kept` : "";
      notice(
        `${plural(report.stale.length, "stale entry", "stale entries")} of ${plural(report.checked, "entry", "entries")} that name files, scripts or dependencies${kept} (${store.project?.label}).`,
      );
      if (report.unchecked)
        notice(
          `${plural(report.unchecked, "entry", "entries")} not checked within ${STALE_BUDGET_MS / 1000} s: run \`coffer stale\` again to go on from there.`,
        );
      if (report.stale.length)
        notice("Fix with `coffer edit <id>`, drop with `coffer forget <id>`, or keep as is: `coffer stale keep <id>`.");
    },
  }),
  ["coffer stale", "coffer stale --json", "coffer stale --all"],
);

const keep = withExamples(
  defineCommand({
    meta: {
      name: "keep",
      description: "Keep an entry as it is: silence its current reasons until a file changes again",
    },
    args: {
      id: { type: "positional", description: "Entry id as `coffer stale` shows it, or the whole id", required: true },
      ...jsonArg,
    },
    run({ args }) {
      const store = cliStore();
      const hit = requireEntry(store, args.id);
      let reasons = keepStale(store, hit.scope, hit.entry.id);
      if (!reasons.length && store.project?.id === hit.scope) {
        checkProjectStale(store);
        reasons = keepStale(store, hit.scope, hit.entry.id);
      }
      if (!reasons.length)
        throw new CofferError(
          `entry ${handle(hit.entry.id)} is not stale: nothing to keep`,
          1,
          "`coffer stale` lists the stale entries of this project.",
        );
      if (args.json) return printJson({ id: hit.entry.id, kept: reasons });
      consola.success(`Kept ${handle(hit.entry.id)}: ${reasons.map(reasonText).join("; ")}`);
    },
  }),
  ["coffer stale keep 3ABCDEFG"],
);

export default withExamples(
  defineCommand({
    meta: { name: "stale", description: "Entries whose files, scripts, targets or dependencies are gone" },
    subCommands: { check, keep },
    default: "check",
  }),
  ["coffer stale                  # check this project now", "coffer stale keep 3ABCDEFG     # it still holds"],
);
