import { defineCommand } from "citty";
import { listEntries } from "../store/store";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, kindArg, parseLimit, printJson, scopeArg, short } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "list", description: "List entries, newest first" },
    args: {
      ...scopeArg,
      ...kindArg,
      limit: { type: "string", description: "Most entries to show (default 50, max 1000)" },
      ...jsonArg,
    },
    run({ args }) {
      const store = cliStore();
      const res = listEntries(store, { scope: args.scope, kind: args.kind, limit: parseLimit(args.limit, 50, 1000) });
      if (args.json) {
        return printJson({
          total: res.total,
          entries: res.entries.map((e) => ({
            id: e.id,
            title: e.title,
            kind: e.kind,
            scope: e.scope,
            tags: e.tags,
            updated: e.updated,
          })),
        });
      }
      if (!res.total) return consola.info("No entries yet. Add one with `coffer remember <text>`.");
      for (const e of res.entries)
        process.stdout.write(
          `${e.id}  ${e.updated.slice(0, 10)}  [${e.scope}] ${e.kind.padEnd(10)} ${short(e.title, 80)}\n`,
        );
      if (res.total > res.entries.length)
        consola.info(`${res.entries.length} of ${res.total} shown (--limit for more)`);
    },
  }),
  ["coffer list", "coffer list --scope global --kind decision", "coffer list --json --limit 200"],
);
