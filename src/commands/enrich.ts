import { defineCommand } from "citty";
import { KEYWORDS_BATCH, writeKeywords } from "../distill/keywords";
import { CONFIGURE_MODEL_HINT, modelSettings } from "../distill/model";
import { CofferError } from "../lib/errors";
import { findEntry, listEntries, replaceEntryText } from "../store/entries";
import { serializeEntry } from "../store/entry";
import { activeScopes } from "../store/store";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, printJson, scopeArg } from "./_shared";

export default withExamples(
  defineCommand({
    meta: {
      name: "enrich",
      description: "Give entries without keywords a short keywords: list from the configured model (for routing)",
    },
    args: {
      ...scopeArg,
      all: { type: "boolean", description: "Rewrite keywords of entries that already have some" },
      ...jsonArg,
    },
    async run({ args }) {
      const store = cliStore();
      const settings = modelSettings(store.config);
      if (!settings) throw new CofferError("no model configured", 1, CONFIGURE_MODEL_HINT);
      const todo = [];
      for (let offset = 0; ; offset += 500) {
        const page = listEntries(store, { scope: args.scope, limit: 500, offset });
        for (const e of page.entries) {
          const hit = findEntry(store, e.id, { scopes: activeScopes(store) });
          if (hit && (args.all || !hit.entry.keywords?.length)) todo.push(hit);
        }
        if (offset + 500 >= page.total) break;
      }
      let enriched = 0;
      let tokens = 0;
      for (let i = 0; i < todo.length; i += KEYWORDS_BATCH) {
        const batch = todo.slice(i, i + KEYWORDS_BATCH);
        const { keywords, usage } = await writeKeywords(
          settings,
          batch.map((h) => h.entry),
        );
        tokens += usage.input_tokens + usage.output_tokens;
        batch.forEach((hit, k) => {
          const words = keywords[k] ?? [];
          if (!words.length) return;
          replaceEntryText(store, hit, serializeEntry({ ...hit.entry, keywords: words }), "cli");
          enriched++;
        });
      }
      if (args.json) return printJson({ candidates: todo.length, enriched, tokens });
      consola.success(`Keywords written for ${enriched} of ${todo.length} entries (${tokens} tokens)`);
    },
  }),
  ["coffer enrich", "coffer enrich --scope global", "coffer enrich --all --json"],
);
