import { defineCommand } from "citty";
import { handle } from "../lib/handle";
import { writeOut } from "../lib/output";
import { listEntries, type Store, scopeName, UNUSED_MIN, unusedEntries } from "../store";
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
      unused: {
        type: "boolean",
        description: `Only entries delivered often (--min, default ${UNUSED_MIN}) and never used by the agent`,
      },
      min: { type: "string", description: "With --unused: deliveries judged at least this many times" },
      ...jsonArg,
    },
    run({ args }) {
      // Folders only (added, removed, renamed files): every row shown is checked against its file
      // anyway, and the search's deeper check (recall, MCP) is for what a search can find.
      const store = cliStore({ freshness: "shallow" });
      if (args.unused)
        return listUnused(store, parseLimit(args.min, UNUSED_MIN, 100000), parseLimit(args.limit, 50, 1000), args.json);
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
      writeOut(`${lines.join("\n")}\n`);
      if (res.total > res.entries.length) notice(`${res.entries.length} of ${res.total} shown (--limit for more)`);
    },
  }),
  [
    "coffer list",
    "coffer list --scope global --kind decision",
    "coffer list --all",
    "coffer list --unused --min 10",
    "coffer list --json --limit 200",
  ],
);

/** Entries delivered at least `min` times (judged from finished sessions) and never used: review them, nothing goes by itself. */
async function listUnused(store: Store, min: number, limit: number, json: boolean | undefined): Promise<void> {
  // Judging finished sessions reads transcripts: loaded only by `list --unused`, not by every list.
  const { usePass } = await import("../capture/use-pass");
  usePass(store, store.config); // finished sessions not judged yet (cheap: no model)
  const rows = unusedEntries(store, min, limit);
  if (json) {
    printJson({ min, entries: rows.map((r) => ({ ...r, scope: scopeName(store, r.scope) })) });
    return;
  }
  if (!rows.length) {
    notice(`No entry was delivered ${min}+ times without being used.`);
    return;
  }
  const lines = entryLines(
    rows.map((r) => ({
      id: r.id,
      scope: scopeName(store, r.scope),
      kind: r.kind,
      title: r.title,
      extra: `(delivered ${r.judged === 1 ? "once" : `${r.judged} times`}, never used)`,
    })),
  );
  writeOut(`${lines.join("\n")}\n`);
  notice("Keep, edit (`coffer edit <id>`) or forget (`coffer forget <id>`): nothing is removed by itself.");
}
