import { defineCommand } from "citty";
import { handle } from "../lib/handle";
import { listEntries } from "../store/entries";
import { withExamples } from "./_run";
import { cliStore, entryLines, jsonArg, kindArg, notice, parseLimit, printJson, scopeArg } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "list", description: "List entries, newest first" },
    args: {
      ...scopeArg,
      ...kindArg,
      limit: { type: "string", description: "Most entries to show (default 50, max 1000)" },
      all: { type: "boolean", description: "Include superseded entries (marked as such)" },
      ...jsonArg,
    },
    run({ args }) {
      const store = cliStore();
      const res = listEntries(store, {
        scope: args.scope,
        kind: args.kind,
        limit: parseLimit(args.limit, 50, 1000),
        all: args.all,
      });
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
            ...(e.status ? { status: e.status, superseded_by: e.superseded_by ?? null } : {}),
          })),
        });
      }
      if (!res.total)
        return notice(
          args.kind || args.scope ? "Nothing matches." : "No entries yet. Add one with `coffer remember <text>`.",
        );
      const lines = entryLines(
        res.entries.map((e) => ({
          id: e.id,
          scope: e.scope,
          kind: e.kind,
          title: e.title,
          ...(e.status ? { extra: `(superseded${e.superseded_by ? ` by ${handle(e.superseded_by)}` : ""})` } : {}),
          date: e.updated.slice(0, 10),
        })),
      );
      process.stdout.write(`${lines.join("\n")}\n`);
      if (res.total > res.entries.length) notice(`${res.entries.length} of ${res.total} shown (--limit for more)`);
    },
  }),
  ["coffer list", "coffer list --scope global --kind decision", "coffer list --all", "coffer list --json --limit 200"],
);
