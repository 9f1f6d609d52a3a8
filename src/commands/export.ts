import { resolve } from "node:path";
import { defineCommand } from "citty";
import { exportRecords, exportScopes, toJsonl, toMarkdown } from "../import/export";
import { writeFileAtomic } from "../lib/atomic";
import { usageError } from "../lib/errors";
import { writeErr, writeOut } from "../lib/output";
import { withExamples } from "./_run";
import { plural } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "export", description: "Write every entry, rule and handoff to JSONL (lossless) or Markdown" },
    args: {
      scope: { type: "string", description: "all (default), global, project (this repository) or a project id" },
      format: { type: "string", description: "jsonl (default; `coffer import coffer` reads it) or markdown" },
      out: { type: "string", description: "Write to this file instead of stdout" },
    },
    run({ args }) {
      const format = args.format ?? "jsonl";
      if (format !== "jsonl" && format !== "markdown")
        throw usageError(`unknown format "${format}" (allowed: jsonl, markdown)`);
      const records = [...exportRecords(exportScopes(args.scope, process.cwd()))];
      const text = format === "jsonl" ? toJsonl(records) : toMarkdown(records);
      if (!args.out) return void writeOut(text);
      const file = resolve(args.out);
      writeFileAtomic(file, text, 0o600);
      const count = (t: string) => records.filter((r) => r.type === t).length;
      writeErr(
        `Exported ${plural(count("entry"), "entry", "entries")}, ${plural(count("rules"), "rules file")} and ${plural(count("handoff"), "handoff")} from ${plural(
          new Set(records.filter((r) => "scope" in r).map((r) => (r as { scope: string }).scope)).size,
          "scope",
        )} to ${file}\n`,
      );
    },
  }),
  [
    "coffer export --out memory.jsonl",
    "coffer export --scope project --out this-repo.jsonl   # hand a project's memory to a teammate",
    "coffer export --format markdown > memory.md",
  ],
);
