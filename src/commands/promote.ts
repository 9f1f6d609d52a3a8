import { relative } from "node:path";
import { defineCommand } from "citty";
import { handle } from "../lib/handle";
import { promote } from "../store";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, printJson } from "./_shared";

export default withExamples(
  takesWords(
    defineCommand({
      meta: {
        name: "promote",
        description: "Move a personal entry into the team lane (the repository's .coffer/)",
      },
      args: {
        id: {
          type: "positional",
          description: "Entry id as lists show it (its last 8 characters), or the whole id; several promote several",
          required: true,
        },
        ...jsonArg,
      },
      run({ args }) {
        const store = cliStore();
        const ids = [...new Set(args._.length ? args._ : [args.id])];
        const results = ids.map((id) => promote(store, id, "user"));
        if (args.json) return printJson(results.length === 1 ? results[0] : { promoted: results });
        const root = store.team?.worktree ?? store.cwd;
        for (const r of results) {
          if (r.scrubbed) consola.warn(`${handle(r.id)}: ${r.scrubbed}: replaced by [redacted]`);
          if (r.status === "duplicate")
            consola.info(
              `${handle(r.id)} says what the team's ${handle(r.team_id)} already says; your copy went to the trash`,
            );
          else
            consola.success(
              `Promoted ${handle(r.id)} (${r.from}) to ${relative(root, r.file)}: commit it to share it with the team`,
            );
        }
      },
    }),
  ),
  [
    "coffer promote 3ABCDEFG            # this project's entry -> .coffer/entries/, then git add + commit",
    "coffer promote 3ABCDEFG 9XYZ2MNP --json",
  ],
);
