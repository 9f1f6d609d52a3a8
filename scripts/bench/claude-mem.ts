/**
 * claude-mem benchmark (issue 38: "claude-mem's session-start hook, worker running, >= 20x slower
 * than ours in the same run"). Installs the real claude-mem from npm into the temp folder, starts
 * its worker the way its SessionStart hook does (against a temporary HOME, on a free loopback
 * port, Chroma off), seeds its database through the worker's own `/api/import` (20 sessions with a
 * summary each and 20 observations a session, 400 in all, for the project of the benchmark's
 * repository), then times in one interleaved loop: the runtime's floor (a trivial program compiled
 * with Coffer's flags), `coffer hook session-start --agent claude` on the scale bench's
 * 10,000-entry store, and every command claude-mem's hooks.json runs on SessionStart (`start`,
 * then `hook claude-code context`, each through its bash wrapper, one after the other: one hook),
 * all with the same Claude SessionStart stdin. Every answer is checked: Coffer's carries its
 * rules bundle, claude-mem's context its seeded observations. Prints medians, the claude-mem /
 * Coffer ratio and each as a ratio to the floor. The worker is stopped at the end, on failure too.
 *
 *   COFFER_BIN=/tmp/me/coffer bun scripts/bench/claude-mem.ts [--runs 20] [--entries 10000]
 *   (CLAUDE_MEM_DIR=<dir>: reuse `npm install --prefix <dir> claude-mem` with its plugin's
 *   dependencies installed, instead of installing into the temp folder; KEEP=1 keeps the temp folder)
 *
 * What claude-mem needs here: Node (its hooks run `node bun-runner.js`, which spawns Bun), Bun,
 * bash, and its plugin's runtime dependencies, installed by its own Setup hook (`bun install
 * --production` in the plugin folder; tree-sitter-cli's postinstall fetches a binary from GitHub,
 * which fails offline, but zod, what the worker loads, is installed). `npm install` runs with
 * `--legacy-peer-deps`: claude-mem depends on better-auth, whose optional peers (every web
 * framework and ORM) npm otherwise spends minutes of CPU resolving. Chroma (its vector search, run
 * by `uvx chroma-mcp`, fetched at first use) is turned off (`CLAUDE_MEM_CHROMA_ENABLED=false`,
 * its documented switch): it cannot be fetched offline, and SessionStart's context does not use it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { BIN as BUILT, floorAndBinary, median, numArg, syntheticStore, textGen } from "./_common";

const RUNS = numArg("runs", 20);
const N = numArg("entries", 10_000);
const SESSIONS = 20;
const PER_SESSION = 20;
/** Issue 38's target: claude-mem's session start at least this many times slower than Coffer's. */
const TARGET = 20;

const { floor: FLOOR, bin: BIN } = floorAndBinary();
const gen = textGen(23, 8000);
const { rand, sentence } = gen;
const { root, env, repo } = await syntheticStore("claude-mem", N, gen);

// claude-mem: the npm package, its plugin folder (what Claude Code installs) and its hooks.
const cmDir = process.env.CLAUDE_MEM_DIR ?? join(root, "claude-mem");
const plugin = join(cmDir, "node_modules", "claude-mem", "plugin");
if (!existsSync(plugin)) {
  mkdirSync(cmDir, { recursive: true });
  const npm = Bun.spawnSync(
    ["npm", "install", "--prefix", cmDir, "claude-mem", "--legacy-peer-deps", "--no-audit", "--no-fund"],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (npm.exitCode !== 0 || !existsSync(plugin)) throw new Error(`npm install claude-mem: ${npm.stderr}`);
}
const version = JSON.parse(readFileSync(join(plugin, "package.json"), "utf8")).version as string;
type HookGroup = { matcher?: string; hooks: { type: string; command: string; timeout?: number }[] };
const hooks = JSON.parse(readFileSync(join(plugin, "hooks", "hooks.json"), "utf8")).hooks as Record<
  string,
  HookGroup[]
>;
/** The commands hooks.json runs for `event` (with `matcher` tested against `on`), in order. */
const commands = (event: string, on: string) =>
  (hooks[event] ?? [])
    .filter((g) => !g.matcher || g.matcher === "*" || new RegExp(`^(?:${g.matcher})$`).test(on))
    .flatMap((g) => g.hooks.filter((h) => h.type === "command"));

// A free loopback port for its worker (default 37777, which a real install may be using).
const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
const port = String(probe.port);
probe.stop(true);
const cmHome = join(root, "claude-mem-home");
const dataDir = join(cmHome, ".claude-mem");
mkdirSync(dataDir, { recursive: true });
const settings = { CLAUDE_MEM_WORKER_PORT: port, CLAUDE_MEM_CHROMA_ENABLED: "false" };
writeFileSync(join(dataDir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
// Claude Code sets CLAUDE_PLUGIN_ROOT for a plugin's hooks.
const cmEnv = { PATH: env.PATH, HOME: cmHome, LANG: env.LANG, CLAUDE_PLUGIN_ROOT: plugin, ...settings };

type Sample = { ms: number; out: string };
function spawnTimed(argv: string[], e: Record<string, string>, stdin?: string, timeoutS = 60): Sample {
  const s = performance.now();
  const p = Bun.spawnSync(argv, {
    cwd: repo,
    env: e,
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
    timeout: timeoutS * 1000,
  });
  const ms = performance.now() - s;
  if (p.exitCode !== 0) throw new Error(`${argv.join(" ").slice(0, 200)} exited ${p.exitCode}: ${p.stderr}`);
  return { ms, out: p.stdout.toString() };
}
/** One of claude-mem's hook commands, through the shell its hooks.json names (bash). */
const cmRun = (command: string, stdin: string, timeoutS?: number) =>
  spawnTimed(["bash", "-c", command], cmEnv, stdin, timeoutS);

/** Stop the worker the way its own `worker:stop` script does, then end whatever it left running. */
function stopWorker() {
  Bun.spawnSync(["bun", join(plugin, "scripts", "worker-service.cjs"), "stop"], {
    env: cmEnv,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
    timeout: 30_000,
  });
  // Any process still running with this run's claude-mem HOME is one it started: end it by pid.
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`HOME=${cmHome}`))
        process.kill(Number(pid), "SIGKILL");
    } catch {}
  }
}
function cleanup() {
  stopWorker();
  rmSync(dirname(FLOOR), { recursive: true, force: true });
  if (process.env.KEEP) console.log("kept", root);
  else rmSync(root, { recursive: true, force: true });
}
for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });

try {
  // Its plugin's runtime dependencies, installed by its own Setup hook (once per install).
  if (!existsSync(join(plugin, "node_modules", "zod")))
    for (const h of commands("Setup", "init")) {
      try {
        cmRun(h.command, "{}", h.timeout ?? 300);
      } catch {} // tree-sitter-cli's download fails offline; zod is checked below
    }
  if (!existsSync(join(plugin, "node_modules", "zod")))
    throw new Error(`claude-mem's plugin dependencies are missing in ${plugin}/node_modules (its Setup hook failed)`);

  const start = commands("SessionStart", "startup");
  if (!start.length) throw new Error("claude-mem's hooks.json runs nothing on SessionStart");
  const stdin = (session: string) =>
    JSON.stringify({
      session_id: session,
      transcript_path: join(env.HOME, ".claude", "projects", "bench", `${session}.jsonl`),
      cwd: repo,
      hook_event_name: "SessionStart",
      source: "startup",
    });

  // The first session start launches the worker; wait for its health endpoint.
  for (const h of start) cmRun(h.command, stdin("cm-first"), h.timeout);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const health = await fetch(`http://127.0.0.1:${port}/api/health`)
      .then((r) => r.json() as Promise<{ status?: string; initialized?: boolean }>)
      .catch(() => undefined);
    if (health?.status === "ok" && health.initialized) break;
    if (Date.now() > deadline) throw new Error(`claude-mem's worker is not healthy on port ${port}`);
    await Bun.sleep(250);
  }

  // Seed its database through its own import API: what its sessions would have recorded.
  const project = basename(repo);
  const types = ["bugfix", "feature", "refactor", "change", "discovery", "decision"];
  const concepts = ["how-it-works", "why-it-exists", "what-changed", "problem-solution", "gotcha", "pattern"];
  const now = Date.now();
  const sessions: object[] = [];
  const summaries: object[] = [];
  const observations: { title: string }[] = [];
  const iso = (t: number) => new Date(t).toISOString();
  for (let s = 0; s < SESSIONS; s++) {
    const at = now - (SESSIONS - s) * 3_600_000;
    const end = at + 1_800_000;
    const memory = `bench-memory-${s}`;
    sessions.push({
      content_session_id: `bench-session-${s}`,
      memory_session_id: memory,
      project,
      platform_source: "claude",
      user_prompt: sentence(10),
      started_at: iso(at),
      started_at_epoch: at,
      completed_at: iso(end),
      completed_at_epoch: end,
      status: "completed",
    });
    summaries.push({
      memory_session_id: memory,
      project,
      request: sentence(10),
      investigated: sentence(20),
      learned: sentence(20),
      completed: sentence(15),
      next_steps: sentence(12),
      files_read: JSON.stringify(["src/api/handler.ts"]),
      files_edited: JSON.stringify(["src/api/handler.ts"]),
      notes: null,
      prompt_number: 1,
      created_at: iso(end),
      created_at_epoch: end,
    });
    for (let o = 0; o < PER_SESSION; o++) {
      const t = at + o * 60_000;
      observations.push({
        memory_session_id: memory,
        project,
        text: null,
        type: types[Math.floor(rand() * types.length)],
        title: sentence(4 + Math.floor(rand() * 4)),
        subtitle: sentence(8),
        facts: JSON.stringify([sentence(12), sentence(12), sentence(12)]),
        narrative: `${sentence(40 + Math.floor(rand() * 40))}.`,
        concepts: JSON.stringify([concepts[Math.floor(rand() * concepts.length)]]),
        files_read: JSON.stringify(["src/api/handler.ts"]),
        files_modified: JSON.stringify([]),
        prompt_number: 1 + (o % 3),
        discovery_tokens: 200 + Math.floor(rand() * 2000),
        created_at: iso(t),
        created_at_epoch: t,
      } as { title: string });
    }
  }
  const imported = await fetch(`http://127.0.0.1:${port}/api/import`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sessions, summaries, observations }),
  }).then((r) => r.json() as Promise<{ stats?: { observationsImported?: number } }>);
  if (imported.stats?.observationsImported !== observations.length)
    throw new Error(`claude-mem's /api/import: ${JSON.stringify(imported)}`);
  const newest = observations[observations.length - 1]!.title;

  /** The context each answer injects, checked to be the real thing. */
  const context = (out: string) => JSON.parse(out).hookSpecificOutput?.additionalContext ?? "";
  const checkCoffer = (s: Sample) => {
    if (!context(s.out).includes("# Project rules (via Coffer)"))
      throw new Error(`coffer session-start: no rules bundle in ${s.out.slice(0, 200)}`);
    return s;
  };
  const checkClaudeMem = (outs: Sample[]) => {
    const injected = outs.map((s) => context(s.out)).find((c) => c.length > 0) ?? "";
    if (!injected.includes(newest))
      throw new Error(`claude-mem session-start: no seeded observation in ${injected.slice(0, 300)}`);
    return injected;
  };

  const cases = {
    floor: () => spawnTimed([FLOOR], env),
    coffer: (i: number) =>
      checkCoffer(spawnTimed([BIN, "hook", "session-start", "--agent", "claude"], env, stdin(`coffer-${i}`))),
    claudeMem: (i: number) => {
      const outs = start.map((h) => cmRun(h.command, stdin(`cm-${i}`), h.timeout));
      checkClaudeMem(outs);
      return outs;
    },
  };
  // Warm both (the page cache, Coffer's index, claude-mem's worker) once.
  cases.floor();
  const cofferChars = context(cases.coffer(-1).out).length;
  const cmChars = checkClaudeMem(cases.claudeMem(-1)).length;

  const floorMs: number[] = [];
  const cofferMs: number[] = [];
  const cmMs: number[][] = start.map(() => []);
  const cmTotal: number[] = [];
  const order = ["floor", "coffer", "claudeMem"] as const;
  for (let i = 0; i < RUNS; i++)
    for (let k = 0; k < order.length; k++) {
      const c = order[(i + k) % order.length]!;
      if (c === "floor") floorMs.push(cases.floor().ms);
      else if (c === "coffer") cofferMs.push(cases.coffer(i).ms);
      else {
        const outs = cases.claudeMem(i);
        for (const [j, s] of outs.entries()) cmMs[j]!.push(s.ms);
        cmTotal.push(outs.reduce((a, s) => a + s.ms, 0));
      }
    }

  const floor = median(floorMs);
  const coffer = median(cofferMs);
  const cm = median(cmTotal);
  const line = (name: string, ms: number) =>
    `  ${name.padEnd(44)} median ${ms.toFixed(1).padStart(7)} ms  ${(ms / floor).toFixed(2).padStart(7)}x floor`;
  console.log(
    `claude-mem ${version} vs coffer, SessionStart (source startup), ${RUNS} runs each, interleaved; binary ${BUILT} (a fresh copy)`,
  );
  console.log(
    `  coffer: ${N.toLocaleString("en")} entries (+200 global, 100 rules), context ${cofferChars} chars; claude-mem: worker on 127.0.0.1:${port}, Chroma off, ${observations.length} observations in ${SESSIONS} sessions with summaries, context ${cmChars} chars`,
  );
  console.log(line("floor (trivial binary)", floor));
  console.log(line("coffer hook session-start --agent claude", coffer));
  // Each command's own arguments: what follows the last quoted script path.
  const names = start.map((h, j) => `claude-mem ${h.command.match(/"\s+([^"]*)$/)?.[1] ?? `command ${j + 1}`}`);
  for (const [j, name] of names.entries()) console.log(line(name, median(cmMs[j]!)));
  console.log(line(`claude-mem SessionStart (the ${start.length} in sequence)`, cm));
  const ratio = cm / coffer;
  console.log(
    `  claude-mem / coffer: ${ratio.toFixed(1)}x (target >= ${TARGET}x: ${ratio >= TARGET ? "OK" : "MISS"}); ${start.map((_, j) => `${names[j]} alone ${(median(cmMs[j]!) / coffer).toFixed(1)}x`).join(", ")}`,
  );
} finally {
  cleanup();
}
