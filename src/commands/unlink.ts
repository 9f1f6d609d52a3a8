import { defineCommand } from "citty";
import { forgetLinkedCli } from "../distill/linked-clis";
import { allHostLinks, loadHostLink } from "../hosts/index";
import type { HostLink } from "../hosts/link";
import { CofferError, usageError } from "../lib/errors";
import { HOSTS } from "../lib/hosts";
import { writeOut } from "../lib/output";
import { homeDir } from "../lib/paths";
import { applyPlan, type Plan, planUnlink, resolveTarget } from "../link/engine";
import { planJson, planText } from "../link/report";
import { withExamples } from "./_run";
import { jsonArg, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "unlink", description: "Remove Coffer's hooks and MCP server from an agent's config" },
    args: {
      host: { type: "positional", description: HOSTS.join(", "), required: false },
      all: { type: "boolean", description: "Every agent Coffer knows (whatever is linked is taken out)" },
      project: { type: "boolean", description: "Edit this repository's config instead of your user config" },
      "dry-run": { type: "boolean", description: "Print the diff and write nothing" },
      force: { type: "boolean", description: "Write read-only configs too" },
      "git-hook": {
        type: "boolean",
        description: "Instead of an agent: take coffer scan --staged out of this repository's pre-commit hook",
      },
      ...jsonArg,
    },
    async run({ args }) {
      if (args["git-hook"]) {
        if (args.host || args.all) throw usageError("--git-hook unlinks this repository's git hook, not an agent");
        const { removeGitHook } = await import("../link/git-hook");
        const { tilde } = await import("../link/files");
        const res = removeGitHook(process.cwd());
        if (args.json) return printJson(res);
        writeOut(
          res.status === "removed"
            ? `Took coffer scan --staged out of ${tilde(res.file)}\n`
            : `${tilde(res.file)} does not run coffer scan --staged; nothing to do\n`,
        );
        if (res.hooks_path) writeOut(`${(await import("../link/git-hook")).hooksPathNote(res)}\n`);
        return;
      }
      if (args.all && args.host) throw usageError("name one host or give --all, not both");
      if (!args.host && !args.all)
        throw usageError(
          "which agent? name the host to unlink, or --all",
          `e.g. coffer unlink claude (hosts: ${HOSTS.join(", ")}; \`coffer doctor\` shows what is linked)`,
        );
      const target = resolveTarget(!!args.project, process.cwd(), homeDir());
      const dryRun = !!args["dry-run"];
      const unlinkOne = (h: HostLink): Plan => {
        const plan = planUnlink(h, target);
        // In a repository unlink leaves nothing behind, backups included (git holds the history).
        if (!dryRun) applyPlan(plan, { force: !!args.force, noBackups: plan.scope === "project" });
        // Distillation no longer uses this agent's CLI without configuration.
        if (!dryRun && !args.project) forgetLinkedCli(h.host);
        return plan;
      };
      if (!args.all) {
        const h = await loadHostLink(args.host);
        const plan = unlinkOne(h);
        if (args.json) return printJson(planJson(plan, "unlink", dryRun));
        writeOut(planText(plan, h.name, "unlink", dryRun));
        return;
      }
      // --all: every host, installed or not (a config can outlive its agent); per-host report.
      const results: Record<string, unknown>[] = [];
      let failed = 0;
      for (const h of await allHostLinks()) {
        try {
          const plan = unlinkOne(h);
          results.push(planJson(plan, "unlink", dryRun));
          if (!args.json) writeOut(planText(plan, h.name, "unlink", dryRun));
        } catch (err) {
          if (!(err instanceof CofferError)) throw err;
          failed++;
          results.push({ host: h.host, error: err.message });
          if (!args.json) writeOut(`✗ ${h.name}: ${err.message}${err.hint ? ` (${err.hint})` : ""}\n`);
        }
      }
      if (args.json) printJson({ hosts: results });
      if (failed) process.exitCode = 1;
    },
  }),
  ["coffer unlink claude", "coffer unlink --all", "coffer unlink codex --project", "coffer unlink gemini --dry-run"],
);
