/**
 * The scrubber's figures on its corpus, per family group (gitleaks rule file) and per syntax:
 * recall (secret values removed, each sample in every chat context) and false positives altered.
 *
 *   bun scripts/corpus/report.ts [--all]     (--all lists every group, not only those below 100%)
 *   bun scripts/corpus/report.ts --heldout [--families]
 *
 * --heldout measures the held-out corpus (test/fixtures/secrets/heldout) instead, totals only,
 * whole and in its two halves (test/scrub/corpus.ts heldoutHalf): --families lists the dev half's
 * misses, never the test half's.
 */
import { scrub } from "../../src/scrub/index";
import {
  contexts,
  falsePositives,
  heldoutContexts,
  heldoutHalf,
  heldoutNearMisses,
  heldoutSecrets,
  inContext,
  leaked,
  ordinaryLines,
  shapeCases,
  shapeNegatives,
  syntaxCases,
  truePositives,
} from "../../test/scrub/corpus";

const all = process.argv.includes("--all");
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : "-");

if (process.argv.includes("--heldout")) {
  const ctx = heldoutContexts();
  const secrets = heldoutSecrets();
  const near = heldoutNearMisses();
  for (const half of ["all", "dev", "test"] as const) {
    const inHalf = (r: { family: string; rule: string }) => half === "all" || heldoutHalf(r) === half;
    let removed = 0;
    let total = 0;
    const missed = new Map<string, number>();
    const tp = secrets.filter(inHalf);
    for (const r of tp)
      for (const c of ctx) {
        total++;
        if (!leaked(scrub(inContext(c, r.sample)).text, r.secret)) removed++;
        else missed.set(r.family, (missed.get(r.family) ?? 0) + 1);
      }
    const kinds = new Map<string, [number, number]>();
    for (const r of near.filter(inHalf))
      for (const c of ctx) {
        const k = kinds.get(r.kind) ?? [0, 0];
        const input = inContext(c, r.sample);
        if (scrub(input).text !== input) k[0]++;
        k[1]++;
        kinds.set(r.kind, k);
      }
    const alt = [...kinds.values()].reduce((a, [x]) => a + x, 0);
    const nm = [...kinds.values()].reduce((a, [, y]) => a + y, 0);
    const fams = new Set(tp.map((r) => r.family)).size;
    console.log(
      `held-out ${half} (kingfisher, ${tp.length} secrets from ${fams} families x ${ctx.length} contexts): ` +
        `removed ${pct(removed, total)} (${removed}/${total}); near misses altered ${pct(alt, nm)} (${alt}/${nm})`,
    );
    console.log(
      `  near misses by kind: ${[...kinds].map(([k, [a, b]]) => `${k} ${pct(a, b)} (${a}/${b})`).join(", ")}`,
    );
    // only the dev half's misses are ever listed: the test half stays held out
    if (half === "dev" && process.argv.includes("--families"))
      for (const [f, n] of [...missed].sort((a, b) => b[1] - a[1])) console.log(`  ${f}: ${n} missed`);
  }
  process.exit(0);
}

const ctx = contexts();
type Tally = { tp: number; tpRemoved: number; fp: number; fpAltered: number };
const groups = new Map<string, Tally>();
const tally = (g: string) => {
  let t = groups.get(g);
  if (!t) groups.set(g, (t = { tp: 0, tpRemoved: 0, fp: 0, fpAltered: 0 }));
  return t;
};
for (const r of truePositives())
  for (const c of ctx) {
    const t = tally(r.group);
    t.tp++;
    if (!leaked(scrub(inContext(c, r.sample)).text, r.secret)) t.tpRemoved++;
  }
for (const r of falsePositives())
  for (const c of ctx) {
    const t = tally(r.group);
    t.fp++;
    const input = inContext(c, r.sample);
    if (scrub(input).text !== input) t.fpAltered++;
  }
let tp = 0;
let tpR = 0;
let fp = 0;
let fpA = 0;
console.log("group                 recall            false positives altered");
for (const [g, t] of [...groups].sort()) {
  tp += t.tp;
  tpR += t.tpRemoved;
  fp += t.fp;
  fpA += t.fpAltered;
  if (all || t.tpRemoved < t.tp || t.fpAltered > 0)
    console.log(
      `${g.padEnd(20)}  ${pct(t.tpRemoved, t.tp).padStart(6)} (${t.tpRemoved}/${t.tp})`.padEnd(40) +
        `${pct(t.fpAltered, t.fp).padStart(6)} (${t.fpAltered}/${t.fp})`,
    );
}
console.log(
  `ALL gitleaks groups (${groups.size}): recall ${pct(tpR, tp)} (${tpR}/${tp}), false positives altered ${pct(fpA, fp)} (${fpA}/${fp})`,
);
const syn = new Map<string, [number, number]>();
for (const r of syntaxCases())
  for (const c of ctx) {
    const s = syn.get(r.syntax) ?? [0, 0];
    s[1]++;
    if (!r.secrets.some((x) => leaked(scrub(inContext(c, r.sample)).text, x))) s[0]++;
    syn.set(r.syntax, s);
  }
const synDone = [...syn.values()].reduce((a, [x]) => a + x, 0);
const synAll = [...syn.values()].reduce((a, [, y]) => a + y, 0);
console.log(`own syntax cases (${syn.size} syntaxes): ${pct(synDone, synAll)} (${synDone}/${synAll})`);
for (const [k, [a, b]] of syn) if (a < b) console.log(`  ${k}: ${a}/${b}`);
const shapes = new Map<string, [number, number]>();
const shapeMisses: string[] = [];
for (const r of shapeCases())
  for (const c of ctx) {
    const s = shapes.get(r.shape) ?? [0, 0];
    s[1]++;
    const out = scrub(inContext(c, r.sample)).text;
    if (!r.secrets.some((x) => leaked(out, x))) s[0]++;
    else if (c === "{sample}") shapeMisses.push(`  miss ${r.shape}: ${JSON.stringify(out)}`);
    shapes.set(r.shape, s);
  }
const shDone = [...shapes.values()].reduce((a, [x]) => a + x, 0);
const shAll = [...shapes.values()].reduce((a, [, y]) => a + y, 0);
console.log(`generic shapes, made-up providers (${shapes.size} shapes): ${pct(shDone, shAll)} (${shDone}/${shAll})`);
for (const [k, [a, b]] of shapes) if (a < b) console.log(`  ${k}: ${a}/${b}`);
if (all) for (const m of shapeMisses) console.log(m);
const negs = shapeNegatives();
const negAltered = negs.filter((r) => scrub(r.sample).text !== r.sample);
console.log(
  `generic shape negatives altered: ${pct(negAltered.length, negs.length)} (${negAltered.length}/${negs.length})`,
);
for (const r of negAltered) console.log(`  ${r.shape}: ${JSON.stringify(scrub(r.sample).text)}`);
const ord = ordinaryLines();
const changed = ord.filter((l) => scrub(l).text !== l).length;
console.log(`ordinary lines altered: ${changed}/${ord.length}`);
