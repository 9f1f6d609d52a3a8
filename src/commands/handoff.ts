import { defineCommand } from "citty";
import { clearHandoff, setHandoff } from "../store";
import { takesWords } from "./_args";
import { printHandoff } from "./_handoff";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, notice, printJson, textFromArgs } from "./_shared";

const set = withExamples(
  takesWords(
    defineCommand({
      meta: { name: "set", description: "Save the handoff for this project + branch" },
      args: {
        text: { type: "positional", description: 'Where the work stands ("-" reads stdin)', required: true },
        "allow-secret": {
          type: "boolean",
          description: "Keep secrets in the text as given (by default each becomes [redacted])",
        },
        ...jsonArg,
      },
      async run({ args }) {
        const store = cliStore({ freshness: "none" });
        const res = setHandoff(
          store,
          await textFromArgs(
            args._.length ? args._ : [args.text],
            'coffer handoff set "Refunds half done; next: the webhook"',
          ),
          "user",
          {
            allowSecret: Boolean(args["allow-secret"]),
          },
        );
        if (res.scrubbed) consola.warn(`${res.scrubbed}: replaced by [redacted] (--allow-secret keeps them)`);
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

const show = withExamples(
  defineCommand({
    meta: { name: "show", description: "Print this branch's handoff with its freshness (same as `coffer resume`)" },
    args: { ...jsonArg },
    run({ args }) {
      printHandoff(args.json);
    },
  }),
  ["coffer handoff", "coffer handoff show --json"],
);

const clear = withExamples(
  defineCommand({
    meta: { name: "clear", description: "Remove this branch's handoff (the work it described is done)" },
    args: { ...jsonArg },
    run({ args }) {
      const store = cliStore({ freshness: "none" });
      const res = clearHandoff(store, "user");
      if (args.json) return printJson(res);
      const where = res.branch ? `branch ${res.branch}` : "detached HEAD";
      if (res.status === "cleared") consola.success(`Handoff cleared for ${where} (${store.project?.label})`);
      else notice(`No handoff for ${where}; nothing to clear.`);
    },
  }),
  ["coffer handoff clear"],
);

export default withExamples(
  defineCommand({
    meta: { name: "handoff", description: "Save where work stands on this project + branch" },
    subCommands: { show, set, clear },
    default: "show",
  }),
  [
    "coffer handoff                # this branch's handoff and whether the repository moved on since",
    'coffer handoff set "Half-way through the parser rewrite; tests in test/parse pass"',
    "coffer handoff clear",
  ],
);
