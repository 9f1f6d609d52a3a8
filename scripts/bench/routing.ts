/**
 * Routing evaluation: how well `coffer hook prompt` picks memory for what a developer types.
 * A labelled set (scripts/bench/routing/: 300+ entries over five projects and the global scope,
 * 150+ prompts labelled with the entries that should reach the model, or none) is written into a
 * temporary store; every prompt goes through the compiled binary in a fresh Claude session, typed
 * in its project's repository (files it names do not exist there). Reports:
 *
 * - hit: share of prompts with an expected entry where one arrived as a body (overall and per
 *   category: direct wording, paraphrase, file mention);
 * - precision: share of injected bodies that were expected;
 * - chars: mean characters injected per prompt (all prompts), and the largest;
 * - noise: share of prompts that need nothing yet got something.
 *
 *   COFFER_BIN=dist/coffer bun scripts/bench/routing.ts [--verbose [--all]] [--json]
 *   (--verbose lists the prompts that missed or injected noise; KEEP=1 keeps the store;
 *   PROMPTS=<file> reads another prompt set against the same entries, e.g. routing/prompts-later.txt;
 *   ROUTING_SET=<dir> reads entries.txt and prompts.txt from another folder, e.g. routing-b/;
 *   LEARNED=on|off sets routing.learned, the learned thesaurus)
 *
 * routing/ is the set the router was tuned on. routing-b/ to routing-e/ were each written by
 * someone who never read the router or the vocabulary (three other projects each): they show how
 * it does on prompts it was not tuned for. A few of b's, c's and d's paraphrases later served as
 * examples in the briefs of those who grew the vocabulary; e was written last and is the cleanest.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, benchSandbox, fakeRepo } from "./_common";

const DATA = process.env.ROUTING_SET ?? join(import.meta.dir, "routing");
const VERBOSE = process.argv.includes("--verbose");
const JSON_OUT = process.argv.includes("--json");

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

function readEntries(): { entries: Spec[]; remotes: Map<string, string> } {
  const entries: Spec[] = [];
  const remotes = new Map<string, string>();
  let scope = "";
  for (const raw of readFileSync(join(DATA, "entries.txt"), "utf8").split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
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

function readPrompts(): Prompt[] {
  const out: Prompt[] = [];
  for (const raw of readFileSync(process.env.PROMPTS ?? join(DATA, "prompts.txt"), "utf8").split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const f = fields(line, 4);
    if (f.length < 4) throw new Error(`bad prompt line: ${line}`);
    out.push({ cat: f[0]!, project: f[1]!, expected: f[2] === "-" ? [] : split(f[2]!), text: f[3]! });
  }
  return out;
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

const { entries, remotes } = readEntries();
const prompts = readPrompts();
const keys = new Set(entries.map((e) => e.key));
if (keys.size !== entries.length) throw new Error("duplicate entry keys");
for (const p of prompts)
  for (const k of p.expected) if (!keys.has(k)) throw new Error(`unknown key ${k} in "${p.text}"`);

const { root, env } = benchSandbox("routing");
// LEARNED=on|off: the learned thesaurus's neighbours as alternatives (config routing.learned).
if (process.env.LEARNED) {
  mkdirSync(env.COFFER_HOME, { recursive: true });
  writeFileSync(join(env.COFFER_HOME, "config.toml"), `[routing]\nlearned = "${process.env.LEARNED}"\n`);
}
const { projectIdFor } = await import("../../src/store/scope");
const { serializeEntry } = await import("../../src/store/entry");
const { handle } = await import("../../src/lib/handle");

const repos = new Map<string, string>();
for (const [name, remote] of remotes) {
  const repo = join(root, "work", name);
  fakeRepo(repo, `https://${remote}.git`);
  repos.set(name, repo);
}
const elsewhere = join(root, "work", "scratch");
mkdirSync(elsewhere, { recursive: true });

const idOf = new Map<string, string>();
const keyOf = new Map<string, string>();
entries.forEach((e, i) => {
  const id = ulid(i, e.key);
  idOf.set(e.key, id);
  keyOf.set(id, e.key);
  const dir =
    e.scope === "global"
      ? join(env.COFFER_HOME, "memory", "global", "entries")
      : join(env.COFFER_HOME, "memory", "projects", projectIdFor(`remote:${remotes.get(e.scope)}`), "entries");
  mkdirSync(dir, { recursive: true });
  const when = new Date(Date.UTC(2025, 6, 1) + i * 97_000_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const entry = {
    id,
    kind: e.kind as "note",
    title: e.title,
    tags: e.tags,
    applies_to: e.applies,
    actor: "user",
    source: "cli" as const,
    created: when,
    updated: when,
    body: e.body,
  };
  writeFileSync(join(dir, `${id}.md`), serializeEntry(entry));
});

const keyOfHandle = new Map([...keyOf].flatMap(([id, key]) => [[id, key] as const, [handle(id), key] as const]));
if (keyOfHandle.size !== 2 * keyOf.size) throw new Error("two entries share a handle");

const reindex = Bun.spawnSync([BIN, "reindex"], { cwd: elsewhere, env, stdout: "pipe", stderr: "pipe" });
if (reindex.exitCode !== 0) throw new Error(`reindex failed: ${reindex.stderr}`);

type Result = Prompt & { bodies: string[]; cards: string[]; chars: number; context: string };
const results: Result[] = prompts.map((p, i) => {
  const cwd = p.project === "none" ? elsewhere : repos.get(p.project);
  if (!cwd) throw new Error(`unknown project ${p.project}`);
  const payload = {
    session_id: `routing-${i}`,
    transcript_path: join(root, `t${i}.jsonl`),
    cwd,
    permission_mode: "default",
    hook_event_name: "UserPromptSubmit",
    prompt: p.text,
  };
  const r = Bun.spawnSync([BIN, "hook", "prompt", "--agent", "claude"], {
    cwd,
    env,
    stdin: Buffer.from(JSON.stringify(payload)),
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`hook exited ${r.exitCode}`);
  const out = JSON.parse(r.stdout.toString() || "{}");
  const context: string = out.hookSpecificOutput?.additionalContext ?? "";
  // Entries are shown by their handle (the id's last 8 characters).
  const ids = (re: RegExp) => [...context.matchAll(re)].map((m) => keyOfHandle.get(m[1]!) ?? m[1]!);
  return {
    ...p,
    bodies: ids(/^## \[([0-9A-Z]{8,26})\]/gm),
    cards: ids(/^- \[([0-9A-Z]{8,26})\]/gm),
    chars: context.length,
    context,
  };
});

const pct = (n: number, d: number) => (d ? Math.round((1000 * n) / d) / 10 : 0);
const hit = (r: Result) => r.bodies.some((b) => r.expected.includes(b));
const withExpected = results.filter((r) => r.expected.length);
const hitShare = (cat?: string) => {
  const set = withExpected.filter((r) => !cat || r.cat === cat);
  return { share: pct(set.filter(hit).length, set.length), n: set.length };
};
const bodies = results.flatMap((r) => r.bodies.map((b) => r.expected.includes(b)));
const none = results.filter((r) => r.cat === "none");
const figures = {
  entries: entries.length,
  prompts: results.length,
  hit: hitShare(),
  hitDirect: hitShare("direct"),
  hitParaphrase: hitShare("para"),
  hitFile: hitShare("file"),
  precision: pct(bodies.filter(Boolean).length, bodies.length),
  bodiesPerPrompt: Math.round((100 * bodies.length) / results.length) / 100,
  maxBodies: Math.max(...results.map((r) => r.bodies.length)),
  meanChars: Math.round(results.reduce((n, r) => n + r.chars, 0) / results.length),
  maxChars: Math.max(...results.map((r) => r.chars)),
  noise: { share: pct(none.filter((r) => r.chars > 0).length, none.length), n: none.length },
};

if (VERBOSE) {
  for (const r of results) {
    const ok = r.expected.length ? hit(r) : r.chars === 0;
    if (ok && !process.argv.includes("--all")) continue;
    console.log(`${ok ? "ok  " : "MISS"} [${r.cat}/${r.project}] ${r.text}`);
    console.log(`     expected: ${r.expected.join(", ") || "-"}`);
    console.log(
      `     bodies:   ${r.bodies.join(", ") || "-"}${r.cards.length ? `  cards: ${r.cards.join(", ")}` : ""}`,
    );
  }
}
if (JSON_OUT) console.log(JSON.stringify(figures, null, 2));
else {
  console.log(`routing: ${figures.entries} entries, ${figures.prompts} prompts (${BIN})`);
  console.log(
    `  expected entry injected: ${figures.hit.share}% of ${figures.hit.n} (direct ${figures.hitDirect.share}%, paraphrase ${figures.hitParaphrase.share}%, file ${figures.hitFile.share}%)`,
  );
  console.log(
    `  precision: ${figures.precision}% (${figures.bodiesPerPrompt} bodies per prompt, up to ${figures.maxBodies})`,
  );
  console.log(`  chars injected: mean ${figures.meanChars}, max ${figures.maxChars}`);
  console.log(`  need-nothing prompts given something: ${figures.noise.share}% of ${figures.noise.n}`);
}
if (!process.env.KEEP) rmSync(root, { recursive: true, force: true });
else console.log(`kept: ${root}`);
