/**
 * Hook benchmark (SPEC 8): the compiled binary end to end (process start to exit) on a store
 * of 10,000 entries and 100 rules, in a project with a Claude auto-memory folder of 5 notes. Runs `coffer hook session-start` and `coffer hook prompt`
 * (Claude payloads, a fresh session each run, so every prompt routes, loads bodies and writes
 * the delivered set) and reports median and p95 as ratios to the runtime's floor (a trivial program
 * compiled with Coffer's flags: issue 38's targets) and to `coffer --version`, all measured in the
 * same run, interleaved so machine noise hits them alike. Peak RSS comes from a separate pass under
 * /usr/bin/time.
 *
 *   COFFER_BIN=dist/hooks/coffer bun scripts/bench/hook.ts [--entries 10000] [--rules 100] [--runs 50] [--team 0]
 *   (--team N: a monorepo whose committed `.coffer/` holds N team entries and 20 team rules, besides
 *   the personal store; a fifth of the prompts name a team entry's words)
 *   (KEEP=1 keeps the generated store and prints its path)
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, benchSandbox, entryDirs, fakeRepo, floorBinary, numArg, stats, textGen } from "./_common";

const N = numArg("entries", 10_000);
const RULES = numArg("rules", 100);
const RUNS = numArg("runs", 50);
const TEAM = numArg("team", 0);

const { root, env } = benchSandbox("hook");
const { rand, word, sentence } = textGen(7, 6000);

const { projectIdFor } = await import("../../src/store/scope");
const { serializeEntry } = await import("../../src/store/entry");
const projectId = projectIdFor("remote:github.com/bench/hooks");
const repo = join(root, "work", "hooks");
fakeRepo(repo, "https://github.com/bench/hooks.git");
mkdirSync(join(repo, "src", "api"), { recursive: true });
writeFileSync(join(repo, "src", "api", "handler.ts"), "export {};\n");
// Claude Code's auto memory for this project (harvested at warm-up; session start then only
// compares its signature, as it does while the agent writes nothing new).
const autoMemory = join(env.HOME, ".claude", "projects", repo.replace(/[^A-Za-z0-9]/g, "-"), "memory");
mkdirSync(autoMemory, { recursive: true });
writeFileSync(join(autoMemory, "MEMORY.md"), "- [Tests](tests.md)\n- The user prefers small commits\n");
for (const n of ["tests", "deploy", "style", "db"])
  writeFileSync(
    join(autoMemory, `${n}.md`),
    `---\nname: ${n}\ndescription: ${n} notes\n---\n${n}: ${"x".repeat(200)}\n`,
  );

const dirs = entryDirs(env.COFFER_HOME, projectId);
const { mem } = dirs;
const titles: string[] = [];
for (let i = 0; i < N; i++) {
  const id = `01BENCH${String(i).padStart(19, "0")}`;
  const title = sentence(3 + Math.floor(rand() * 4));
  titles.push(title);
  const entry = {
    id,
    kind: "note" as const,
    title,
    tags: [word(), word()],
    applies_to: i % 40 === 0 ? ["src/api/**"] : [],
    actor: "user",
    source: "import" as const,
    created: "2026-01-01T00:00:00Z",
    updated: `2026-01-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z`,
    body: `${sentence(25 + Math.floor(rand() * 40))}.\n\n${sentence(10 + Math.floor(rand() * 25))}.`,
  };
  writeFileSync(join(i % 2 === 0 ? dirs.project : dirs.global, `${id}.md`), serializeEntry(entry));
}
// The team lane: the repository's own .coffer/ (issue 28), indexed like a scope.
const teamTitles: string[] = [];
if (TEAM) {
  const teamDir = join(repo, ".coffer", "entries");
  mkdirSync(teamDir, { recursive: true });
  for (let i = 0; i < TEAM; i++) {
    const id = `01TEAM${String(i).padStart(20, "0")}`;
    const title = sentence(3 + Math.floor(rand() * 4));
    teamTitles.push(title);
    const entry = {
      id,
      kind: "gotcha" as const,
      title,
      tags: [word()],
      applies_to: i % 100 === 0 ? ["src/api/**"] : [],
      actor: "user",
      source: "cli" as const,
      created: "2026-01-01T00:00:00Z",
      updated: `2026-01-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z`,
      body: `${sentence(25 + Math.floor(rand() * 40))}.`,
    };
    writeFileSync(join(teamDir, `${id}.md`), serializeEntry(entry));
  }
}
const rules = (n: number) =>
  `${Array.from({ length: n }, () => `- ${sentence(8 + Math.floor(rand() * 8))}`).join("\n")}\n`;
writeFileSync(join(mem, "projects", projectId, "rules.md"), rules(Math.ceil(RULES * 0.6)));
writeFileSync(join(mem, "global", "rules.md"), rules(Math.floor(RULES * 0.4)));
if (TEAM) writeFileSync(join(repo, ".coffer", "rules.md"), rules(20));

const reindex = Bun.spawnSync([BIN, "reindex"], { cwd: repo, env, stdout: "pipe", stderr: "pipe" });
if (reindex.exitCode !== 0) throw new Error(`reindex failed: ${reindex.stderr}`);

type Sample = { ms: number; out: string };
function run(args: string[], stdin?: string): Sample {
  const s = performance.now();
  const p = Bun.spawnSync([BIN, ...args], {
    cwd: repo,
    env,
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const ms = performance.now() - s;
  if (p.exitCode !== 0) throw new Error(`${args.join(" ")} exited ${p.exitCode}`);
  return { ms, out: p.stdout.toString() };
}

const prompts = Array.from({ length: RUNS }, (_, i) => {
  const pool = TEAM && i % 5 === 2 ? teamTitles : titles;
  const t = pool[Math.floor(rand() * pool.length)]!.split(" ");
  return i % 5 === 0
    ? `why does src/api/handler.ts fail? ${t.slice(0, 2).join(" ")}`
    : `how do we handle ${t.slice(0, 3).join(" ")} in this repo?`;
});

// Warm the page cache and the index once.
run(["--version"]);
run(
  ["hook", "session-start", "--agent", "claude"],
  JSON.stringify({ session_id: "warm", cwd: repo, hook_event_name: "SessionStart", source: "startup" }),
);

const FLOOR = floorBinary();
function floorRun(): Sample {
  const s = performance.now();
  Bun.spawnSync([FLOOR], { stdout: "pipe", stderr: "pipe" });
  return { ms: performance.now() - s, out: "" };
}
const samples = { floor: [] as Sample[], version: [] as Sample[], start: [] as Sample[], prompt: [] as Sample[] };
for (let i = 0; i < RUNS; i++) {
  samples.floor.push(floorRun());
  samples.version.push(run(["--version"]));
  samples.start.push(
    run(
      ["hook", "session-start", "--agent", "claude"],
      JSON.stringify({
        session_id: `bs-${i}`,
        transcript_path: "/tmp/x.jsonl",
        cwd: repo,
        hook_event_name: "SessionStart",
        source: "startup",
      }),
    ),
  );
  samples.prompt.push(
    run(
      ["hook", "prompt", "--agent", "claude"],
      JSON.stringify({
        session_id: `bp-${i}`,
        transcript_path: "/tmp/x.jsonl",
        cwd: repo,
        hook_event_name: "UserPromptSubmit",
        prompt: prompts[i],
      }),
    ),
  );
}

// Peak RSS in a separate pass through /usr/bin/time (the kernel's own count per process).
const TIME = ["/usr/bin/time", "/bin/time"].find((p) => Bun.file(p).size > 0);
function peakRss(args: string[], stdin: (i: number) => string | undefined, n = 10, bin = BIN): number {
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const input = stdin(i);
    if (!TIME) {
      peak = Math.max(
        peak,
        Bun.spawnSync([bin, ...args], { cwd: repo, env, stdin: input === undefined ? "ignore" : Buffer.from(input) })
          .resourceUsage.maxRSS,
      );
      continue;
    }
    const p = Bun.spawnSync([TIME, "-f", "%M", bin, ...args], {
      cwd: repo,
      env,
      stdin: input === undefined ? "ignore" : Buffer.from(input),
      stdout: "pipe",
      stderr: "pipe",
    });
    peak = Math.max(peak, Number(p.stderr.toString().trim().split("\n").pop()) * 1024);
  }
  return peak;
}
const rss = {
  floor: peakRss([], () => undefined, 10, FLOOR),
  version: peakRss(["--version"], () => undefined),
  start: peakRss(["hook", "session-start", "--agent", "claude"], (i) =>
    JSON.stringify({ session_id: `rs-${i}`, cwd: repo, hook_event_name: "SessionStart", source: "startup" }),
  ),
  prompt: peakRss(["hook", "prompt", "--agent", "claude"], (i) =>
    JSON.stringify({
      session_id: `rp-${i}`,
      cwd: repo,
      hook_event_name: "UserPromptSubmit",
      prompt: prompts[i % prompts.length],
    }),
  ),
};

const ctxLen = (o: string) => (JSON.parse(o).hookSpecificOutput?.additionalContext ?? "").length;
const routedBodies = samples.prompt.map(
  (s) => (JSON.parse(s.out).hookSpecificOutput?.additionalContext ?? "").match(/^## \[/gm)?.length ?? 0,
);
const base = stats(samples.version.map((s) => s.ms)).median;
const floor = stats(samples.floor.map((s) => s.ms)).median;
/** One process's line: times, ratios to the floor (the target, issue 38) and to --version, peak RSS. */
const line = (name: string, xs: Sample[], peak: number, target?: number) => {
  const t = stats(xs.map((s) => s.ms));
  const rss = peak / 1024 / 1024;
  const ratio = t.median / floor;
  const verdict = target === undefined ? "" : ratio <= target && rss <= 60 ? "  OK" : "  MISS";
  return `${name.padEnd(22)} median ${t.median.toFixed(1).padStart(5)} ms  p95 ${t.p95.toFixed(1).padStart(5)} ms  max ${t.max.toFixed(1).padStart(5)} ms  peak RSS ${rss.toFixed(1)} MB  ${ratio.toFixed(2)}x floor  (${(t.median / base).toFixed(2)}x --version)${target ? `  target <= ${target}x floor, <= 60 MB${verdict}` : ""}`;
};

console.log(
  `coffer hook bench: ${N} entries, ${RULES} rules${TEAM ? `, ${TEAM} team entries and 20 team rules in .coffer/` : ""}, ${RUNS} runs each, binary ${BIN}`,
);
console.log(line("floor (trivial binary)", samples.floor, rss.floor));
console.log(line("coffer --version", samples.version, rss.version, 1.3));
// Issue 38's targets at 10,000 entries (the default size).
console.log(line("hook session-start", samples.start, rss.start, 2.0));
console.log(line("hook prompt", samples.prompt, rss.prompt, 2.5));
console.log(
  `session-start context: ${ctxLen(samples.start[0]!.out)} chars; prompt: ${samples.prompt.filter((s) => ctxLen(s.out) > 0).length}/${RUNS} injected, ${routedBodies.reduce((a, b) => a + b, 0) / RUNS} bodies on average${TEAM ? `, ${samples.prompt.filter((s) => s.out.includes("(team)")).length}/${RUNS} with a team body` : ""}`,
);
if (process.env.KEEP) console.log("kept", root, repo);
else rmSync(root, { recursive: true, force: true });
