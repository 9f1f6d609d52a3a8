/**
 * Routing and recall evaluation: how well `coffer hook prompt` picks memory for what a developer
 * types, and how well `coffer recall` finds it when asked with the same words. A labelled set
 * (scripts/bench/routing/: 300+ entries over five projects and the global scope, 150+ prompts
 * labelled with the entries that should reach the model, or none) is written into a temporary
 * store; every prompt goes through the compiled binary in a fresh Claude session, typed in its
 * project's repository (files it names do not exist there), and, as it is, through
 * `coffer recall --limit 5 --json` in the same directory. Reports:
 *
 * - hit: share of prompts with an expected entry where one arrived as a body (overall and per
 *   category: direct wording, paraphrase, file mention);
 * - precision: share of injected bodies that were expected;
 * - chars: mean characters injected per prompt (all prompts), and the largest;
 * - noise: share of prompts that need nothing yet got something;
 * - recall@1 / recall@5: share of prompts with an expected entry where one is the first hit of
 *   `coffer recall`, or among its first five (overall and per category).
 *
 *   COFFER_BIN=dist/coffer bun scripts/bench/routing.ts [--verbose [--all]] [--json]
 *     [--sets routing,routing-b,...|all] [--keywords both|on|off]
 *     [--only recall|hook] [--in-process]
 *   (--verbose lists the prompts that missed or injected noise, and recall misses; KEEP=1 keeps
 *   the store; PROMPTS=<file> reads another prompt set against the same entries, e.g.
 *   routing/prompts-later.txt; ROUTING_SET=<dir> reads entries.txt and prompts.txt from another
 *   folder, e.g. routing-b/; KEYWORDS=1 is --keywords on; SIMILARITY=on|off sets routing.similarity,
 *   the sentence model; --in-process
 *   runs the hook's event and recall through src/ instead of the binary, the same code without a
 *   process per prompt)
 *
 * Keywords: a set's keywords.txt (`<entry key> | kw1, kw2, ...`) was written blind, by a model
 * shown only that set's entries.txt, never its prompts; with keywords on, each entry carries its
 * line as `keywords:` (what distillation or `coffer enrich` would have written).
 *
 * routing/ is the set the router was tuned on. routing-b/ to routing-e/ were each written by
 * someone who never read the router or the vocabulary (three other projects each): they show how
 * it does on prompts it was not tuned for. A few of b's, c's and d's paraphrases later served as
 * examples in the briefs of those who grew the vocabulary; e was written last and is the cleanest.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { argOf, BIN, benchSandbox, fakeRepo } from "./_common";

const VERBOSE = process.argv.includes("--verbose");
/** --only recall | hook: run one half; --in-process: recall through src/ instead of the binary (faster to iterate). */
const ONLY = argOf("only", "");
const IN_PROCESS = process.argv.includes("--in-process");
const JSON_OUT = process.argv.includes("--json");
const SETS = ["routing", "routing-b", "routing-c", "routing-d", "routing-e", "routing-f"];

type Spec = {
  key: string;
  scope: string; // project name or "global"
  kind: string;
  title: string;
  tags: string[];
  applies: string[];
  body: string;
};
type Prompt = { cat: string; project: string; expected: string[]; text: string };

/** The first `n - 1` `|`-separated fields trimmed, the rest (which may contain `|`) as the last. */
function fields(line: string, n: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (out.length < n - 1) {
    const i = rest.indexOf("|");
    if (i < 0) break;
    out.push(rest.slice(0, i).trim());
    rest = rest.slice(i + 1);
  }
  out.push(rest.trim());
  return out;
}

const split = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** Non-comment lines of a labelled file. */
const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));

function readEntries(dir: string): { entries: Spec[]; remotes: Map<string, string> } {
  const entries: Spec[] = [];
  const remotes = new Map<string, string>();
  let scope = "";
  for (const line of lines(join(dir, "entries.txt"))) {
    const project = /^@project (\S+) (\S+)$/.exec(line);
    if (project) {
      scope = project[1]!;
      remotes.set(scope, project[2]!);
      continue;
    }
    if (line === "@global") {
      scope = "global";
      continue;
    }
    const f = fields(line, 6);
    if (f.length < 6) throw new Error(`bad entry line: ${line}`);
    entries.push({
      key: f[0]!,
      scope,
      kind: f[1]!,
      title: f[2]!,
      tags: split(f[3]!),
      applies: split(f[4]!),
      body: f[5]!,
    });
  }
  return { entries, remotes };
}

function readPrompts(file: string): Prompt[] {
  return lines(file).map((line) => {
    const f = fields(line, 4);
    if (f.length < 4) throw new Error(`bad prompt line: ${line}`);
    return { cat: f[0]!, project: f[1]!, expected: f[2] === "-" ? [] : split(f[2]!), text: f[3]! };
  });
}

/** keywords.txt: `<entry key> | kw1, kw2, ...` (at most 8 are used, as on every write path). */
function readKeywords(dir: string): Map<string, string[]> | undefined {
  const file = join(dir, "keywords.txt");
  if (!existsSync(file)) return undefined;
  return new Map(
    lines(file).map((line) => {
      const [key, list = ""] = fields(line, 2);
      return [key!, split(list).slice(0, 8)] as const;
    }),
  );
}

// Deterministic ULIDs spread over a year, so id prefixes look like a real store's.
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
function ulid(i: number, key: string): string {
  let t = Date.UTC(2025, 6, 1) + i * 97_000_000;
  let time = "";
  for (let k = 0; k < 10; k++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const h = new Bun.CryptoHasher("sha256").update(key).digest();
  let rand = "";
  for (let k = 0; k < 16; k++) rand += CROCKFORD[h[k]! % 32]!;
  return time + rand;
}

const { projectIdFor } = await import("../../src/store/scope");
const { serializeEntry } = await import("../../src/store/entry");
const { handle } = await import("../../src/lib/handle");
const { openStore, closeStore } = await import("../../src/store/store");
const { recall } = await import("../../src/retrieval/search");

type Result = Prompt & { bodies: string[]; cards: string[]; chars: number; recalled: string[] };

const adapter = await (await import("../../src/hosts/index")).loadHookAdapter("claude");
const { runEvent } = await import("../../src/hooks/run");
const { loadConfigOrDefaults } = await import("../../src/config/config");

/** The prompt hook through the compiled binary. */
function hookBinary(cwd: string, payload: object, env: Record<string, string>) {
  const r = Bun.spawnSync([BIN, "hook", "prompt", "--agent", "claude"], {
    cwd,
    env,
    stdin: Buffer.from(JSON.stringify(payload)),
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`hook exited ${r.exitCode}`);
  return JSON.parse(r.stdout.toString() || "{}");
}

/** The prompt hook's event through src/ (--in-process: the same handler, without a process per prompt). */
function hookInProcess(cwd: string, payload: object) {
  const parsed = adapter.parse("prompt", payload, cwd);
  if (!parsed.ok) throw new Error("payload not accepted");
  const config = loadConfigOrDefaults(() => {});
  const store = openStore({ cwd, freshness: "shallow", config, notice: () => {} });
  try {
    const r = runEvent({ store, config, adapter, input: parsed.input, cap: adapter.capacity(config), now: Date.now() });
    return r.context ? JSON.parse(adapter.render("prompt", r.context) || "{}") : {};
  } finally {
    closeStore(store);
  }
}

/** One labelled set through the hook and recall, with or without its keywords. */
function evaluate(dir: string, withKeywords: boolean) {
  const { entries, remotes } = readEntries(dir);
  const prompts = readPrompts(process.env.PROMPTS ?? join(dir, "prompts.txt"));
  const keywords = withKeywords ? readKeywords(dir) : undefined;
  if (withKeywords && !keywords) throw new Error(`${dir} has no keywords.txt`);
  const keys = new Set(entries.map((e) => e.key));
  if (keys.size !== entries.length) throw new Error("duplicate entry keys");
  for (const p of prompts)
    for (const k of p.expected) if (!keys.has(k)) throw new Error(`unknown key ${k} in "${p.text}"`);

  const { root, env } = benchSandbox("routing");
  // SIMILARITY=on|off: sentence similarity fused with the word match (routing.similarity).
  if (process.env.SIMILARITY) {
    mkdirSync(env.COFFER_HOME, { recursive: true });
    writeFileSync(join(env.COFFER_HOME, "config.toml"), `[routing]\nsimilarity = "${process.env.SIMILARITY}"\n`);
  }
  const repos = new Map<string, string>();
  for (const [name, remote] of remotes) {
    const repo = join(root, "work", name);
    fakeRepo(repo, `https://${remote}.git`);
    repos.set(name, repo);
  }
  const elsewhere = join(root, "work", "scratch");
  mkdirSync(elsewhere, { recursive: true });

  const keyOf = new Map<string, string>();
  entries.forEach((e, i) => {
    const id = ulid(i, e.key);
    keyOf.set(id, e.key);
    const folder =
      e.scope === "global"
        ? join(env.COFFER_HOME, "memory", "global", "entries")
        : join(env.COFFER_HOME, "memory", "projects", projectIdFor(`remote:${remotes.get(e.scope)}`), "entries");
    mkdirSync(folder, { recursive: true });
    const when = new Date(Date.UTC(2025, 6, 1) + i * 97_000_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const kw = keywords?.get(e.key) ?? [];
    const entry = {
      id,
      kind: e.kind as "note",
      title: e.title,
      tags: e.tags,
      ...(kw.length ? { keywords: kw } : {}),
      applies_to: e.applies,
      actor: "user",
      source: "cli" as const,
      created: when,
      updated: when,
      body: e.body,
    };
    writeFileSync(join(folder, `${id}.md`), serializeEntry(entry));
  });

  // Entries are shown by their handle (the id's last 8 characters) or their id.
  const keyOfHandle = new Map([...keyOf].flatMap(([id, key]) => [[id, key] as const, [handle(id), key] as const]));
  if (keyOfHandle.size !== 2 * keyOf.size) throw new Error("two entries share a handle");

  const reindex = Bun.spawnSync([BIN, "reindex"], { cwd: elsewhere, env, stdout: "pipe", stderr: "pipe" });
  if (reindex.exitCode !== 0) throw new Error(`reindex failed: ${reindex.stderr}`);

  const stores = new Map<string, import("../../src/store/store").Store>();
  const results: Result[] = prompts.map((p, i) => {
    const cwd = p.project === "none" ? elsewhere : repos.get(p.project);
    if (!cwd) throw new Error(`unknown project ${p.project}`);
    const recallOf = (): string[] => {
      if (!p.expected.length || ONLY === "hook") return [];
      if (IN_PROCESS) {
        const store = stores.get(cwd) ?? stores.set(cwd, openStore({ cwd, notice: () => {} })).get(cwd)!;
        return recall(store, p.text, { limit: 5 }).map((h) => keyOfHandle.get(h.id) ?? h.id);
      }
      const rc = Bun.spawnSync([BIN, "recall", "--limit", "5", "--json", "--", p.text], {
        cwd,
        env,
        stdout: "pipe",
        stderr: "pipe",
      });
      if (rc.exitCode !== 0) throw new Error(`recall exited ${rc.exitCode}: ${rc.stderr}`);
      return (JSON.parse(rc.stdout.toString()).hits as { id: string }[]).map((h) => keyOfHandle.get(h.id) ?? h.id);
    };
    if (ONLY === "recall") return { ...p, bodies: [], cards: [], chars: 0, recalled: recallOf() };
    const payload = {
      session_id: `routing-${i}`,
      transcript_path: join(root, `t${i}.jsonl`),
      cwd,
      permission_mode: "default",
      hook_event_name: "UserPromptSubmit",
      prompt: p.text,
    };
    const out = IN_PROCESS ? hookInProcess(cwd, payload) : hookBinary(cwd, payload, env);
    const context: string = out.hookSpecificOutput?.additionalContext ?? "";
    const ids = (re: RegExp) => [...context.matchAll(re)].map((m) => keyOfHandle.get(m[1]!) ?? m[1]!);
    // The raw prompt, as a person or an agent would ask it.
    const recalled = recallOf();
    return {
      ...p,
      bodies: ids(/^## \[([0-9A-Z]{8,26})\]/gm),
      cards: ids(/^- \[([0-9A-Z]{8,26})\]/gm),
      chars: context.length,
      recalled,
    };
  });

  const pct = (n: number, d: number) => (d ? Math.round((1000 * n) / d) / 10 : 0);
  const hit = (r: Result) => r.bodies.some((b) => r.expected.includes(b));
  const at = (k: number) => (r: Result) => r.recalled.slice(0, k).some((b) => r.expected.includes(b));
  const withExpected = results.filter((r) => r.expected.length);
  const share = (test: (r: Result) => boolean, cat?: string) => {
    const set = withExpected.filter((r) => !cat || r.cat === cat);
    return { share: pct(set.filter(test).length, set.length), n: set.length };
  };
  const perCat = (test: (r: Result) => boolean) => ({
    all: share(test),
    direct: share(test, "direct"),
    para: share(test, "para"),
    file: share(test, "file"),
  });
  const bodies = results.flatMap((r) => r.bodies.map((b) => r.expected.includes(b)));
  const none = results.filter((r) => r.cat === "none");
  const figures = {
    set: basename(dir),
    keywords: withKeywords,
    entries: entries.length,
    prompts: results.length,
    hit: perCat(hit),
    precision: pct(bodies.filter(Boolean).length, bodies.length),
    bodiesPerPrompt: Math.round((100 * bodies.length) / results.length) / 100,
    maxBodies: Math.max(...results.map((r) => r.bodies.length)),
    meanChars: Math.round(results.reduce((n, r) => n + r.chars, 0) / results.length),
    maxChars: Math.max(...results.map((r) => r.chars)),
    noise: { share: pct(none.filter((r) => r.chars > 0).length, none.length), n: none.length },
    recall1: perCat(at(1)),
    recall5: perCat(at(5)),
  };

  if (VERBOSE) {
    console.log(`--- ${figures.set}${withKeywords ? " (keywords)" : ""}`);
    for (const r of results) {
      const ok = ONLY === "recall" || (r.expected.length ? hit(r) : r.chars === 0);
      const found = !r.expected.length || ONLY === "hook" || at(5)(r);
      if (ok && found && !process.argv.includes("--all")) continue;
      console.log(`${ok ? "ok  " : "MISS"} ${found ? "    " : "RMISS"} [${r.cat}/${r.project}] ${r.text}`);
      console.log(`     expected: ${r.expected.join(", ") || "-"}`);
      console.log(
        `     bodies:   ${r.bodies.join(", ") || "-"}${r.cards.length ? `  cards: ${r.cards.join(", ")}` : ""}`,
      );
      if (r.expected.length) console.log(`     recall:   ${r.recalled.join(", ") || "-"}`);
    }
  }
  for (const store of stores.values()) closeStore(store);
  if (!process.env.KEEP) rmSync(root, { recursive: true, force: true });
  else console.log(`kept: ${root}`);
  return figures;
}

const setArg = argOf("sets", process.env.ROUTING_SET ?? "routing");
const dirs =
  setArg === "all"
    ? SETS.map((s) => join(import.meta.dir, s))
    : setArg.split(",").map((s) => (s.includes("/") ? s : join(import.meta.dir, s)));
const kwArg = argOf("keywords", process.env.KEYWORDS === "1" ? "on" : "off");
const modes = kwArg === "both" ? [false, true] : [kwArg === "on"];

const all: ReturnType<typeof evaluate>[] = [];
for (const dir of dirs)
  for (const withKeywords of modes) {
    if (withKeywords && !readKeywords(dir)) {
      console.error(`${basename(dir)}: no keywords.txt, skipped with keywords`);
      continue;
    }
    const f = evaluate(dir, withKeywords);
    all.push(f);
    if (JSON_OUT) continue;
    const c = (x: {
      all: { share: number };
      direct: { share: number };
      para: { share: number };
      file: { share: number };
    }) => `${x.all.share}% (direct ${x.direct.share}%, paraphrase ${x.para.share}%, file ${x.file.share}%)`;
    console.log(
      `${f.set}${f.keywords ? " +keywords" : ""}: ${f.entries} entries, ${f.prompts} prompts, ${f.hit.all.n} with an expected entry (${BIN})`,
    );
    if (ONLY !== "recall") {
      console.log(`  hook: expected entry injected ${c(f.hit)}`);
      console.log(
        `  hook: precision ${f.precision}% (${f.bodiesPerPrompt} bodies per prompt, up to ${f.maxBodies}); need-nothing prompts given something ${f.noise.share}% of ${f.noise.n}`,
      );
      console.log(`  hook: chars injected mean ${f.meanChars}, max ${f.maxChars}`);
    }
    if (ONLY !== "hook") {
      console.log(`  recall@1 ${c(f.recall1)}`);
      console.log(`  recall@5 ${c(f.recall5)}`);
    }
  }
if (JSON_OUT) console.log(JSON.stringify(all.length === 1 ? all[0] : all, null, 2));
