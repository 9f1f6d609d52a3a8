import { defineCommand } from "citty";
import type { ImportReport } from "../import/engine";
import { listManifests } from "../import/manifest";
import { manifestsText, reportText, undoText } from "../import/report";
import type { ImportPlan } from "../import/types";
import { undoImport } from "../import/undo";
import { usageError } from "../lib/errors";
import { writeOut } from "../lib/output";
import { withExamples } from "./_run";
import { cliStore, consola, printJson } from "./_shared";

const common = {
  "dry-run": { type: "boolean", description: "Print counts per scope and kind and three samples; write nothing" },
  json: { type: "boolean", description: "Print machine-readable JSON" },
} as const;

/** claude-mem and engram both name projects by folder name: where one without a repository goes. */
const projectArg = {
  type: "string",
  description: "Where projects without a repository go: <dir|global>, or name=<dir|global> pairs",
} as const;

async function finish(
  plan: ImportPlan | ((dryRun: boolean) => Promise<ImportReport>),
  args: { "dry-run"?: boolean; json?: boolean },
): Promise<ImportReport> {
  const { applyImport } = await import("../import/engine");
  if (typeof plan !== "function") for (const w of plan.warnings ?? []) consola.warn(w);
  const report =
    typeof plan === "function" ? await plan(!!args["dry-run"]) : await applyImport(plan, { dryRun: !!args["dry-run"] });
  const keywords = report.dry_run || !report.created ? undefined : await importKeywords(report);
  if (args.json) printJson(keywords ? { ...report, keywords } : report);
  else {
    writeOut(reportText(report));
    if (keywords)
      writeOut(
        `Keywords: ${keywords.enriched} entries${keywords.error ? ` (then: ${keywords.error}; \`coffer enrich\` does the rest)` : ""}\n`,
      );
  }
  return report;
}

/** With model.keywords = on-write: keywords for the entries this import created, one call per 20. */
async function importKeywords(report: ImportReport): Promise<{ enriched: number; error?: string } | undefined> {
  const store = cliStore({ freshness: "none" });
  if (store.config["model.keywords"] !== "on-write") return undefined;
  const { modelSettings } = await import("../distill/model");
  const settings = modelSettings(store.config);
  const manifest = listManifests().find((m) => m.import_id === report.import_id);
  if (!settings || !manifest) return undefined;
  const { findEntry } = await import("../store/entries");
  const hits = manifest.created.flatMap((c) => findEntry(store, c.id, { scopes: [c.scope] }) ?? []);
  const { enrichEntries } = await import("../distill/keywords");
  const res = await enrichEntries(store, settings, hits);
  return { enriched: res.enriched, ...(res.error ? { error: res.error } : {}) };
}

const claudeMem = withExamples(
  defineCommand({
    meta: { name: "claude-mem", description: "Import claude-mem observations and session summaries" },
    args: {
      db: { type: "string", description: "claude-mem database (default ~/.claude-mem/claude-mem.db)" },
      project: projectArg,
      ...common,
    },
    async run({ args }) {
      const { planClaudeMem } = await import("../import/claude-mem");
      await finish(planClaudeMem({ db: args.db, project: args.project }), args);
    },
  }),
  [
    "coffer import claude-mem --dry-run",
    "coffer import claude-mem --db ~/backup/claude-mem.db",
    'coffer import claude-mem --project "old-app=~/src/app,scratch=global"',
  ],
);

const engram = withExamples(
  defineCommand({
    meta: { name: "engram", description: "Import an `engram export` JSON file" },
    args: {
      file: { type: "positional", description: "The file `engram export` wrote", required: true },
      project: projectArg,
      ...common,
    },
    async run({ args }) {
      const { planEngram } = await import("../import/engram");
      await finish(planEngram({ file: args.file, project: args.project }), args);
    },
  }),
  ["engram export memories.json && coffer import engram memories.json --dry-run"],
);

const native = withExamples(
  defineCommand({
    meta: {
      name: "native",
      description:
        "Import what the agents saved themselves (Claude auto memory, Gemini memories, Codex memories, Qwen auto memory); an edited file updates its entry",
    },
    args: {
      // --agent, as in `distill --agent` and `hook --agent` (--host, its first name, still works).
      agent: {
        type: "string",
        alias: "host",
        description: "Only these agents (comma-separated): claude, gemini, codex, qwen",
        valueHint: "claude,gemini",
      },
      project: {
        type: "string",
        description: "Where Claude project memories without a repository go: <dir|global>, or name=<dir|global>",
      },
      ...common,
    },
    async run({ args }) {
      const { harvestNative } = await import("../import/harvest");
      await finish((dryRun) => harvestNative({ hosts: args.agent, project: args.project, dryRun }), args);
    },
  }),
  ["coffer import native --dry-run", "coffer import native --agent claude"],
);

const coffer = withExamples(
  defineCommand({
    meta: { name: "coffer", description: "Import a `coffer export` JSONL file (ids, rules and handoffs kept)" },
    args: {
      file: { type: "positional", description: "The file `coffer export` wrote (- for stdin)", required: true },
      ...common,
    },
    async run({ args }) {
      const { planCoffer } = await import("../import/coffer");
      const text = args.file === "-" ? await Bun.stdin.text() : undefined;
      await finish(planCoffer({ file: args.file, text }), args);
    },
  }),
  [
    "coffer export --out memory.jsonl && coffer import coffer memory.jsonl",
    "coffer import coffer teammate.jsonl --dry-run",
  ],
);

const SUBS = ["claude-mem", "engram", "native", "coffer"];

export default withExamples(
  defineCommand({
    meta: {
      name: "import",
      description: "Bring memories in from claude-mem, engram, the agents' own files, or a Coffer export",
    },
    args: {
      undo: {
        type: "string",
        valueHint: "import-id",
        description: "Remove exactly what the import with this id added",
      },
      list: { type: "boolean", description: "List the imports made on this machine" },
      json: { type: "boolean", description: "Print machine-readable JSON" },
    },
    subCommands: { "claude-mem": claudeMem, engram, native, coffer },
    run({ args, rawArgs }) {
      if (rawArgs.some((a) => SUBS.includes(a))) return; // citty ran the sub-command already
      if (args.undo) {
        const r = undoImport(args.undo);
        if (args.json) return printJson(r);
        return void writeOut(undoText(r));
      }
      if (args.list) {
        const list = listManifests();
        if (args.json) return printJson(list);
        return void writeOut(manifestsText(list));
      }
      throw usageError(
        "name what to import: claude-mem, engram, native or coffer",
        "e.g. coffer import claude-mem --dry-run; coffer import --undo <import-id>",
      );
    },
  }),
  [
    "coffer import claude-mem --dry-run",
    "coffer import engram engram-export.json",
    "coffer import native",
    "coffer import coffer teammate.jsonl",
    "coffer import --list",
    "coffer import --undo 01JD3K5M2Q8T1V9X0Y4Z7A6B5C",
  ],
);
