/**
 * Set-up shared by the benchmarks: command-line options, the binary under test, a throwaway
 * HOME/COFFER_HOME, and deterministic Zipf-like text over the synthetic vocabulary.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { COMPILE_FLAGS } from "../targets";
import { syntheticVocab } from "./_corpus";

/** The value after `--name` on the command line, or `def`. */
export function argOf(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
}

export const numArg = (name: string, def: number): number => Number(argOf(name, String(def)));

/** The compiled binary under test (COFFER_BIN selects another one). */
export const BIN = resolve(process.env.COFFER_BIN ?? "dist/coffer");

/**
 * A temporary root with an empty HOME and a COFFER_HOME for the binary's environment; this
 * process points at them too, so in-process imports never see the real HOME.
 */
export function benchSandbox(name: string, keptRoot?: string) {
  // keptRoot: a fixed place kept between runs (SCALE_STORE) instead of a new temporary folder.
  const root = keptRoot ?? realpathSync(mkdtempSync(join(tmpdir(), `coffer-bench-${name}-`)));
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "home"),
    COFFER_HOME: join(root, "coffer"),
    LANG: "C.UTF-8",
  };
  mkdirSync(env.HOME, { recursive: true });
  process.env.HOME = env.HOME;
  process.env.COFFER_HOME = env.COFFER_HOME;
  return { root, env };
}

const COMMON = "the build test deploy config release server client cache error update file module function".split(" ");

/**
 * Deterministic text: mulberry32 (a full-period 32-bit generator; a float LCG repeats after a few
 * hundred draws) over a Zipf-like made-up vocabulary, plus everyday coding words a quarter of the
 * time unless `common` is false.
 */
export function textGen(seed: number, vocabSize: number, common = true) {
  let s = seed;
  const rand = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const vocab = syntheticVocab(vocabSize);
  const word = () =>
    common && rand() < 0.25
      ? COMMON[Math.floor(rand() * COMMON.length)]!
      : vocab[Math.min(vocab.length - 1, Math.floor(rand() ** 2.2 * vocab.length))]!;
  const sentence = (n: number) => Array.from({ length: n }, word).join(" ");
  return { rand, word, sentence };
}

/** The median of `xs` (upper middle for an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median, p95 and extremes of `xs`. */
export function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
  return { median: q(0.5), p95: q(0.95), min: s[0]!, max: s[s.length - 1]! };
}

/** A repository at `dir` as far as project detection cares: `.git/HEAD` and an origin remote. */
export function fakeRepo(dir: string, remoteUrl: string): string {
  mkdirSync(join(dir, ".git"), { recursive: true });
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dir, ".git", "config"), `[remote "origin"]\n\turl = ${remoteUrl}\n`);
  return dir;
}

/** The global and one project's entries folders under `cofferHome`'s memory/, created. */
export function entryDirs(cofferHome: string, projectId: string) {
  const mem = join(cofferHome, "memory");
  const dirs = { mem, global: join(mem, "global", "entries"), project: join(mem, "projects", projectId, "entries") };
  mkdirSync(dirs.global, { recursive: true });
  mkdirSync(dirs.project, { recursive: true });
  return dirs;
}

/**
 * Programs compiled with Coffer's own flags into one temporary folder (removed when this process
 * exits): `name` -> its source. Returns each program's path.
 */
export function compiledPrograms(sources: Record<string, string>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "coffer-floor-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true })); // one per bench run, not left in /tmp
  const out: Record<string, string> = {};
  for (const [name, source] of Object.entries(sources)) {
    writeFileSync(join(dir, `${name}.ts`), source);
    out[name] = join(dir, name);
    const r = Bun.spawnSync(["bun", "build", ...COMPILE_FLAGS, join(dir, `${name}.ts`), "--outfile", out[name]!], {
      stdout: "pipe",
      stderr: "pipe",
    });
    if (r.exitCode !== 0) throw new Error(`${name} binary: ${r.stderr}`);
  }
  return out;
}

/** The floor's program. */
export const FLOOR_SOURCE = "console.log(1);\n";

/**
 * The runtime's floor, a trivial program (`console.log(1)`) compiled with Coffer's own flags, and
 * the binary under test copied beside it: benchmarks report each process as a ratio to the floor,
 * since `coffer --version` carries the whole bundle's load too. Both are written in this run
 * because how a binary's pages came into the page cache changes its start: on Linux 6.18 (ext4)
 * the same bytes start 2-3 ms faster once written (a build, a copy) than after earlier runs faulted
 * them in, and the floor 0.7 ms faster; a binary built an hour ago against a floor built now read
 * about 0.5x too high.
 */
export function floorAndBinary(): { floor: string; bin: string } {
  const floor = compiledPrograms({ floor: FLOOR_SOURCE }).floor!;
  const bin = join(dirname(floor), "coffer");
  copyFileSync(BIN, bin);
  return { floor, bin };
}

/**
 * A store of `n` entries in one project (plus 200 global ones, a quarter of them conventions) and
 * 100 rules, written straight to memory/ and indexed by one `coffer reindex` of the binary under
 * test, for a fake repository (`src/api/handler.ts`; every 400th entry applies to `src/api/**`).
 * `gen` draws the text, so a caller's later draws continue its sequence. `keptRoot` keeps the store
 * there (SCALE_STORE) and reuses what an earlier run wrote, reindexed again.
 */
export async function syntheticStore(name: string, n: number, gen: ReturnType<typeof textGen>, keptRoot?: string) {
  const { rand, word, sentence } = gen;
  const reuse = keptRoot !== undefined && existsSync(join(keptRoot, "built"));
  const { root, env } = benchSandbox(name, keptRoot);
  // Imported after benchSandbox points HOME at the sandbox.
  const { projectIdFor } = await import("../../src/store/scope");
  const { serializeEntry } = await import("../../src/store/entry");
  const projectId = projectIdFor("remote:github.com/bench/scale");
  const repo = join(root, "work", "scale");
  fakeRepo(repo, "https://github.com/bench/scale.git");
  mkdirSync(join(repo, "src", "api"), { recursive: true });
  writeFileSync(join(repo, "src", "api", "handler.ts"), "export {};\n");
  const dirs = entryDirs(env.COFFER_HOME, projectId);
  const { mem } = dirs;
  const titles: string[] = [];
  const ids: string[] = [];
  const globals = 200;
  for (let i = 0; i < n + globals; i++) {
    const id = `01SCALE${String(i).padStart(19, "0")}`;
    const title = sentence(3 + Math.floor(rand() * 4));
    const global = i >= n;
    if (!global) {
      titles.push(title);
      ids.push(id);
    }
    const entry = {
      id,
      kind: global && i % 4 === 0 ? ("convention" as const) : ("note" as const),
      title,
      tags: [word(), word()],
      applies_to: i % 400 === 0 ? ["src/api/**"] : [],
      actor: "user",
      source: "import" as const,
      created: "2026-01-01T00:00:00Z",
      updated: `2026-01-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z`,
      body: `${sentence(25 + Math.floor(rand() * 40))}.\n\n${sentence(10 + Math.floor(rand() * 25))}.`,
    };
    if (!reuse) writeFileSync(join(global ? dirs.global : dirs.project, `${id}.md`), serializeEntry(entry));
  }
  const rules = (k: number) =>
    `${Array.from({ length: k }, () => `- ${sentence(8 + Math.floor(rand() * 8))}`).join("\n")}\n`;
  const projectRules = rules(60);
  const globalRules = rules(40);
  if (!reuse) {
    writeFileSync(join(mem, "projects", projectId, "rules.md"), projectRules);
    writeFileSync(join(mem, "global", "rules.md"), globalRules);
  }
  const t = performance.now();
  const r = Bun.spawnSync([BIN, "reindex"], { cwd: repo, env, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`reindex failed: ${r.stderr}`);
  if (keptRoot) writeFileSync(join(keptRoot, "built"), "");
  return { root, env, repo, titles, ids, reindexMs: performance.now() - t, kept: keptRoot };
}
