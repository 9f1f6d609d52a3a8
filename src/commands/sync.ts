import { defineCommand } from "citty";
import { usageError } from "../lib/errors";
import { isTerminal, writeOut } from "../lib/output";
import { progressBar } from "../lib/progress";
import { describeCounts } from "../sync/message";
import { runSync } from "../sync/sync";
import { withExamples } from "./_run";
import { consola, jsonArg, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "sync", description: "Sync memory/ across machines with git (commit, pull --rebase, push)" },
    args: {
      init: {
        type: "string",
        description: "Make memory/ a git repository syncing with this remote (run once per machine)",
        valueHint: "remote-url",
      },
      ...jsonArg,
    },
    async run({ args }) {
      const init = args.init as unknown;
      if (init !== undefined && (typeof init !== "string" || !init.trim())) {
        throw usageError(
          "--init needs a remote URL",
          "e.g. coffer sync --init git@github.com:me/coffer-memory.git (or a path to a bare repository)",
        );
      }
      let bar: ReturnType<typeof progressBar> | undefined;
      let report: Awaited<ReturnType<typeof runSync>>;
      try {
        report = await runSync({
          init: args.init,
          interactive: Boolean(process.stdin.isTTY && isTerminal(2)),
          notice: (m) => consola.info(m),
          onStep: (_step, i, total) => {
            bar ??= progressBar("syncing", total);
            bar.tick(i + 1);
          },
        });
      } finally {
        bar?.done();
      }
      if (args.json) return printJson(report);
      consola.success(
        `${report.initialized ? "Sync set up" : "Synced"}: memory/ <-> ${report.remote} (${report.branch})`,
      );
      const lines: string[] = [];
      lines.push(
        report.sent.scopes.length
          ? `  sent:     ${report.sent.scopes.map(describeCounts).join("; ")}`
          : "  sent:     nothing new",
      );
      lines.push(
        report.received.scopes.length
          ? `  received: ${report.received.scopes.map(describeCounts).join("; ")}`
          : "  received: nothing new",
      );
      lines.push(
        `  pushed:   ${report.pushed} commit${report.pushed === 1 ? "" : "s"}${report.reindexed ? `; reindexed ${report.reindexed} entr${report.reindexed === 1 ? "y" : "ies"}` : ""}`,
      );
      writeOut(`${lines.join("\n")}\n`);
      for (const c of report.conflicts) consola.warn(c.resolution);
      if (report.removed.length) {
        consola.warn(
          `Removed ${report.removed.length} symbolic link(s), submodule(s) or file(s) git would act on (.gitattributes, .gitmodules, .mailmap, a nested .gitignore) from memory/: sync never carries them: ${report.removed.slice(0, 5).join(", ")}${report.removed.length > 5 ? ", …" : ""}`,
        );
      }
      if (report.untracked.length) {
        consola.info(
          `Stopped syncing ${report.untracked.length} file(s) that are not memory content (kept on disk): ${report.untracked.slice(0, 5).join(", ")}${report.untracked.length > 5 ? ", …" : ""}`,
        );
      }
    },
  }),
  [
    "coffer sync --init git@github.com:me/coffer-memory.git   # once per machine",
    "coffer sync                                              # commit, pull --rebase, push",
    "coffer sync --json",
  ],
);
