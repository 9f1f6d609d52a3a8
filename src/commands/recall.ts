import { defineCommand } from "citty";
import { handle } from "../lib/handle";
import { grep, recall } from "../store/search";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { cliStore, entryLines, jsonArg, notice, paint, parseLimit, printJson, scopeArg, short } from "./_shared";

/** Crude English stem (the index stems with porter): "deploys", "deployed", "deploying" -> "deploy". */
function stem(word: string): string {
  const w = word.replace(/(?:ing|ed|es|s|ly)$/, "");
  return w.length >= 3 ? w : word;
}

/**
 * What a person can read as match strength: how many of the query's words the entry contains
 * (the ranking itself is BM25 fused across scopes; its raw score stays in --json).
 */
export function matchStrength(query: string, haystack: string): string {
  const words = [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length > 1),
    ),
  ];
  if (!words.length) return "";
  const hay = haystack.toLowerCase();
  const found = words.filter((w) => hay.includes(stem(w))).length;
  return `${found}/${words.length} ${words.length === 1 ? "word" : "words"}`;
}

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
        const store = cliStore();
        if (mode === "grep") {
          const hits = grep(store, query, { scope: args.scope, limit: parseLimit(args.limit, 50, 1000) });
          if (args.json) return printJson({ hits });
          if (!hits.length) return notice("No matching lines.");
          for (const h of hits) process.stdout.write(`${paint.id(handle(h.id))}:${h.line}  ${h.text}\n`);
          return;
        }
        const hits = recall(store, query, { scope: args.scope, limit: parseLimit(args.limit, 5, 100) });
        if (args.json) return printJson({ hits: hits.map(({ entry: _e, ...h }) => h) });
        if (!hits.length) return notice("Nothing found.");
        const lines = entryLines(
          hits.map((h) => ({
            id: h.id,
            scope: h.scope,
            kind: h.kind,
            title: h.title,
            extra: matchStrength(query, `${h.title}\n${h.text}\n${h.entry.tags.join(" ")}`),
          })),
        );
        for (const [i, h] of hits.entries()) process.stdout.write(`${lines[i]}\n    ${short(h.text, 160)}\n`);
      },
    }),
  ),
  [
    'coffer recall "release process"',
    "coffer recall 部署 --scope project",
    'coffer recall "/TODO\\(.*\\)/" --mode grep --json',
  ],
);
