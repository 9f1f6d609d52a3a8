import { defineCommand } from "citty";
import { observeQueue } from "../capture/observe";
import { loadConfig } from "../config/config";
import { usageError } from "../lib/errors";
import { withExamples } from "./_run";
import { consola, jsonArg, parseLimit, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "observe", description: "Drain the session-end queue into the inbox" },
    args: {
      queue: { type: "boolean", description: "Read queue/session-queue.json (the session-end queue)" },
      "dry-run": { type: "boolean", description: "Report what would happen; change nothing" },
      limit: { type: "string", description: "Handle at most this many queued sessions" },
      ...jsonArg,
    },
    run({ args }) {
      if (!args.queue)
        throw usageError(
          "observe needs --queue (the session-end queue is its only source)",
          "e.g. coffer observe --queue --dry-run",
        );
      const limit = args.limit === undefined ? undefined : parseLimit(args.limit, 50, 100000);
      const report = observeQueue({ config: loadConfig(), dryRun: args["dry-run"], limit });
      if (args.json) return printJson(report);
      if (!report.results.length) {
        consola.info("The session-end queue is empty.");
        return;
      }
      for (const r of report.results) {
        const who = `${r.host} ${r.session}`;
        if (r.outcome === "stored")
          consola.success(`${who}: stored as inbox trace ${r.trace}${r.reason ? ` (${r.reason})` : ""}`);
        else if (r.outcome === "would_store")
          consola.info(`${who}: would be stored in the inbox${r.reason ? ` (${r.reason})` : ""}`);
        else if (r.outcome === "kept") consola.warn(`${who}: stays queued: ${r.reason}`);
        else consola.info(`${who}: skipped: ${r.reason}`);
      }
      const verb = report.dry_run ? "would store" : "stored";
      consola.log(
        `${verb} ${report.stored}, skipped ${report.skipped}, kept in the queue ${report.kept}${report.dry_run ? " (dry run: nothing changed)" : ""}`,
      );
      if (report.stored && !report.dry_run) consola.log("Review them with `coffer inbox list`.");
    },
  }),
  ["coffer observe --queue", "coffer observe --queue --dry-run", "coffer observe --queue --limit 5 --json"],
);
