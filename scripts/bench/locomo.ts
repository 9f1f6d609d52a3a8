/**
 * LoCoMo evidence retrieval: long conversations between two people (LoCoMo, Maharana et al. 2024,
 * github.com/snap-research/locomo), each dialogue turn one memory entry, each question that names
 * its evidence turns one recall query. Reports recall@5 of `coffer recall` (the share of questions
 * with an evidence turn among the first five hits, and the mean share of each question's evidence
 * turns found there) next to Okapi BM25 over the same turns (k1 1.2, b 0.75): plain (lowercase
 * words, no stemming or stopwords), with English stopwords dropped, and SQLite FTS5's (porter
 * stemming, any of the question's words), overall and per question category (1 multi-hop,
 * 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial).
 *
 * Each conversation is its own project (a fake repository); a turn is written as
 * `coffer remember "<speaker>: <text>"` would write it (title from the first line), a shared
 * photo's caption appended as "[shares a photo: <caption>]".
 *
 * The data is not in this repository. Get it once:
 *   git clone --depth 1 https://github.com/snap-research/locomo /tmp/locomo
 *   LOCOMO=/tmp/locomo/data/locomo10.json bun scripts/bench/locomo.ts
 * (LOCOMO may also name a folder of per-conversation files, as in the repository's older
 * data/locomo10.zip; the default is ~/.cache/coffer-bench/locomo.)
 *
 *   bun scripts/bench/locomo.ts [--cli] [--verbose] [--json] [--conversations 3]
 *   (in-process by default, through src/retrieval/search.ts; --cli runs `coffer recall --limit 5
 *   --json` with the compiled binary for every question, COFFER_BIN selects it)
 */

import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { argOf, BIN, benchSandbox, fakeRepo, numArg } from "./_common";

const CLI = process.argv.includes("--cli");
const VERBOSE = process.argv.includes("--verbose");
const JSON_OUT = process.argv.includes("--json");
const LIMIT = 5;
const SOURCE = process.env.LOCOMO ?? argOf("data", join(homedir(), ".cache", "coffer-bench", "locomo"));

type Turn = { dia: string; speaker: string; text: string };
type Question = { question: string; evidence: string[]; category: number };
type Conversation = { name: string; turns: Turn[]; qa: Question[] };

/** One conversation in either layout: { conversation: {...}, qa } (locomo10.json) or flat (older files). */
function conversationOf(name: string, raw: Record<string, unknown>): Conversation {
  const conv = (raw.conversation ?? raw) as Record<string, unknown>;
  const sessions = Object.keys(conv)
    .filter((k) => /^session_\d+$/.test(k) && Array.isArray(conv[k]))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  const turns: Turn[] = [];
  for (const s of sessions)
    for (const t of conv[s] as { dia_id: string; speaker: string; text: string; blip_caption?: string }[]) {
      const photo = t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : "";
      turns.push({ dia: t.dia_id, speaker: t.speaker, text: `${t.text ?? ""}${photo}`.trim() });
    }
  const known = new Set(turns.map((t) => t.dia));
  const qa = ((raw.qa ?? []) as { question: string; evidence?: string[]; category: number }[]).flatMap((q) => {
    // A few evidence fields hold two ids in one string ("D8:6; D9:17"); ids that name no turn are dropped.
    const evidence = (q.evidence ?? []).flatMap((e) => String(e).split(/[;,\s]+/)).filter((e) => known.has(e));
    return evidence.length ? [{ question: q.question, evidence, category: q.category }] : [];
  });
  return { name, turns, qa };
}

function loadConversations(): Conversation[] {
  if (!existsSync(SOURCE)) {
    console.error(
      `LoCoMo data not found at ${SOURCE}.\n` +
        "Get it with: git clone --depth 1 https://github.com/snap-research/locomo /tmp/locomo\n" +
        "then: LOCOMO=/tmp/locomo/data/locomo10.json bun scripts/bench/locomo.ts",
    );
    process.exit(1);
  }
  if (statSync(SOURCE).isDirectory())
    return readdirSync(SOURCE)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => conversationOf(f.replace(/\.json$/, ""), JSON.parse(readFileSync(join(SOURCE, f), "utf8"))));
  const data = JSON.parse(readFileSync(SOURCE, "utf8")) as Record<string, unknown>[];
  return data.map((c, i) => conversationOf(String(c.sample_id ?? i), c));
}

// ---------------------------------------------------------------------------------------------
// The baseline: plain Okapi BM25 over the same turn texts.

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
/** A common English stopword list (NLTK's, minus contractions). */
const STOP = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that these those am is are was were be " +
    "been being have has had having do does did doing a an the and but if or because as until while of at by for with " +
    "about against between into through during before after above below to from up down in out on off over under again " +
    "further then once here there when where why how all any both each few more most other some such no nor not only " +
    "own same so than too very s t can will just don should now"
  ).split(" "),
);

function bm25Ranker(docs: string[], opts: { stop?: boolean } = {}, k1 = 1.2, b = 0.75) {
  const words_ = (t: string) => (opts.stop ? words(t).filter((w) => !STOP.has(w)) : words(t));
  return okapi(docs, words_, k1, b);
}

/** Okapi BM25 as SQLite FTS5 computes it (porter stemming, unicode61; IDF floored), any of the words. */
function fts5Ranker(docs: string[]): (query: string, k: number) => number[] {
  const db = new Database(":memory:");
  db.run("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')");
  const put = db.query("INSERT INTO t(rowid, body) VALUES(?, ?)");
  db.transaction(() => {
    for (const [i, d] of docs.entries()) put.run(i + 1, d);
  })();
  const q = db.query("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?");
  return (query, k) => {
    const terms = [...new Set(words(query))].map((w) => `"${w}"`);
    if (!terms.length) return [];
    return (q.all(terms.join(" OR "), k) as { rowid: number }[]).map((r) => r.rowid - 1);
  };
}

function okapi(docs: string[], words: (t: string) => string[], k1: number, b: number) {
  const tfs = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const w of words(d)) tf.set(w, (tf.get(w) ?? 0) + 1);
    return tf;
  });
  const lengths = docs.map((d) => words(d).length);
  const avg = lengths.reduce((a, n) => a + n, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const tf of tfs) for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = docs.length;
  return (query: string, k: number): number[] => {
    const terms = [...new Set(words(query))];
    const scores = tfs.map((tf, i) => {
      let s = 0;
      for (const t of terms) {
        const f = tf.get(t);
        if (!f) continue;
        const d = df.get(t)!;
        const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
        s += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * lengths[i]!) / avg));
      }
      return s;
    });
    return scores
      .map((s, i) => [s, i] as const)
      .filter(([s]) => s > 0)
      .sort((x, y) => y[0] - x[0] || x[1] - y[1])
      .slice(0, k)
      .map(([, i]) => i);
  };
}

// ---------------------------------------------------------------------------------------------

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
function ulid(i: number): string {
  let t = Date.UTC(2023, 0, 1) + i * 60_000;
  let time = "";
  for (let k = 0; k < 10; k++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  let rand = "";
  let x = i + 1;
  for (let k = 0; k < 16; k++) {
    rand += CROCKFORD[x % 32]!;
    x = Math.floor(x / 32) + k * 7;
  }
  return time + rand;
}

let conversations = loadConversations();
const only = numArg("conversations", 0);
if (only) conversations = conversations.slice(0, only);

const { root, env } = benchSandbox("locomo");
const { projectIdFor } = await import("../../src/store/scope");
const { serializeEntry, deriveTitle } = await import("../../src/store/entry");

const repos = new Map<string, string>();
let serial = 0;
const idOf = new Map<string, string>(); // `${conv}\t${dia}` -> id
for (const c of conversations) {
  const remote = `github.com/locomo/conv-${c.name}`;
  const repo = join(root, "work", c.name);
  fakeRepo(repo, `https://${remote}.git`);
  repos.set(c.name, repo);
  const dir = join(env.COFFER_HOME, "memory", "projects", projectIdFor(`remote:${remote}`), "entries");
  mkdirSync(dir, { recursive: true });
  for (const t of c.turns) {
    const id = ulid(serial++);
    idOf.set(`${c.name}\t${t.dia}`, id);
    const body = `${t.speaker}: ${t.text}`;
    const when = new Date(Date.UTC(2023, 0, 1) + serial * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    writeFileSync(
      join(dir, `${id}.md`),
      serializeEntry({
        id,
        kind: "note",
        title: deriveTitle(body),
        tags: [],
        applies_to: [],
        actor: "user",
        source: "cli",
        created: when,
        updated: when,
        body,
      }),
    );
  }
}
const reindex = Bun.spawnSync([BIN, "reindex"], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
if (reindex.exitCode !== 0) throw new Error(`reindex failed: ${reindex.stderr}`);

const search = CLI ? undefined : await import("../../src/retrieval/search");
const storeMod = CLI ? undefined : await import("../../src/store/store");

type Tally = { n: number; any: number; frac: number };
const tally = () => ({ n: 0, any: 0, frac: 0 });
const board = () => ({ all: tally() as Tally, cat: new Map<number, Tally>() });
const coffer = board();
const bm25 = board();
const bm25stop = board();
const fts5 = board();
const add = (t: { all: Tally; cat: Map<number, Tally> }, cat: number, evidence: string[], got: string[]) => {
  const found = evidence.filter((e) => got.includes(e)).length;
  for (const x of [t.all, t.cat.get(cat) ?? t.cat.set(cat, tally()).get(cat)!]) {
    x.n++;
    x.any += found ? 1 : 0;
    x.frac += found / evidence.length;
  }
};

const started = performance.now();
for (const c of conversations) {
  const repo = repos.get(c.name)!;
  const diaOf = new Map(c.turns.map((t) => [idOf.get(`${c.name}\t${t.dia}`)!, t.dia]));
  const docs = c.turns.map((t) => `${t.speaker}: ${t.text}`);
  const rank = bm25Ranker(docs);
  const rankStop = bm25Ranker(docs, { stop: true });
  const rankFts = fts5Ranker(docs);
  const store = storeMod?.openStore({ cwd: repo, notice: () => {} });
  for (const q of c.qa) {
    let ids: string[];
    if (store) {
      ids = search!.recall(store, q.question, { limit: LIMIT }).map((h) => h.id);
    } else {
      const r = Bun.spawnSync([BIN, "recall", "--limit", String(LIMIT), "--json", "--", q.question], {
        cwd: repo,
        env,
        stdout: "pipe",
        stderr: "pipe",
      });
      if (r.exitCode !== 0) throw new Error(`recall exited ${r.exitCode}: ${r.stderr}`);
      ids = (JSON.parse(r.stdout.toString()).hits as { id: string }[]).map((h) => h.id);
    }
    const got = ids.map((id) => diaOf.get(id) ?? id);
    const base = rank(q.question, LIMIT).map((i) => c.turns[i]!.dia);
    add(coffer, q.category, q.evidence, got);
    add(bm25, q.category, q.evidence, base);
    add(
      bm25stop,
      q.category,
      q.evidence,
      rankStop(q.question, LIMIT).map((i) => c.turns[i]!.dia),
    );
    add(
      fts5,
      q.category,
      q.evidence,
      rankFts(q.question, LIMIT).map((i) => c.turns[i]!.dia),
    );
    if (VERBOSE && !q.evidence.some((e) => got.includes(e)))
      console.log(
        `MISS [${c.name} c${q.category}] ${q.question}\n  evidence ${q.evidence.join(" ")}; coffer ${got.join(" ")}; bm25 ${base.join(" ")}`,
      );
  }
  if (store) storeMod!.closeStore(store);
}
const seconds = (performance.now() - started) / 1000;

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const figures = (t: { all: Tally; cat: Map<number, Tally> }) => ({
  recall5: r3(t.all.any / t.all.n),
  evidence5: r3(t.all.frac / t.all.n),
  byCategory: Object.fromEntries(
    [...t.cat.entries()].sort(([a], [b]) => a - b).map(([k, x]) => [k, { n: x.n, recall5: r3(x.any / x.n) }]),
  ),
});
const out = {
  conversations: conversations.length,
  turns: conversations.reduce((n, c) => n + c.turns.length, 0),
  questions: coffer.all.n,
  mode: CLI ? `cli (${BIN})` : "in-process (src/)",
  seconds: Math.round(seconds),
  coffer: figures(coffer),
  bm25: figures(bm25),
  bm25Stopwords: figures(bm25stop),
  bm25Fts5Porter: figures(fts5),
};
if (JSON_OUT) console.log(JSON.stringify(out, null, 2));
else {
  console.log(
    `LoCoMo: ${out.conversations} conversations, ${out.turns} turns, ${out.questions} questions with evidence; ${out.mode}, ${out.seconds} s`,
  );
  for (const [name, f] of [
    ["coffer recall          ", out.coffer],
    ["Okapi BM25 (plain)     ", out.bm25],
    ["Okapi BM25 (stopwords) ", out.bm25Stopwords],
    ["Okapi BM25 (FTS5 porter)", out.bm25Fts5Porter],
  ] as const)
    console.log(
      `  ${name}  recall@5 ${f.recall5.toFixed(3)}  (evidence turns found ${f.evidence5.toFixed(3)})  by category: ${Object.entries(
        f.byCategory,
      )
        .map(([k, v]) => `${k}: ${v.recall5.toFixed(3)}`)
        .join(", ")}`,
    );
}
if (!process.env.KEEP) rmSync(root, { recursive: true, force: true });
else console.log(`kept: ${root}`);
