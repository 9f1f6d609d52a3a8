/**
 * Transcript cleaning + scrubbing throughput (target >= 100 MB/s through the binary).
 *
 *   bun scripts/bench/clean.ts [--mb 50] [--runs 5] [--bin dist/coffer] [--mix agent|prose]
 *
 * Generates a Claude Code transcript of about `--mb` megabytes (tool traffic, thinking, hook
 * attachments, prose, a secret now and then), then measures, side by side:
 *   - in-process: read + parse + clean + scrub + budget (prepareConversation), median of runs;
 *   - the compiled binary: `coffer distill show <file> --json`, process start to exit, median;
 *   - the scrubber alone on each 1 MB adversarial input (test/scrub/adversarial.ts), median of
 *     `--runs`, with the worst one named (target: each under 100 ms).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { scrub } from "../../src/scrub/index";
import { parseClaude } from "../../src/transcripts/claude";
import { prepareConversation } from "../../src/transcripts/conversation";
import { adversarialInputs } from "../../test/scrub/adversarial";
import { argOf, BIN, median, numArg } from "./_common";

const targetMb = numArg("mb", 50);
/** "agent": tool traffic dominates, as in real sessions; "prose": only conversation text (worst case for the scrubber). */
const mix = argOf("mix", "agent");
const runs = numArg("runs", 5);
const bin = resolve(argOf("bin", BIN));

function generate(bytes: number): string {
  const session = "0b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e";
  const cwd = "/home/dev/work/shop";
  const prose = "The checkout total is computed in integer cents; rounding happens once, at the end. ";
  const code =
    "export function total(cart: Cart): number {\n  return cart.items.reduce((sum, i) => sum + i.cents * i.qty, 0);\n}\n";
  const out: string[] = [];
  let size = 0;
  let n = 0;
  const push = (r: object) => {
    const line = JSON.stringify(r);
    out.push(line);
    size += line.length + 1;
  };
  const base = () => ({
    sessionId: session,
    cwd,
    gitBranch: "main",
    version: "2.1.220",
    isSidechain: false,
    userType: "external",
    uuid: `u${n}`,
    timestamp: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
  });
  /** One assistant record of message `m<n>` holding a single content block. */
  const assistant = (block: object) => ({
    ...base(),
    type: "assistant",
    message: { id: `m${n}`, role: "assistant", model: "claude-sonnet-4-6", content: [block] },
  });
  while (size < bytes) {
    n++;
    const secret = n % 50 === 0 ? ` token=tok_${n}abcdef123456 and sk-proj-${"x".repeat(24)}${n}` : "";
    push({
      ...base(),
      type: "user",
      message: { role: "user", content: `Please look at the cart module again (${n}).${secret} ${prose.repeat(2)}` },
    });
    if (mix === "prose") {
      push(assistant({ type: "text", text: `${prose.repeat(20)}\n\n\`\`\`ts\n${code.repeat(4)}\`\`\`` }));
      continue;
    }
    push({
      ...base(),
      type: "attachment",
      attachment: {
        type: "hook_additional_context",
        hookEvent: "UserPromptSubmit",
        content: [`# Relevant memory (via Coffer)\n- ${prose}`],
      },
    });
    push(assistant({ type: "thinking", thinking: prose.repeat(12) }));
    push(assistant({ type: "text", text: `${prose.repeat(6)}\n\n\`\`\`ts\n${code}\`\`\`` }));
    push(assistant({ type: "tool_use", id: `t${n}`, name: "Read", input: { file_path: `${cwd}/src/cart.ts` } }));
    push({
      ...base(),
      type: "user",
      toolUseResult: { type: "text" },
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: code.repeat(60) }] },
    });
    push({
      ...base(),
      type: "progress",
      data: { type: "hook_progress", hookEvent: "PostToolUse" },
      toolUseID: `t${n}`,
    });
  }
  return `${out.join("\n")}\n`;
}

const dir = mkdtempSync(join(tmpdir(), "coffer-bench-clean-"));
try {
  const file = join(dir, "session.jsonl");
  writeFileSync(file, generate(targetMb * 1e6));
  const mb = statSync(file).size / 1e6;

  const inProcess: number[] = [];
  let turns = 0;
  let redactions = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const parsed = parseClaude(readFileSync(file, "utf8"));
    const prepared = prepareConversation(parsed.turns);
    inProcess.push(performance.now() - t0);
    turns = parsed.turns.length;
    redactions = prepared.redactions;
  }

  const binary: number[] = [];
  /** CPU time of the binary (user + system): less at the mercy of other processes on a shared machine. */
  const binaryCpu: number[] = [];
  const startCpu: number[] = [];
  let binaryNote = "";
  try {
    statSync(bin);
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const p = Bun.spawnSync([bin, "distill", "show", file, "--agent", "claude", "--json"], {
        env: { ...process.env, HOME: dir, COFFER_HOME: join(dir, "coffer"), NO_COLOR: "1" },
        stdout: "pipe",
        stderr: "pipe",
      });
      binary.push(performance.now() - t0);
      if (p.exitCode !== 0) throw new Error(p.stderr.toString());
      binaryCpu.push(Number(p.resourceUsage?.cpuTime.total ?? 0n) / 1000);
      const v = Bun.spawnSync([bin, "--version"], { stdout: "pipe", stderr: "pipe" });
      startCpu.push(Number(v.resourceUsage?.cpuTime.total ?? 0n) / 1000);
    }
  } catch (err) {
    binaryNote = `skipped (${(err as Error).message.split("\n")[0]})`;
  }

  const rate = (ms: number) => (mb / (ms / 1000)).toFixed(1);
  console.log(`transcript (${mix}): ${mb.toFixed(1)} MB, ${turns} conversation turns kept, ${redactions} redactions`);
  console.log(
    `in-process parse+clean+scrub+budget: median ${median(inProcess).toFixed(0)} ms = ${rate(median(inProcess))} MB/s (runs: ${inProcess.map((x) => x.toFixed(0)).join(", ")})`,
  );
  if (binary.length)
    console.log(
      `binary \`coffer distill show --json\`:   median ${median(binary).toFixed(0)} ms = ${rate(median(binary))} MB/s (runs: ${binary.map((x) => x.toFixed(0)).join(", ")})`,
    );
  else console.log(`binary: ${binaryNote}`);
  if (binaryCpu.length && median(binaryCpu) > 0)
    console.log(
      `binary CPU time (user+system):       median ${median(binaryCpu).toFixed(0)} ms = ${rate(median(binaryCpu))} MB/s ` +
        `(\`coffer --version\`: ${median(startCpu).toFixed(0)} ms)`,
    );
  console.log(`target: >= 100 MB/s through the binary; each adversarial input under 100 ms`);

  // adversarial inputs: the scrubber alone, each input timed `runs` times (median)
  const times: [string, number][] = [];
  for (const { name, text } of adversarialInputs()) {
    const runsMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      scrub(text);
      runsMs.push(performance.now() - t0);
    }
    times.push([name, median(runsMs)]);
  }
  times.sort((a, b) => b[1] - a[1]);
  const over = times.filter(([, ms]) => ms >= 100).length;
  console.log(
    `adversarial (1 MB each, ${times.length} inputs): worst ${times[0]![1].toFixed(1)} ms (${times[0]![0]}); ` +
      `median of all ${median(times.map((t) => t[1])).toFixed(1)} ms; ${over} at or over 100 ms`,
  );
  for (const [name, ms] of times.slice(0, 5)) console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${name}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
