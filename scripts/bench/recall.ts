/**
 * Recall benchmark (SPEC 8): a store of 100,000 generated entries.
 * - index build: `coffer reindex` with the compiled binary (median of 3 runs)
 * - recall: in-process median/p95 over 200 queries (project + global, ranked by relevance)
 * - staleness check on an unchanged store: in-process shallow refresh (the hook path), and deep for reference
 * Baselines in the same run: `coffer --version` (process start) and a bare FTS query.
 *
 *   bun scripts/bench/recall.ts [--entries 100000] [--queries 200]
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, benchSandbox, entryDirs, fakeRepo, numArg, stats } from "./_common";
import { syntheticVocab } from "./_corpus";

const N = numArg("entries", 100_000);
const Q = numArg("queries", 200);

const { root, env } = benchSandbox("recall");

// Deterministic pseudo-random text with a Zipf-like vocabulary.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const vocab = syntheticVocab(8000);
const zipf = () => vocab[Math.min(vocab.length - 1, Math.floor(rand() ** 2.2 * vocab.length))]!;
const sentence = (n: number) => Array.from({ length: n }, zipf).join(" ");

const { projectIdFor } = await import("../../src/store/scope");
const projectId = projectIdFor("remote:github.com/bench/project");
const repo = join(root, "work", "project");
fakeRepo(repo, "https://github.com/bench/project.git");

const { ulid } = await import("../../src/lib/ulid");
const { serializeEntry } = await import("../../src/store/entry");
const t = performance.now();
const dirs = entryDirs(env.COFFER_HOME, projectId);
for (let i = 0; i < N; i++) {
  const id = ulid();
  const body = `${sentence(20 + Math.floor(rand() * 40))}.\n\n${sentence(10 + Math.floor(rand() * 20))}.`;
  const entry = {
    id,
    kind: "note" as const,
    title: sentence(4 + Math.floor(rand() * 5)),
    tags: [zipf(), zipf()],
    applies_to: [],
    actor: "user",
    source: "import" as const,
    created: "2026-01-01T00:00:00Z",
    updated: "2026-01-01T00:00:00Z",
    body,
  };
  writeFileSync(join(i % 5 === 0 ? dirs.project : dirs.global, `${id}.md`), serializeEntry(entry));
}
const genMs = performance.now() - t;

const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;

// Process start baseline.
const startRuns: number[] = [];
for (let i = 0; i < 20; i++) {
  const s = performance.now();
  Bun.spawnSync([BIN, "--version"]);
  startRuns.push(performance.now() - s);
}

// Index build with the compiled binary.
const buildRuns: number[] = [];
for (let i = 0; i < 3; i++) {
  const s = performance.now();
  const p = Bun.spawnSync([BIN, "reindex", "--json"], { env: process.env as Record<string, string>, cwd: repo });
  if (p.exitCode !== 0) throw new Error(p.stderr.toString());
  buildRuns.push(performance.now() - s);
}

// In-process recall.
const { closeStore, openStore, refresh } = await import("../../src/store/store");
const { recall } = await import("../../src/retrieval/search");
const { dbOf } = await import("../../src/store/db");
const store = openStore({ cwd: repo, freshness: "none" });
const queries = Array.from({ length: Q }, () => Array.from({ length: 2 + Math.floor(rand() * 2) }, zipf).join(" "));
for (const q of queries.slice(0, 10)) recall(store, q, { limit: 5 }); // warm the page cache
const recallRuns: number[] = [];
let hits = 0;
for (const q of queries) {
  const s = performance.now();
  hits += recall(store, q, { limit: 5 }).length;
  recallRuns.push(performance.now() - s);
}
const bareRuns: number[] = [];
for (const q of queries) {
  const s = performance.now();
  // One BM25-ranked FTS query over every scope, any of the words: what SQLite alone costs.
  const match = q
    .split(" ")
    .map((w) => `"${w}"`)
    .join(" OR ");
  dbOf(store).query("SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rank LIMIT 5").all(match);
  bareRuns.push(performance.now() - s);
}

// Staleness check on an unchanged store.
const shallowRuns: number[] = [];
for (let i = 0; i < 200; i++) {
  const s = performance.now();
  refresh(store, "shallow", [projectId, "global"]);
  shallowRuns.push(performance.now() - s);
}
const deepRuns: number[] = [];
for (let i = 0; i < 3; i++) {
  const s = performance.now();
  refresh(store, "deep", [projectId, "global"]);
  deepRuns.push(performance.now() - s);
}
closeStore(store);

const r = stats(recallRuns),
  b = stats(bareRuns),
  sh = stats(shallowRuns),
  st = stats(startRuns);
console.log(
  `coffer recall benchmark — ${N.toLocaleString()} entries (${N / 5} project, ${(4 * N) / 5} global), ${Q} queries`,
);
console.log(`  generate files           ${fmt(genMs)}`);
console.log(`  baseline: coffer --version   median ${fmt(st.median)}`);
console.log(
  `  index build (coffer reindex, compiled)   median ${fmt(stats(buildRuns).median)}  (runs: ${buildRuns.map(fmt).join(", ")})   target <= 30000 ms`,
);
console.log(
  `  recall (in-process, 2 scopes, ranked)       median ${fmt(r.median)}  p95 ${fmt(r.p95)}  max ${fmt(r.max)}   target median <= 10 ms   (${(hits / Q).toFixed(1)} hits/query)`,
);
console.log(
  `  baseline: one FTS query, BM25 top 5      median ${fmt(b.median)}  p95 ${fmt(b.p95)}   ratio recall/bare ${(r.median / b.median).toFixed(2)}`,
);
console.log(`  staleness check, unchanged (shallow)     median ${fmt(sh.median)}  p95 ${fmt(sh.p95)}   target <= 2 ms`);
console.log(`  staleness check, deep (CLI; every file)  median ${fmt(stats(deepRuns).median)}`);
rmSync(root, { recursive: true, force: true });
