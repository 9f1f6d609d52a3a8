import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { defineCommand } from "citty";
import { CofferError } from "../lib/errors";
import { writeOut } from "../lib/output";
import { addRule, GLOBAL, ruleScopes, rulesPath, scopeKey, scopeName, shownRules, TEAM_FOLDER } from "../store";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, printJson, scopeArg, textFromArgs } from "./_shared";

const show = withExamples(
  defineCommand({
    meta: { name: "show", description: "Print the rules delivered at session start (project, then global)" },
    args: { ...scopeArg, ...jsonArg },
    run({ args }) {
      const store = cliStore({ freshness: "none" });
      const one = scopeKey(store, args.scope, "both");
      const lanes = (one ? [one] : ruleScopes(store)).map((s) => ({
        scope: scopeName(store, s),
        file: rulesPath(s),
        text: shownRules(s),
      }));
      if (args.json) return printJson({ rules: lanes });
      const heading = {
        global: "Global",
        project: `Project (${store.project?.label})`,
        team: `Team (${store.team?.label}, ${TEAM_FOLDER}/rules.md)`,
      };
      for (const lane of lanes) {
        writeOut(`## ${heading[lane.scope]}\n`);
        writeOut(lane.text.trim() ? `${lane.text.trimEnd()}\n\n` : "(none)\n\n");
      }
    },
  }),
  ["coffer rules show", "coffer rules show --scope global --json"],
);

const add = withExamples(
  takesWords(
    defineCommand({
      meta: { name: "add", description: "Append a rule (one bullet)" },
      args: {
        text: { type: "positional", description: "The rule", required: true },
        ...scopeArg,
        "allow-secret": {
          type: "boolean",
          description: "Keep secrets in the text as given (by default each becomes [redacted])",
        },
      },
      async run({ args }) {
        const store = cliStore({ freshness: "none" });
        const scope = scopeKey(store, args.scope)!;
        const res = addRule(
          store,
          scope,
          await textFromArgs(args._.length ? args._ : [args.text], 'coffer rules add "Run bun test before committing"'),
          "user",
          {
            allowSecret: Boolean(args["allow-secret"]),
          },
        );
        if (res.scrubbed) consola.warn(`${res.scrubbed}: replaced by [redacted] (--allow-secret keeps them)`);
        const where =
          scope === GLOBAL
            ? "global"
            : scopeName(store, scope) === "team"
              ? `team: ${TEAM_FOLDER}/rules.md, commit it to share it`
              : `project ${store.project?.label}`;
        if (res.added) consola.success(`Rule added (${where})`);
        else consola.info(`That rule is already there (${where})`);
      },
    }),
  ),
  [
    'coffer rules add "Run bun test before every commit"',
    'coffer rules add "Answer in English" --scope global',
    'coffer rules add "Migrations go through make migrate" --scope team   # .coffer/rules.md, committed',
  ],
);

const edit = withExamples(
  defineCommand({
    meta: { name: "edit", description: "Open a scope's rules.md in $EDITOR" },
    args: { ...scopeArg },
    run({ args }) {
      const store = cliStore({ freshness: "none" });
      const scope = scopeKey(store, args.scope)!;
      const file = rulesPath(scope);
      mkdirSync(dirname(file), { recursive: true, mode: scopeName(store, scope) === "team" ? 0o755 : 0o700 });
      if (!existsSync(file)) writeFileSync(file, "");
      const editor = process.env.VISUAL || process.env.EDITOR || "vi";
      const proc = Bun.spawnSync(["sh", "-c", `${editor} "$1"`, "coffer-edit", file], {
        stdio: ["inherit", "inherit", "inherit"],
      });
      if (proc.exitCode !== 0) throw new CofferError(`${editor} exited with ${proc.exitCode}`);
    },
  }),
  ["coffer rules edit", "coffer rules edit --scope global"],
);

export default withExamples(
  defineCommand({
    meta: { name: "rules", description: "Show, add or edit rules (delivered at every session start)" },
    subCommands: { show, add, edit },
    default: "show",
  }),
  ["coffer rules", 'coffer rules add "Never commit .env files"', "coffer rules edit --scope global"],
);
