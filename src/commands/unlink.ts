import { defineCommand } from "citty";
import { loadHostLink } from "../hosts/index";
import { usageError } from "../lib/errors";
import { HOSTS } from "../lib/hosts";
import { homeDir } from "../lib/paths";
import { applyPlan, planUnlink, resolveTarget } from "../link/engine";
import { planJson, planText } from "../link/report";
import { withExamples } from "./_run";
import { jsonArg, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "unlink", description: "Remove Coffer's hooks and MCP server from an agent's config" },
    args: {
      host: { type: "positional", description: "claude, codex, gemini, cursor, windsurf or opencode", required: false },
      project: { type: "boolean", description: "Edit this repository's config instead of your user config" },
      "dry-run": { type: "boolean", description: "Print the diff and write nothing" },
      force: { type: "boolean", description: "Write read-only configs too" },
      ...jsonArg,
    },
    async run({ args }) {
      if (!args.host)
        throw usageError(
          "which agent? name the host to unlink",
          `e.g. coffer unlink claude (hosts: ${HOSTS.join(", ")}; \`coffer doctor\` shows what is linked)`,
        );
      const h = await loadHostLink(args.host);
      const target = resolveTarget(!!args.project, process.cwd(), homeDir());
      const dryRun = !!args["dry-run"];
      const plan = planUnlink(h, target);
      if (!dryRun) applyPlan(plan, { force: !!args.force });
      if (args.json) return printJson(planJson(plan, "unlink", dryRun));
      process.stdout.write(planText(plan, h.name, "unlink", dryRun));
    },
  }),
  ["coffer unlink claude", "coffer unlink codex --project", "coffer unlink gemini --dry-run"],
);
