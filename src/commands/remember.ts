import { defineCommand } from "citty";
import { remember } from "../store/entries";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, kindArg, printJson, scopeArg, splitList, textFromArgs } from "./_shared";

export default withExamples(
  takesWords(
    defineCommand({
      meta: { name: "remember", description: "Write a memory entry (project scope inside a repo, else global)" },
      args: {
        text: { type: "positional", description: 'The memory text ("-" reads stdin)', required: true },
        title: { type: "string", description: "Title (default: the first line, shortened)" },
        ...kindArg,
        tags: { type: "string", description: "Comma-separated tags" },
        "applies-to": { type: "string", description: "Comma-separated globs relative to the project root" },
        ...scopeArg,
        ...jsonArg,
      },
      async run({ args }) {
        const text = await textFromArgs(args._.length ? args._ : [args.text]);
        const store = cliStore();
        const res = remember(store, {
          text,
          title: args.title,
          kind: args.kind,
          tags: splitList(args.tags),
          applies_to: splitList(args["applies-to"]),
          scope: args.scope,
          actor: "user",
          source: "cli",
        });
        if (args.json) return printJson({ id: res.id, scope: res.scope, status: res.status });
        const where = res.scope === "project" ? `project ${store.project?.label}` : "global";
        if (res.status === "duplicate") consola.info(`Already known as ${res.id} (${where}); refreshed its date`);
        else consola.success(`Remembered ${res.id} (${where})`);
      },
    }),
  ),
  [
    'coffer remember "We deploy with make release, never git push --tags" --kind convention --tags release,ci',
    'coffer remember "Prefer pnpm in every repo" --scope global --kind preference',
    'git log -1 --format=%B | coffer remember - --title "Why we pinned bun"',
  ],
);
