/**
 * How good is the use signal (issue 41)? Judges every hand-labelled delivery of
 * test/fixtures/usage/deliveries.json (a delivery: a transcript, when the entry reached the session,
 * the entry) with capture/use.ts and compares with its label. Reports precision (of the deliveries
 * judged used, the share labelled used), recall (of those labelled used, the share judged used) and
 * how many were judged unknown (counted as not used). The ranking prior stays off by default unless
 * precision is at least 80% (`ranking.use_prior`).
 *
 *   bun scripts/bench/use-signal.ts [--verbose] [--json]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { judgeDelivery } from "../../src/capture/use";
import { claudeActivity } from "../../src/transcripts/claude";
import { codexActivity } from "../../src/transcripts/codex";
import { geminiActivity } from "../../src/transcripts/gemini";
import type { Act } from "../../src/transcripts/types";

const ACTIVITY = { claude: claudeActivity, codex: codexActivity, gemini: geminiActivity };

type Case = {
  transcript: string;
  host: keyof typeof ACTIVITY;
  delivered_at: string | null;
  entry: { id: string; title: string; body: string };
  label: "used" | "unused";
};

const root = join(import.meta.dir, "..", "..");

export function measureUseSignal(): {
  deliveries: number;
  labelled_used: number;
  judged_used: number;
  true_positive: number;
  unknown: number;
  precision: number;
  recall: number;
  misses: { entry: string; label: string; verdict: string; why: string; transcript: string }[];
} {
  const set = JSON.parse(readFileSync(join(root, "test/fixtures/usage/deliveries.json"), "utf8")) as { cases: Case[] };
  const acts = new Map<string, Act[]>();
  let tp = 0;
  let judgedUsed = 0;
  let unknown = 0;
  const misses = [];
  for (const c of set.cases) {
    if (!acts.has(c.transcript))
      acts.set(c.transcript, ACTIVITY[c.host](readFileSync(join(root, c.transcript), "utf8")));
    const j = judgeDelivery(c.entry, c.delivered_at ? Date.parse(c.delivered_at) : undefined, acts.get(c.transcript)!);
    if (j.verdict === "unknown") unknown++;
    if (j.verdict === "used") judgedUsed++;
    if (j.verdict === "used" && c.label === "used") tp++;
    if ((j.verdict === "used") !== (c.label === "used"))
      misses.push({ entry: c.entry.title, label: c.label, verdict: j.verdict, why: j.why, transcript: c.transcript });
  }
  const labelledUsed = set.cases.filter((c) => c.label === "used").length;
  return {
    deliveries: set.cases.length,
    labelled_used: labelledUsed,
    judged_used: judgedUsed,
    true_positive: tp,
    unknown,
    precision: judgedUsed ? tp / judgedUsed : 0,
    recall: labelledUsed ? tp / labelledUsed : 0,
    misses,
  };
}

if (import.meta.main) {
  const r = measureUseSignal();
  if (process.argv.includes("--json")) console.log(JSON.stringify(r, null, 2));
  else {
    console.log(
      `${r.deliveries} deliveries, ${r.labelled_used} labelled used; judged used ${r.judged_used} (${r.true_positive} right), unknown ${r.unknown}`,
    );
    console.log(`precision ${(r.precision * 100).toFixed(1)}%  recall ${(r.recall * 100).toFixed(1)}%`);
    if (process.argv.includes("--verbose"))
      for (const m of r.misses)
        console.log(`  ${m.label.padEnd(6)} judged ${m.verdict} (${m.why})  ${m.entry}  [${m.transcript}]`);
  }
}
