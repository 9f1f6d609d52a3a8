import { defineCommand } from "citty";
import { requireEntry } from "../store/entries";
import { readMemoryFile } from "../store/indexer";
import { withExamples } from "./_run";
import { cliStore, jsonArg, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "show", description: "Print one entry" },
    args: {
      id: {
        type: "positional",
        description: "Entry id as lists show it (its last 8 characters), or the whole id",
        required: true,
      },
      ...jsonArg,
    },
    run({ args }) {
      const hit = requireEntry(cliStore(), args.id);
      if (args.json) return printJson({ ...hit.entry, scope: hit.scopeName });
      process.stdout.write(readMemoryFile(hit.file).text);
    },
  }),
  ["coffer show 3ABCDEFG          # the id `coffer list` shows", "coffer show 01JD3K5Z8Q2WXYZ123ABCDEFG --json"],
);
