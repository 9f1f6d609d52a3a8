import { defineCommand } from "citty";
import { setHandoff } from "../store/handoff";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, printJson, textFromArgs } from "./_shared";

const set = withExamples(
  takesWords(
    defineCommand({
      meta: { name: "set", description: "Save the handoff for this project + branch" },
      args: {
        text: { type: "positional", description: 'Where the work stands ("-" reads stdin)', required: true },
        ...jsonArg,
      },
      async run({ args }) {
        const store = cliStore({ freshness: "none" });
        const res = setHandoff(store, await textFromArgs(args._.length ? args._ : [args.text]), "user");
        if (args.json) return printJson(res);
        consola.success(
          `Handoff saved for ${res.branch ? `branch ${res.branch}` : "detached HEAD"} (${store.project?.label})`,
        );
      },
    }),
  ),
  [
    'coffer handoff set "Migrating auth to sessions; next: delete the JWT middleware"',
    "coffer handoff set - < notes.md",
  ],
);

export default withExamples(
  defineCommand({
    meta: { name: "handoff", description: "Save where work stands on this project + branch" },
    subCommands: { set },
  }),
  ['coffer handoff set "Half-way through the parser rewrite; tests in test/parse pass"'],
);
