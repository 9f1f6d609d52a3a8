import { defineCommand } from "citty";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { isTerminal, writeErr } from "../lib/output";
import { forget, type Located, projectMeta, requireEntry, type Store, TEAM_FOLDER } from "../store";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, plural, printJson, short } from "./_shared";

/** "global", "project app", "project billing, not this one". */
function where(store: Store, hit: Located): string {
  if (hit.scopeName === "global") return "global";
  if (hit.scopeName === "project") return `project ${store.project?.label ?? hit.scope}`;
  if (hit.scopeName === "team")
    return `team ${store.team?.label ?? ""}: ${TEAM_FOLDER}/entries in this checkout`.trim();
  if (hit.scopeName === "other-team") return "the team lane of another checkout, not this one";
  return `project ${projectMeta(hit.scope).label}, not this one`;
}

export default withExamples(
  takesWords(
    defineCommand({
      meta: { name: "forget", description: "Forget entries (to the trash, kept 30 days)" },
      args: {
        id: {
          type: "positional",
          description: "Entry id as lists show it (its last 8 characters), or the whole id; several forget several",
          required: true,
        },
        yes: {
          type: "boolean",
          alias: "y",
          description: "Do not ask (needed for several entries, or one outside this project, without a terminal)",
        },
        ...jsonArg,
      },
      async run({ args }) {
        const store = cliStore();
        const ids = [...new Set(args._.length ? args._ : [args.id])];
        // Resolve every id first: a typo in the third id deletes nothing.
        const hits = ids.map((id) => requireEntry(store, id, { allowBroken: true }));
        const outside = hits.filter((h) => h.scopeName === "other-project" || h.scopeName === "other-team");
        if ((hits.length > 1 || outside.length) && !args.yes) {
          const reason =
            hits.length > 1
              ? `forgetting ${plural(hits.length, "entry", "entries")}`
              : `${handle(hits[0]!.entry.id)} is in ${where(store, hits[0]!)}`;
          const interactive = Boolean(process.stdin.isTTY && isTerminal(2)) && !args.json;
          if (!interactive)
            throw new CofferError(
              `${reason}: confirm with --yes`,
              1,
              `coffer forget ${hits.map((h) => handle(h.entry.id)).join(" ")} --yes`,
            );
          for (const h of hits) writeErr(`  ${handle(h.entry.id)}  ${where(store, h)}  ${short(h.entry.title, 60)}\n`);
          const ok = await consola.prompt(`Forget ${hits.length === 1 ? "this entry" : `these ${hits.length}`}?`, {
            type: "confirm",
            initial: false,
          });
          if (ok !== true) throw new CofferError("nothing forgotten");
        }
        const results = hits.map((h) => ({ ...forget(store, h.entry.id, "user"), where: where(store, h) }));
        if (args.json) return printJson(results.length === 1 ? results[0] : { forgotten: results });
        for (const r of results)
          if (r.trashed)
            consola.success(`Forgot ${handle(r.id)} (${r.where}); \`coffer restore ${handle(r.id)}\` brings it back`);
          else
            consola.success(
              `Removed ${handle(r.id)} (${r.where}): it was a symbolic link or not a regular file, so nothing was kept in the trash`,
            );
      },
    }),
  ),
  [
    "coffer forget 3ABCDEFG                # the id `coffer list` and `coffer recall` show",
    "coffer forget 3ABCDEFG 9XYZ2MNP --yes",
  ],
);
