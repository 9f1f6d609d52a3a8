/**
 * Hook benchmark (SPEC 8): the compiled binary end to end (process start to exit) on a store
 * of 10,000 entries and 100 rules, in a project with a Claude auto-memory folder of 5 notes. Runs `coffer hook session-start` and `coffer hook prompt`
 * (Claude payloads, a fresh session each run, so every prompt routes, loads bodies and writes
 * the delivered set) and reports median and p95 as ratios to the runtime's floor (a trivial program
 * compiled with Coffer's flags: issue 38's targets) and to `coffer --version`, all measured in the
 * same run, interleaved so machine noise hits them alike. Peak RSS comes from a separate pass under
 * /usr/bin/time.
 *
 *   COFFER_BIN=dist/hooks/coffer bun scripts/bench/hook.ts [--entries 10000] [--rules 100] [--runs 50] [--team 0] [--agent claude]
 *   (--agent <host>: that host's hooks with its own payloads (scripts/bench/_host-payloads.ts) beside
 *   Claude's, as one table with each row's median as a ratio to Claude's same event; --agent all:
 *   every host whose adapter injects at session start or on prompts, 15 runs unless --runs says)
 *   (--team N: a monorepo whose committed `.coffer/` holds N team entries and 20 team rules, besides
 *   the personal store; a fifth of the prompts name a team entry's words)
 *   (KEEP=1 keeps the generated store and prints its path)
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOSTS, type Host, isHost } from "../../src/lib/hosts";
import {
  argOf,
  BIN as BUILT,
  benchSandbox,
  entryDirs,
  fakeRepo,
  floorAndBinary,
  numArg,
  stats,
  textGen,
} from "./_common";
import { type BenchEvent, hostPayloads } from "./_host-payloads";

const AGENT = argOf("agent", "claude");
if (AGENT !== "all" && !isHost(AGENT)) throw new Error(`--agent ${AGENT}: one of ${HOSTS.join(", ")}, or all`);
const N = numArg("entries", 10_000);
const RULES = numArg("rules", 100);
const RUNS = numArg("runs", AGENT === "all" ? 15 : 50);
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

const { floor: FLOOR, bin: BIN } = floorAndBinary();
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
const warm = run(
  ["hook", "session-start", "--agent", "claude"],
  JSON.stringify({ session_id: "warm", cwd: repo, hook_event_name: "SessionStart", source: "startup" }),
);
const payloads = hostPayloads(repo, env.HOME, JSON.parse(warm.out).hookSpecificOutput?.additionalContext ?? "");
const claudeStdin = payloads.claude!.stdin;

function floorRun(): Sample {
  const s = performance.now();
  Bun.spawnSync([FLOOR], { stdout: "pipe", stderr: "pipe" });
  return { ms: performance.now() - s, out: "" };
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

/** Issue 38's targets at 10,000 entries (the default size), as ratios to the floor. */
const TARGET = { version: 1.3, "session-start": 2.0, prompt: 2.5 } as const;
/** Routed entries in a context: the `## [` headings of its memory part. */
const bodies = (context: string) => context.match(/^## \[/gm)?.length ?? 0;

function claudeBench() {
  const samples = { floor: [] as Sample[], version: [] as Sample[], start: [] as Sample[], prompt: [] as Sample[] };
  for (let i = 0; i < RUNS; i++) {
    samples.floor.push(floorRun());
    samples.version.push(run(["--version"]));
    samples.start.push(
      run(["hook", "session-start", "--agent", "claude"], JSON.stringify(claudeStdin["session-start"]!(`bs-${i}`, ""))),
    );
    samples.prompt.push(
      run(["hook", "prompt", "--agent", "claude"], JSON.stringify(claudeStdin.prompt!(`bp-${i}`, prompts[i]!))),
    );
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
  const routedBodies = samples.prompt.map((s) => bodies(JSON.parse(s.out).hookSpecificOutput?.additionalContext ?? ""));
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
    `coffer hook bench: ${N} entries, ${RULES} rules${TEAM ? `, ${TEAM} team entries and 20 team rules in .coffer/` : ""}, ${RUNS} runs each, binary ${BUILT} (a fresh copy)`,
  );
  console.log(line("floor (trivial binary)", samples.floor, rss.floor));
  console.log(line("coffer --version", samples.version, rss.version, TARGET.version));
  console.log(line("hook session-start", samples.start, rss.start, TARGET["session-start"]));
  console.log(line("hook prompt", samples.prompt, rss.prompt, TARGET.prompt));
  console.log(
    `session-start context: ${ctxLen(samples.start[0]!.out)} chars; prompt: ${samples.prompt.filter((s) => ctxLen(s.out) > 0).length}/${RUNS} injected, ${routedBodies.reduce((a, b) => a + b, 0) / RUNS} bodies on average${TEAM ? `, ${samples.prompt.filter((s) => s.out.includes("(team)")).length}/${RUNS} with a team body` : ""}`,
  );
}

/**
 * Every selected host's hooks with its own payloads, interleaved with the floor and `--version`
 * (and rotated, so no row always follows the same one), and each answer checked: in the host's
 * exact shape (its adapter's render), the bundle at session start, a routed entry on every prompt
 * that routed one for Claude. One table; "vs Claude" is the row's median over Claude's same event.
 */
async function hostsBench() {
  const { loadHookAdapter } = await import("../../src/hosts");
  const hosts: Host[] = AGENT === "all" ? [...HOSTS] : ["claude", AGENT as Host];
  type Row = { host: Host; event: BenchEvent; args: string[]; stdin: (session: string, prompt: string) => string };
  const rows: Row[] = [];
  const adapters = new Map(await Promise.all(hosts.map(async (h) => [h, await loadHookAdapter(h)] as const)));
  for (const host of hosts) {
    const adapter = adapters.get(host)!;
    const events = (["session-start", "prompt"] as const).filter((e) => adapter.injects.includes(e));
    if (!events.length) {
      if (AGENT === host) throw new Error(`${host}'s hooks inject nothing: no hook to time`);
      continue;
    }
    for (const event of events) {
      const build = payloads[host]?.stdin[event];
      if (!build) throw new Error(`${host} injects on ${event} but _host-payloads.ts has no payload for it`);
      rows.push({
        host,
        event,
        args: ["hook", event, "--agent", host],
        stdin: (session, prompt) => JSON.stringify(build(session, prompt)),
      });
    }
  }
  const tag = (r: Row) => `${r.host}-${r.event === "prompt" ? "p" : "s"}`;

  // The answer's context, checked to be exactly the host's own output for it.
  const contextOf = (r: Row, out: string) => {
    const adapter = adapters.get(r.host)!;
    const context = payloads[r.host]!.context(out);
    const expected = context ? adapter.render(r.event, context) : adapter.empty(r.event);
    if (out.trimEnd() !== expected.trimEnd())
      throw new Error(`${r.host} ${r.event}: the answer is not ${r.host}'s shape: ${out.slice(0, 200)}`);
    return context;
  };

  for (const r of rows) run(r.args, r.stdin(`${tag(r)}-warm`, prompts[0]!));
  const samples = new Map<Row, Sample[]>(rows.map((r) => [r, []]));
  const floorSamples: Sample[] = [];
  const versionSamples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    floorSamples.push(floorRun());
    versionSamples.push(run(["--version"]));
    for (let k = 0; k < rows.length; k++) {
      const r = rows[(i + k) % rows.length]!;
      const stdin = r.stdin(`${tag(r)}-${i}`, prompts[i]!);
      samples.get(r)!.push(run(r.args, stdin));
    }
  }

  // What each row delivered: the bundle at session start, routed entries on prompts.
  const claudePrompt = rows.find((r) => r.host === "claude" && r.event === "prompt")!;
  const claudeRouted = samples.get(claudePrompt)!.map((s) => bodies(contextOf(claudePrompt, s.out)));
  const delivered = new Map<Row, string>();
  for (const r of rows) {
    const contexts = samples.get(r)!.map((s) => contextOf(r, s.out));
    if (r.event === "session-start") {
      const missing = contexts.findIndex((c) => !c.includes("# Project rules (via Coffer)"));
      if (missing >= 0) throw new Error(`${r.host} session-start run ${missing}: no rules bundle in the answer`);
      delivered.set(r, `bundle ${contexts[0]!.length} chars`);
    } else {
      const routed = contexts.map(bodies);
      const missing = routed.findIndex((n, i) => claudeRouted[i]! > 0 && n === 0);
      if (missing >= 0)
        throw new Error(`${r.host} prompt run ${missing}: Claude's answer routed an entry, ${r.host}'s none`);
      const chars = Math.round(contexts.reduce((a, c) => a + c.length, 0) / RUNS);
      delivered.set(r, `${routed.filter((n) => n > 0).length}/${RUNS} routed, ${chars} chars on average`);
    }
  }

  const rss = new Map<Row | "floor" | "version", number>([
    ["floor", peakRss([], () => undefined, 10, FLOOR)],
    ["version", peakRss(["--version"], () => undefined)],
  ]);
  for (const r of rows)
    rss.set(
      r,
      peakRss(r.args, (i) => r.stdin(`${tag(r)}-rss-${i}`, prompts[i % prompts.length]!)),
    );

  const floor = stats(floorSamples.map((s) => s.ms)).median;
  const base = stats(versionSamples.map((s) => s.ms)).median;
  const claudeMedian = (event: BenchEvent) =>
    stats(samples.get(rows.find((r) => r.host === "claude" && r.event === event)!)!.map((s) => s.ms)).median;
  const cells = (xs: Sample[], peak: number, target?: number, event?: BenchEvent) => {
    const t = stats(xs.map((s) => s.ms));
    const mb = peak / 1024 / 1024;
    const ratio = t.median / floor;
    return [
      t.median.toFixed(1),
      t.p95.toFixed(1),
      mb.toFixed(1),
      `${ratio.toFixed(2)}x`,
      `${(t.median / base).toFixed(2)}x`,
      event ? `${(t.median / claudeMedian(event)).toFixed(2)}x` : "",
      target === undefined ? "" : `<= ${target}x ${ratio <= target && mb <= 60 ? "OK" : "MISS"}`,
    ];
  };
  const table = [
    [
      "host",
      "event",
      "median ms",
      "p95 ms",
      "peak RSS MB",
      "vs floor",
      "vs --version",
      "vs Claude",
      "target",
      "answer",
    ],
    ["floor (trivial binary)", "", ...cells(floorSamples, rss.get("floor")!), ""],
    ["coffer --version", "", ...cells(versionSamples, rss.get("version")!, TARGET.version), ""],
    ...rows.map((r) => [
      r.host,
      r.event,
      ...cells(samples.get(r)!, rss.get(r)!, TARGET[r.event], r.event),
      delivered.get(r)!,
    ]),
  ];
  console.log(
    `coffer hook bench, per host: ${N} entries, ${RULES} rules${TEAM ? `, ${TEAM} team entries` : ""}, ${RUNS} runs each (a fresh session each), binary ${BUILT} (a fresh copy)`,
  );
  for (const t of table) console.log(`| ${t.join(" | ")} |`);
}

if (AGENT === "claude") claudeBench();
else await hostsBench();
if (process.env.KEEP) console.log("kept", root, repo);
else rmSync(root, { recursive: true, force: true });
