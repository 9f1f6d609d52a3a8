import { defineCommand } from "citty";
import { CofferError } from "../lib/errors";
import { grep, recall } from "../store/search";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, parseLimit, printJson, scopeArg, short } from "./_shared";

export default withExamples(
  takesWords(
    defineCommand({
      meta: { name: "recall", description: "Search memory (keyword BM25, or grep for literal/regex lines)" },
      args: {
        query: { type: "positional", description: "What to look for", required: true },
        ...scopeArg,
        limit: { type: "string", description: "Most results to show (default 5; grep 50)" },
        mode: { type: "enum", options: ["keyword", "grep"] as string[], description: "keyword (default) or grep" },
        ...jsonArg,
      },
      run({ args }) {
        const query = args._.length ? args._.join(" ") : args.query;
        const mode = args.mode ?? "keyword";
        if (mode !== "keyword" && mode !== "grep")
          throw new CofferError(`unknown mode "${mode}" (allowed: keyword, grep)`);
        const store = cliStore();
        if (mode === "grep") {
          const hits = grep(store, query, { scope: args.scope, limit: parseLimit(args.limit, 50, 1000) });
          if (args.json) return printJson({ hits });
          if (!hits.length) return consola.info("No matching lines.");
          for (const h of hits) process.stdout.write(`${h.id}:${h.line}  ${h.text}\n`);
          return;
        }
        const hits = recall(store, query, { scope: args.scope, limit: parseLimit(args.limit, 5, 100) });
        if (args.json) return printJson({ hits: hits.map(({ entry: _e, ...h }) => h) });
        if (!hits.length) return consola.info("Nothing found.");
        for (const h of hits) {
          process.stdout.write(`${h.id}  [${h.scope}] ${h.kind} · ${h.title}\n  ${short(h.text, 160)}\n`);
        }
      },
    }),
  ),
  [
    'coffer recall "release process"',
    "coffer recall 部署 --scope project",
    'coffer recall "/TODO\\(.*\\)/" --mode grep --json',
  ],
);
