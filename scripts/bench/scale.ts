/**
 * Scale benchmark (issue 15, "fast at any size"): stores of 10,000 and 100,000 entries in one
 * project (plus a small global scope and 100 rules), written straight to memory/ and indexed
 * by one `coffer reindex`. Each command runs end to end with the compiled binary, interleaved
 * with the runtime's floor (a trivial program compiled with the same flags) and `coffer
 * --version` in the same run so machine noise hits all alike; the figure is the median, its ratio
 * to the floor's median (the targets) and to --version's, with the peak RSS over the timed runs.
 *
 *   bun run build && bun scripts/bench/scale.ts [--sizes 10000,100000] [--runs 15]
 *   (COFFER_BIN selects another binary; KEEP=1 keeps the generated stores; SCALE_STORE=<dir>
 *   keeps them in <dir>/<size> and reuses them on the next run, reindexed by the binary under test)
 *
 * Targets (issue 38), as ratios to the floor: --version <= 1.3x; hook session-start <= 2.0x and
 * prompt <= 2.5x at 10,000 entries, <= 2.5x and <= 3.0x at 100,000; list, show, status, remember
 * <= 3.5x and recall <= 5x; hook RSS <= 60 MB.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { argOf, BIN as BUILT, floorAndBinary, median, numArg, syntheticStore, textGen } from "./_common";

const SIZES = argOf("sizes", "10000,100000").split(",").map(Number);
const RUNS = numArg("runs", 15);

const gen = textGen(11, 8000);
const { rand, sentence } = gen;

type Sample = { ms: number; rss: number };
const TIME = ["/usr/bin/time", "/bin/time"].find((p) => Bun.file(p).size > 0);

async function bench(n: number) {
  const kept = process.env.SCALE_STORE ? join(process.env.SCALE_STORE, String(n)) : undefined;
  const store = await syntheticStore(`scale-${n}`, n, gen, kept);
  const { env, repo, titles, ids } = store;
  // Peak RSS through /usr/bin/time (the kernel's count for that one process; Bun's resourceUsage
  // reports the largest child so far, which would include the reindex).
  let timed = false;
  const run = (args: string[], stdin?: string): Sample => {
    const s = performance.now();
    const p = Bun.spawnSync([...(timed && TIME ? [TIME, "-f", "%M"] : []), BIN, ...args], {
      cwd: repo,
      env,
      stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
      stdout: "pipe",
      stderr: "pipe",
    });
    const ms = performance.now() - s;
    if (p.exitCode !== 0) throw new Error(`${args.join(" ")} exited ${p.exitCode}: ${p.stderr}`);
    const rss = timed && TIME ? Number(p.stderr.toString().trim().split("\n").pop()) * 1024 : 0;
    return { ms, rss };
  };
  const pick = () => titles[Math.floor(rand() * titles.length)]!.split(" ");
  const hook = (event: string, i: number, extra: Record<string, unknown>) =>
    JSON.stringify({ session_id: `s-${event}-${i}`, transcript_path: "/tmp/x.jsonl", cwd: repo, ...extra });
  const floorRun = (): Sample => {
    const s = performance.now();
    const p = Bun.spawnSync([...(timed && TIME ? [TIME, "-f", "%M"] : []), FLOOR], { stdout: "pipe", stderr: "pipe" });
    const ms = performance.now() - s;
    return { ms, rss: timed && TIME ? Number(p.stderr.toString().trim().split("\n").pop()) * 1024 : 0 };
  };
  const cases: [string, (i: number) => Sample][] = [
    ["floor (trivial binary)", floorRun],
    ["coffer --version", () => run(["--version"])],
    [
      "hook session-start",
      (i) =>
        run(
          ["hook", "session-start", "--agent", "claude"],
          hook("start", i, { hook_event_name: "SessionStart", source: "startup" }),
        ),
    ],
    [
      "hook prompt",
      (i) => {
        const t = pick();
        const prompt =
          i % 5 === 0
            ? `why does src/api/handler.ts fail? ${t.slice(0, 2).join(" ")}`
            : `how do we handle ${t.slice(0, 3).join(" ")} in this repo?`;
        return run(
          ["hook", "prompt", "--agent", "claude"],
          hook("prompt", i, { hook_event_name: "UserPromptSubmit", prompt }),
        );
      },
    ],
    ["recall", () => run(["recall", pick().slice(0, 2).join(" ")])],
    ["list", () => run(["list"])],
    ["show", () => run(["show", ids[Math.floor(rand() * ids.length)]!])],
    ["status", () => run(["status"])],
    ["remember", (i) => run(["remember", `scale bench note ${i} ${sentence(12)}`])],
  ];
  // Warm the page cache and the index once.
  for (const [, f] of cases) f(-1);
  const samples = new Map<string, Sample[]>(cases.map(([name]) => [name, []]));
  for (let i = 0; i < RUNS; i++) for (const [name, f] of cases) samples.get(name)!.push(f(i));
  timed = true;
  const peak = new Map<string, number>(
    cases.map(([name, f]) => [name, Math.max(...[0, 1, 2].map((i) => f(RUNS + i).rss))]),
  );
  const base = median(samples.get("coffer --version")!.map((s) => s.ms));
  const floor = median(samples.get("floor (trivial binary)")!.map((s) => s.ms));
  // Ratios to the floor (issue 38's targets): at 10,000 entries session start <= 2.0x and prompt
  // <= 2.5x; at 100,000 <= 2.5x and <= 3.0x; list, show, status, remember <= 3.5x and recall <= 5x.
  const large = n >= 100_000;
  const targets: Record<string, number> = {
    "coffer --version": 1.3,
    "hook session-start": large ? 2.5 : 2.0,
    "hook prompt": large ? 3 : 2.5,
    recall: 5,
    list: 3.5,
    show: 3.5,
    status: 3.5,
    remember: 3.5,
  };
  console.log(
    `\n${n.toLocaleString("en")} entries in one project (+200 global, 100 rules); reindex ${(store.reindexMs / 1000).toFixed(1)} s; ${RUNS} runs each`,
  );
  for (const [name, xs] of samples) {
    const m = median(xs.map((s) => s.ms));
    const rss = peak.get(name)! / 1024 / 1024;
    const ratio = m / floor;
    const target = targets[name];
    const hookRss = name.startsWith("hook") ? rss <= 60 : true;
    const verdict = target === undefined ? "" : ratio <= target && hookRss ? "  OK" : "  MISS";
    console.log(
      `  ${name.padEnd(22)} median ${m.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2).padStart(6)}x floor  ${(m / base).toFixed(2).padStart(5)}x --version  peak RSS ${rss.toFixed(0).padStart(4)} MB${target ? `  (target <= ${target}x floor${name.startsWith("hook") ? ", <= 60 MB" : ""})${verdict}` : ""}`,
    );
  }
  if (process.env.KEEP || store.kept) console.log("  kept", store.root, repo);
  else rmSync(store.root, { recursive: true, force: true });
}

const { floor: FLOOR, bin: BIN } = floorAndBinary();
console.log(`coffer scale bench, binary ${BUILT} (a fresh copy); floor: a trivial binary compiled with the same flags`);
for (const n of SIZES) await bench(n);
