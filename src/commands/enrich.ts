import { defineCommand } from "citty";
import { enrichEntries } from "../distill/keywords";
import { CONFIGURE_MODEL_HINT, resolveModel } from "../distill/model";
import { CofferError } from "../lib/errors";
import { activeScopes, findEntry, type Located, listEntries } from "../store";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, printJson, scopeArg } from "./_shared";

export default withExamples(
  defineCommand({
    meta: {
      name: "enrich",
      description: "Give entries without keywords a keywords: list from the configured model",
    },
    args: {
      ...scopeArg,
      all: { type: "boolean", description: "Rewrite keywords of entries that already have some" },
      ...jsonArg,
    },
    async run({ args }) {
      const store = cliStore();
      const choice = resolveModel(store.config);
      const settings = choice.settings;
      if (!settings) throw new CofferError(`no model configured or found: ${choice.why}`, 1, CONFIGURE_MODEL_HINT);
      const todo: Located[] = [];
      for (let offset = 0; ; offset += 500) {
        const page = listEntries(store, { scope: args.scope, limit: 500, offset });
        for (const e of page.entries) {
          const hit = findEntry(store, e.id, { scopes: activeScopes(store) });
          if (hit && (args.all || !hit.entry.keywords?.length)) todo.push(hit);
        }
        if (offset + 500 >= page.total) break;
      }
      const { enriched, tokens, error } = await enrichEntries(store, settings, todo);
      if (error) {
        throw new CofferError(
          `keywords written for ${enriched} of ${todo.length} entries, then the model failed: ${error}`,
          1,
          "Run `coffer enrich` again later: entries that have keywords are skipped.",
        );
      }
      if (todo.length && !enriched)
        throw new CofferError(
          `the model gave no usable keywords for any of the ${todo.length} entries (${tokens} tokens)`,
          1,
          "Run `coffer enrich` again, or choose another model (coffer config set model.model <name>).",
        );
      if (args.json) return printJson({ candidates: todo.length, enriched, tokens });
      consola.success(`Keywords written for ${enriched} of ${todo.length} entries (${tokens} tokens)`);
    },
  }),
  ["coffer enrich", "coffer enrich --scope global", "coffer enrich --all --json"],
);
