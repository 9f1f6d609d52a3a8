import { defineCommand } from "citty";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { findEntry, remember, type Store, TEAM_FOLDER } from "../store";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, kindArg, printJson, scopeArg, splitList, textFromArgs } from "./_shared";

/**
 * Keywords for the entry just written, when a model is configured and `model.keywords` is
 * on-write: one short call, best effort (a failure leaves the entry as it is, for `coffer enrich`).
 */
async function keywordsFor(store: Store, id: string): Promise<{ keywords: string[] } | undefined> {
  if (store.config["model.keywords"] !== "on-write") return undefined;
  const { modelSettings } = await import("../distill/model");
  const settings = modelSettings(store.config);
  if (!settings) return undefined;
  const hit = findEntry(store, id);
  if (!hit) return undefined;
  const { enrichEntries } = await import("../distill/keywords");
  const res = await enrichEntries(store, { ...settings, timeoutMs: Math.min(settings.timeoutMs, 20_000) }, [hit], {
    attempts: 1,
  });
  if (res.error) {
    consola.warn(`Keywords not written (${res.error}); \`coffer enrich\` adds them later`);
    return undefined;
  }
  const keywords = findEntry(store, id)?.entry.keywords;
  return keywords?.length ? { keywords } : undefined;
}

export default withExamples(
  takesWords(
    defineCommand({
      meta: { name: "remember", description: "Write a memory entry (project scope inside a repo, else global)" },
      args: {
        text: { type: "positional", description: 'The memory text ("-" reads stdin)', required: true },
        title: { type: "string", description: "Title (default: the first line, shortened)" },
        ...kindArg,
        tags: { type: "string", description: "Comma-separated tags" },
        "applies-to": { type: "string", description: "Comma-separated globs relative to the project root" },
        ...scopeArg,
        "allow-secret": {
          type: "boolean",
          description: "Keep secrets in the text as given (by default each becomes [redacted])",
        },
        supersedes: {
          type: "string",
          description: "Id of an entry this one replaces (kept, marked superseded, never injected again)",
          valueHint: "id",
        },
        keywords: {
          type: "string",
          description:
            "Comma-separated other words someone would ask with (at most 8 short phrases); without it, model.keywords = on-write has the model write them",
          valueHint: "a,b",
        },
        "no-keywords": { type: "boolean", description: "No keywords, and no model call for them" },
        ...jsonArg,
      },
      async run({ args }) {
        const text = await textFromArgs(
          args._.length ? args._ : [args.text],
          'coffer remember "we deploy with make release"',
        );
        // --keywords a,b: the writer's own; --no-keywords (false): none and no model call.
        const given = typeof args.keywords === "string" ? splitList(args.keywords) : undefined;
        if (given && !given.length)
          throw new CofferError(
            "--keywords is empty",
            2,
            'Give comma-separated phrases, e.g. --keywords "database,orm"',
          );
        // Folders only: remember writes one file, and a known text is checked against its file
        // (store/entries.ts), so stat'ing a slice of old entries buys it nothing.
        const store = cliStore({ freshness: "shallow" });
        const res = remember(store, {
          text,
          title: args.title,
          kind: args.kind,
          tags: splitList(args.tags),
          keywords: given,
          applies_to: splitList(args["applies-to"]),
          scope: args.scope,
          supersedes: args.supersedes,
          actor: "user",
          source: "cli",
          allow_secret: Boolean(args["allow-secret"]),
        });
        if (res.scrubbed) consola.warn(`${res.scrubbed}: replaced by [redacted] (--allow-secret keeps them)`);
        const keywords = given
          ? { keywords: res.entry.keywords ?? [] }
          : (args.keywords as unknown) !== false && !args["no-keywords"] && res.status !== "duplicate"
            ? await keywordsFor(store, res.id)
            : undefined;
        if (args.json)
          return printJson({
            id: res.id,
            scope: res.scope,
            status: res.status,
            ...(res.scrubbed ? { scrubbed: res.scrubbed } : {}),
            ...(res.superseded ? { superseded: res.superseded } : {}),
            ...keywords,
          });
        const where =
          res.scope === "project"
            ? `project ${store.project?.label}`
            : res.scope === "team"
              ? `team: ${TEAM_FOLDER}/entries/${res.id}.md, commit it to share it`
              : "global";
        if (res.status === "duplicate")
          consola.info(`Already known as ${handle(res.id)} (${where}); refreshed its date`);
        else consola.success(`Remembered ${handle(res.id)} (${where})`);
        if (res.superseded)
          consola.info(
            `${handle(res.superseded)} is superseded by ${handle(res.id)} (kept; coffer list --all shows it)`,
          );
      },
    }),
  ),
  [
    'coffer remember "We deploy with make release, never git push --tags" --kind convention --tags release,ci',
    'coffer remember "Prefer pnpm in every repo" --scope global --kind preference',
    'coffer remember "Staging resets every Monday" --scope team   # into .coffer/entries/, for the team to review',
    'coffer remember "Sessions live in Redis, 30 min TTL" --keywords "cache,login timeout,why am I logged out"',
    'coffer remember "We deploy from GitHub Actions now" --kind decision --supersedes 3ABCDEFG',
    'git log -1 --format=%B | coffer remember - --title "Why we pinned bun"',
  ],
);
