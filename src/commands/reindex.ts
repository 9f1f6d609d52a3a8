import { defineCommand } from "citty";
import { progressBar } from "../lib/progress";
import { reindex, removeDeadTempFiles } from "../store";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, plural, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "reindex", description: "Rebuild the search index from memory/" },
    args: { ...jsonArg },
    run({ args }) {
      const store = cliStore({ freshness: "none" });
      const started = performance.now();
      let bar: ReturnType<typeof progressBar> | undefined;
      const n = reindex(store, (done, total) => {
        bar ??= progressBar("indexing", total);
        bar.tick(done);
      });
      bar?.done();
      // memory/'s own folders are tidied by the rebuild; team lanes and state/ (the trash) here
      const temps = removeDeadTempFiles(store).reduce((sum, t) => sum + t.removed, 0);
      const ms = Math.round(performance.now() - started);
      if (args.json) return printJson({ entries: n, ms, removed_temps: temps });
      consola.success(`Indexed ${plural(n, "entry", "entries")} in ${ms} ms`);
      if (temps) consola.info(`Removed ${plural(temps, "temp file")} of writes that were killed`);
    },
  }),
  ["coffer reindex"],
);
