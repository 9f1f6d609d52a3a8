import { defineCommand } from "citty";
import { handle } from "../lib/handle";
import { writeOut } from "../lib/output";
import { type Explain, grep, recall } from "../retrieval/search";
import { compileKernels } from "../retrieval/similarity";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { cliStore, entryLines, jsonArg, notice, paint, parseLimit, printJson, scopeArg, short } from "./_shared";

/** Why a hit matched, one line per query term (`--explain`). */
export function explainLines(e: Explain): string[] {
  const title =
    e.title === "exact" ? "; the title is the query" : e.title === "all" ? "; the title holds every term" : "";
  const sim = e.similarity === undefined ? "" : `, similarity ${e.similarity.toFixed(2)}`;
  const out = [`matched ${e.matched}/${e.of} terms (score ${e.score}, BM25 ${e.bm25}${sim})${title}`];
  for (const t of e.terms) {
    const via = t.via ? ` through "${t.via}" (${t.source})` : t.stemmed ? " (by its stem)" : "";
    out.push(`  "${t.term}" in ${t.field}${via}`);
  }
  if (e.missing.length) out.push(`  not matched: ${e.missing.map((m) => `"${m}"`).join(", ")}`);
  return out;
}

export default withExamples(
  takesWords(
    defineCommand({
      meta: { name: "recall", description: "Search memory (ranked keyword search, or grep for literal/regex lines)" },
      args: {
        query: { type: "positional", description: "What to look for", required: true },
        ...scopeArg,
        limit: { type: "string", description: "Most results to show (default 5; grep 50)" },
        mode: { type: "enum", options: ["keyword", "grep"] as string[], description: "keyword (default) or grep" },
        explain: {
          type: "boolean",
          description: "Say per hit which query terms matched, in which field, through which alternative",
        },
        ...jsonArg,
      },
      async run({ args }) {
        const query = args._.length ? args._.join(" ") : args.query;
        const mode = args.mode ?? "keyword";
        // The search compares by meaning in a WebAssembly module: compiled on another thread while
        // this one opens the store (similarity.ts compileKernels).
        const kernels = mode === "grep" ? undefined : compileKernels().catch(() => {});
        const store = cliStore();
        if (mode === "grep") {
          const hits = grep(store, query, { scope: args.scope, limit: parseLimit(args.limit, 50, 1000) });
          if (args.json) return printJson({ hits });
          if (!hits.length) return notice("No matching lines.");
          for (const h of hits) writeOut(`${paint.id(handle(h.id))}:${h.line}  ${h.text}\n`);
          return;
        }
        await kernels;
        const hits = recall(store, query, {
          scope: args.scope,
          limit: parseLimit(args.limit, 5, 100),
          explain: args.explain || !args.json,
        });
        if (args.json) return printJson({ hits: hits.map(({ entry: _e, ...h }) => h) });
        if (!hits.length) return notice("Nothing found.");
        const lines = entryLines(
          hits.map((h) => ({
            id: h.id,
            scope: h.scope,
            kind: h.kind,
            title: h.title,
            extra: h.explain ? `${h.explain.matched}/${h.explain.of} ${h.explain.of === 1 ? "term" : "terms"}` : "",
          })),
        );
        for (const [i, h] of hits.entries()) {
          // A one-line entry's body is its title: say it once.
          const same = h.text.replace(/\s+/g, " ").trim() === h.title.replace(/\s+/g, " ").trim();
          writeOut(same ? `${lines[i]}\n` : `${lines[i]}\n    ${short(h.text, 160)}\n`);
          if (args.explain && h.explain)
            writeOut(
              `${explainLines(h.explain)
                .map((l) => `    ${paint.dim(l)}`)
                .join("\n")}\n`,
            );
        }
      },
    }),
  ),
  [
    'coffer recall "release process"',
    'coffer recall "package manager" --explain',
    "coffer recall 部署 --scope project",
    'coffer recall "/TODO\\(.*\\)/" --mode grep --json',
  ],
);
