import { defineCommand } from "citty";
import { describeFound } from "../scrub/index";
import { scanMemory } from "../scrub/scan";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, notice, plural, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: {
      name: "scan",
      description: "Find secrets already in memory/ (exit 1 when some remain); --fix redacts them in place",
    },
    args: {
      fix: {
        type: "boolean",
        description: "Replace each secret by [redacted] (atomic writes), then refresh the index",
      },
      ...jsonArg,
    },
    run({ args }) {
      const r = scanMemory({ fix: Boolean(args.fix) });
      // fixed files are re-read by the index now, so search stops returning the old text
      if (args.fix && r.findings.length) cliStore({ freshness: "deep" });
      if (r.secrets && !args.fix) process.exitCode = 1;
      if (args.json) return printJson(r);
      for (const f of r.findings) console.log(`${f.path}: ${describeFound(f.found)}${f.fixed ? " — redacted" : ""}`);
      for (const s of r.skipped) notice(`skipped ${s} (not a regular file, or over 4 MiB)`);
      if (!r.secrets) return consola.success(`No secrets in ${plural(r.files, "file")}.`);
      const where = `${plural(r.secrets, "secret")} in ${plural(r.findings.length, "file")}`;
      if (args.fix) consola.success(`Redacted ${where}.`);
      else consola.warn(`Found ${where}. Run \`coffer scan --fix\` to redact them in place.`);
    },
  }),
  ["coffer scan", "coffer scan --fix", "coffer scan --json"],
);
