import { defineCommand } from "citty";
import { freshnessNote, getHandoff } from "../store/handoff";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "resume", description: "Print this branch's handoff, with a freshness note" },
    args: { ...jsonArg },
    run({ args }) {
      const store = cliStore({ freshness: "none" });
      const h = getHandoff(store);
      if (args.json)
        return printJson(
          h
            ? { found: true, branch: h.branch, body: h.body, updated: h.updated, note: freshnessNote(h.updated) }
            : { found: false },
        );
      if (!h)
        return consola.info(
          `No handoff for ${store.project?.branch ? `branch ${store.project.branch}` : "this checkout"} yet. Save one with \`coffer handoff set <text>\`.`,
        );
      process.stdout.write(
        `Handoff for ${h.branch ? `branch ${h.branch}` : "detached HEAD"} (${freshnessNote(h.updated)})\n\n${h.body}\n`,
      );
    },
  }),
  ["coffer resume", "coffer resume --json"],
);
