import { defineCommand } from "citty";
import { loadConfig } from "../config/config";
import { recordLinkedCli } from "../distill/linked-clis";
import { cliFacts, isCliSettings, resolveModel } from "../distill/model";
import { allHostLinks, loadHostLink } from "../hosts/index";
import { type HostLink, installedEvidence } from "../hosts/link";
import { CofferError, usageError } from "../lib/errors";
import { HOSTS, type Host } from "../lib/hosts";
import { isTerminal, writeErr, writeOut } from "../lib/output";
import { homeDir } from "../lib/paths";
import { thousands } from "../lib/time";
import { applyPlan, currentBinary, type Plan, planLink, resolveTarget } from "../link/engine";
import { planJson, planText } from "../link/report";
import { setConfigValue } from "./_config";
import { withExamples } from "./_run";
import { consola, jsonArg, printJson } from "./_shared";

/**
 * Record the linked agent's CLI (zero-configuration distillation uses the first one found) and say
 * in one line what distillation will use, when no [model] is configured.
 */
function distillationNote(host: Host): string | undefined {
  const linked = recordLinkedCli(host);
  const config = loadConfig();
  if (config["model.provider"]) return undefined; // the user chose a model (or "none")
  const choice = resolveModel(config);
  // Said once, when this agent's CLI is the one chosen (a later link of another agent keeps it).
  if (
    choice.source === "linked" &&
    choice.settings &&
    isCliSettings(choice.settings) &&
    linked?.cli.provider === choice.settings.provider
  ) {
    const cli = cliFacts(choice.settings);
    const budget = config["distill.daily_token_budget"];
    const within = budget ? `within ${thousands(budget)} tokens a day` : "with no daily token limit";
    return `Distillation will use \`${cli.command}\` (${cli.plan}), ${within}; \`coffer config set model.provider none\` turns it off`;
  }
  if (linked && !linked.path)
    return `Distillation: \`${linked.cli.bin}\` was not found (PATH and the usual places), so nothing is distilled yet; install it and link again, or configure a model (coffer config set model.provider ...)`;
  return undefined;
}

/** --session-end / --no-session-end / neither (keep what is installed). */
function triState(raw: string[], name: string): boolean | undefined {
  const last = raw.filter((a) => a === `--${name}` || a === `--no-${name}`).pop();
  return last === undefined ? undefined : last === `--${name}`;
}

export default withExamples(
  defineCommand({
    meta: { name: "link", description: "Install Coffer's hooks and MCP server into an agent's config" },
    args: {
      host: { type: "positional", description: HOSTS.join(", "), required: false },
      all: {
        type: "boolean",
        description: "Every agent installed on this machine (its config folder, or its binary on PATH)",
      },
      project: { type: "boolean", description: "Write this repository's config instead of your user config" },
      "session-end": {
        type: "boolean",
        description:
          "Queue finished sessions for distillation (Claude: SessionEnd hook; Codex, Gemini: the transcript sweep). --no-session-end removes the hook",
      },
      mcp: {
        type: "boolean",
        default: true,
        description:
          "Do not register Coffer's MCP server (by default it is registered); a later link of the host keeps it out until --mcp",
      },
      "dry-run": { type: "boolean", description: "Print the diff and write nothing" },
      "git-hook": {
        type: "boolean",
        description:
          "Instead of an agent: this repository's pre-commit hook runs `coffer scan --staged` (a secret in a staged .coffer/ file stops the commit)",
      },
      "native-memory": {
        type: "string",
        valueHint: "off|keep",
        description:
          "off: switch the agent's own memory off (offers to import what it saved first); keep: leave it on. Saved as native_memory.<host>",
      },
      force: {
        type: "boolean",
        description:
          "Replace an MCP entry named coffer that Coffer did not write (unlink puts it back); write read-only configs",
      },
      ...jsonArg,
    },
    async run({ args, rawArgs }) {
      if (args["git-hook"]) {
        if (args.host || args.all) throw usageError("--git-hook links this repository's git hook, not an agent");
        const { installGitHook } = await import("../link/git-hook");
        const { tilde } = await import("../link/files");
        // `coffer` from PATH when that is this binary's name there, else this binary's path
        const res = installGitHook(process.cwd(), Bun.which("coffer") ? "coffer" : currentBinary());
        if (args.json) return printJson(res);
        const where = tilde(res.file);
        if (res.status === "already") consola.info(`${where} already runs coffer scan --staged`);
        else
          consola.success(
            res.status === "created"
              ? `Created ${where}: commits with a secret in a staged .coffer/ file are refused`
              : `Added coffer scan --staged to ${where} (the file as it was: ${tilde(res.backup!)})`,
          );
        const { hooksPathNote } = await import("../link/git-hook");
        consola.info(hooksPathNote(res));
        return;
      }
      if (args.all && args.host) throw usageError("name one host or give --all, not both");
      if (!args.host && !args.all)
        throw usageError(
          "which agent? name one host, or --all for every agent installed here",
          `e.g. coffer link claude (hosts: ${HOSTS.join(", ")})`,
        );
      // A repository's config is shared with teammates: it names `coffer` from PATH, not this machine's path.
      const self = currentBinary();
      const bin = args.project ? "coffer" : self;
      const target = resolveTarget(!!args.project, process.cwd(), homeDir());
      const dryRun = !!args["dry-run"];
      const native = args["native-memory"];
      if (native !== undefined && native !== "off" && native !== "keep")
        throw usageError(`--native-memory must be off or keep (got ${JSON.stringify(native)})`);
      const config = loadConfig();
      const pathNote =
        args.project && !Bun.which("coffer")
          ? "`coffer` is not on PATH here: agents run the project's hooks as `coffer ...`, so put the binary on PATH (see the README's set-up)."
          : undefined;

      const linkOne = async (h: HostLink): Promise<Plan> => {
        const plan = planLink(h, {
          target,
          bin,
          sessionEnd: triState(rawArgs, "session-end"),
          // Neither --mcp nor --no-mcp: as this host's last link said (registered unless --no-mcp).
          mcp: args.mcp === false ? false : triState(rawArgs, "mcp"),
          config: native ? { ...config, [`native_memory.${h.host}`]: native } : config,
          force: !!args.force,
        });
        if (!dryRun && native === "off") {
          // What the agent saved in its own memory stays readable to Coffer: offer to bring it over first.
          const { offerNativeImport } = await import("../import/offer");
          const interactive = Boolean(process.stdin.isTTY && isTerminal(2)) && !args.json;
          const ask = async (q: string) => (await consola.prompt(q, { type: "confirm", initial: true })) === true;
          for (const line of await offerNativeImport(h.host, { interactive, ask })) writeErr(`${line}\n`);
        }
        if (!dryRun) applyPlan(plan, { force: !!args.force });
        if (!dryRun && native) setConfigValue(`native_memory.${h.host}`, native);
        if (pathNote) plan.notes.push(pathNote);
        if (!dryRun) {
          const line = distillationNote(h.host);
          if (line) plan.notes.push(line);
        }
        return plan;
      };

      if (!args.all) {
        const h = await loadHostLink(args.host);
        const plan = await linkOne(h);
        if (args.json) return printJson(planJson(plan, "link", dryRun, bin));
        writeOut(planText(plan, h.name, "link", dryRun, bin));
        return;
      }
      // --all: every host installed on this machine; one that fails does not stop the others.
      const results: Record<string, unknown>[] = [];
      let failed = 0;
      for (const h of await allHostLinks()) {
        const found = installedEvidence(h, homeDir());
        if (!found) {
          results.push({ host: h.host, installed: false });
          if (!args.json)
            writeOut(
              `· ${h.name}: not installed (no ${h.installed.dirs.map((d) => `~/${d}`).join(" or ")}, no ${h.installed.bins.join(" or ")} on PATH); skipped\n`,
            );
          continue;
        }
        try {
          const plan = await linkOne(h);
          results.push({ ...planJson(plan, "link", dryRun, bin), installed: found });
          if (!args.json) writeOut(`${planText(plan, `${h.name} (${found})`, "link", dryRun, bin)}`);
        } catch (err) {
          if (!(err instanceof CofferError)) throw err;
          failed++;
          results.push({ host: h.host, installed: found, error: err.message });
          if (!args.json) writeOut(`✗ ${h.name}: ${err.message}${err.hint ? ` (${err.hint})` : ""}\n`);
        }
      }
      if (args.json) printJson({ hosts: results });
      if (failed) process.exitCode = 1;
    },
  }),
  [
    "coffer link claude",
    "coffer link --all                    # every agent installed here, one report per host",
    "coffer link codex --session-end      # Codex: turns on the transcript sweep",
    "coffer link gemini --project         # this repository's .gemini/settings.json",
    "coffer link cursor --dry-run         # print the diff, write nothing",
    "coffer link opencode --no-mcp",
    "coffer link claude --native-memory off   # offers to import Claude's own memories first",
    "coffer link --git-hook               # this repository's pre-commit runs coffer scan --staged",
  ],
);
