import { defineCommand } from "citty";
import { loadHostLink } from "../hosts/index";
import { usageError } from "../lib/errors";
import { homeDir } from "../lib/paths";
import { applyPlan, currentBinary, planLink, resolveTarget } from "../link/engine";
import { planJson, planText } from "../link/report";
import { loadConfig } from "../store/config";
import { withExamples } from "./_run";
import { consola, jsonArg, printJson } from "./_shared";
import { setConfigValue } from "./config";

/** --session-end / --no-session-end / neither (keep what is installed). */
function triState(raw: string[], name: string): boolean | undefined {
  const last = raw.filter((a) => a === `--${name}` || a === `--no-${name}`).pop();
  return last === undefined ? undefined : last === `--${name}`;
}

export default withExamples(
  defineCommand({
    meta: { name: "link", description: "Install Coffer's hooks and MCP server into an agent's config" },
    args: {
      host: { type: "positional", description: "claude, codex, gemini, cursor, windsurf or opencode", required: false },
      project: { type: "boolean", description: "Write this repository's config instead of your user config" },
      "session-end": {
        type: "boolean",
        description:
          "Queue finished sessions for distillation (Claude: SessionEnd hook; Codex, Gemini: the transcript sweep). --no-session-end removes the hook",
      },
      mcp: { type: "boolean", default: true, description: "Register Coffer's MCP server (--no-mcp skips it)" },
      "dry-run": { type: "boolean", description: "Print the diff and write nothing" },
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
      const h = await loadHostLink(args.host);
      // A repository's config is shared with teammates: it names `coffer` from PATH, not this machine's path.
      const self = currentBinary();
      const bin = args.project ? "coffer" : self;
      const target = resolveTarget(!!args.project, process.cwd(), homeDir());
      const dryRun = !!args["dry-run"];
      const native = args["native-memory"];
      if (native !== undefined && native !== "off" && native !== "keep")
        throw usageError(`--native-memory must be off or keep (got ${JSON.stringify(native)})`);
      const config = loadConfig();
      const plan = planLink(h, {
        target,
        bin,
        sessionEnd: triState(rawArgs, "session-end"),
        mcp: !rawArgs.includes("--no-mcp") && args.mcp !== false,
        config: native ? { ...config, [`native_memory.${h.host}`]: native } : config,
        force: !!args.force,
      });
      if (!dryRun && native === "off") {
        // What the agent saved in its own memory stays readable to Coffer: offer to bring it over first.
        const { offerNativeImport } = await import("../import/offer");
        const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY) && !args.json;
        const ask = async (q: string) => (await consola.prompt(q, { type: "confirm", initial: true })) === true;
        for (const line of await offerNativeImport(h.host, { interactive, ask })) process.stderr.write(`${line}\n`);
      }
      if (!dryRun) applyPlan(plan, { force: !!args.force });
      if (!dryRun && native) setConfigValue(`native_memory.${h.host}`, native);
      const onPath = Bun.which("coffer");
      if (args.project && !onPath)
        plan.notes.push(
          "`coffer` is not on PATH here: agents run the project's hooks as `coffer ...`, so put the binary on PATH (see the README's set-up).",
        );
      if (args.json) return printJson(planJson(plan, "link", dryRun, bin));
      process.stdout.write(planText(plan, h.name, "link", dryRun, bin));
    },
  }),
  [
    "coffer link claude",
    "coffer link codex --session-end      # Codex: turns on the transcript sweep",
    "coffer link gemini --project         # this repository's .gemini/settings.json",
    "coffer link cursor --dry-run         # print the diff, write nothing",
    "coffer link opencode --no-mcp",
    "coffer link claude --native-memory off   # offers to import Claude's own memories first",
  ],
);
