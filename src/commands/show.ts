import { defineCommand } from "citty";
import { handle } from "../lib/handle";
import { isTerminal, writeOut } from "../lib/output";
import { activeScopes, describeUse, entryUses, readMemoryFile, requireEntry, scopeName } from "../store";
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
      use: {
        type: "boolean",
        description: "After the entry, say how often it was delivered and used (on a terminal: always)",
      },
      ...jsonArg,
    },
    async run({ args }) {
      // The file is read as it is, so only added and removed files matter here (the folders' mtimes):
      // --json prints the index's fields, which the full check keeps current.
      const store = cliStore(args.json ? {} : { freshness: "shallow" });
      const hit = requireEntry(store, args.id);
      const terminal = isTerminal(1);
      if (!args.json && !terminal && !args.use) return writeOut(readMemoryFile(hit.file).text); // piped: the file as it is
      // Loaded only past that line: a piped `show` (scripts, agents) prints the file and needs neither.
      const [{ relatedTo }, { usePass }] = await Promise.all([
        import("../retrieval/similarity"),
        import("../capture/use-pass"),
      ]);
      // Entries near it in meaning (entry vectors), in its own scope and those of this directory.
      const related =
        args.json || terminal
          ? relatedTo(store, hit.entry, [...new Set([hit.scope, ...activeScopes(store)])]).map((n) => ({
              id: n.id,
              title: n.title,
              scope: scopeName(store, n.scope),
              similarity: Number(n.sim.toFixed(3)),
            }))
          : [];
      usePass(store, store.config); // finished sessions not judged yet (cheap: no model)
      const use = entryUses(store, [hit.entry.id]).get(hit.entry.id)!;
      if (args.json) return printJson({ ...hit.entry, scope: hit.scopeName, related, use });
      writeOut(readMemoryFile(hit.file).text);
      // After the file, on the terminal only: what is piped stays the file as it is.
      writeOut(`\n${describeUse(use)}\n`);
      // A person at a terminal also sees what it is near.
      if (terminal && related.length)
        writeOut(
          `\nRelated (by meaning):\n${related.map((r) => `  ${handle(r.id)}  ${r.title}  (${r.similarity.toFixed(2)})`).join("\n")}\n`,
        );
    },
  }),
  ["coffer show 3ABCDEFG          # the id `coffer list` shows", "coffer show 01JD3K5Z8Q2WXYZ123ABCDEFG --json"],
);
