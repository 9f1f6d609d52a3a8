/**
 * Import benchmark (issue 18): `coffer import claude-mem` of a claude-mem database with 20,000
 * observations (plus one session summary per 20 observations) across 4 projects, built with
 * claude-mem's real schema. Reports wall time and peak RSS of the compiled binary (the child's
 * resource usage) for the dry run, the import, and a second run that finds everything already
 * imported. (Under `/usr/bin/time -v` the same binary's peak RSS agrees to within a few MB.)
 *
 *   COFFER_BIN=dist/coffer bun scripts/bench/import.ts [--observations 20000]   (KEEP=1 keeps the files)
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ClaudeMemDb } from "../../test/import/claude-mem-db";
import { BIN, benchSandbox, fakeRepo, numArg, textGen } from "./_common";

const N = numArg("observations", 20_000);

const sandbox = benchSandbox("import");
const root = sandbox.root;
const env = { ...sandbox.env, NO_COLOR: "1" };
const home = env.HOME;
const { word, sentence } = textGen(11, 6000, false);
const TYPES = ["decision", "bugfix", "discovery", "feature", "refactor", "change"];

const projects = ["alpha", "beta", "gamma", "delta"].map((name) => {
  const dir = join(root, "work", name);
  fakeRepo(dir, `git@github.com:bench/${name}.git`);
  return { name, dir };
});

const t0 = performance.now();
const db = new ClaudeMemDb(join(root, "claude-mem.db"));
db.db.run("BEGIN");
for (let i = 0; i < N; i++) {
  const p = projects[i % projects.length]!;
  const session = `s${Math.floor(i / 20)}`;
  db.session(session, p.name, p.dir);
  const at = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
  db.observation({
    project: p.name,
    session,
    type: TYPES[i % TYPES.length]!,
    title: sentence(6),
    subtitle: sentence(10),
    narrative: `${sentence(40)}. ${sentence(30)}.`,
    facts: [sentence(12), sentence(10), sentence(8)],
    concepts: ["how-it-works", "gotcha"],
    files_modified: [join(p.dir, "src", `${word()}.ts`)],
    at,
  });
  if (i % 20 === 19)
    db.summary({ project: p.name, session, request: sentence(8), learned: sentence(30), completed: sentence(20), at });
}
db.db.run("COMMIT");
db.close();
const built = performance.now() - t0;

function measure(label: string, args: string[]) {
  const start = performance.now();
  const p = Bun.spawnSync([BIN, ...args], { cwd: home, env, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - start;
  const stderr = p.stderr.toString();
  if (p.exitCode !== 0)
    throw new Error(`${label} failed (${p.exitCode}): ${stderr}\n${p.stdout.toString().slice(-2000)}`);
  // The child's peak resident set (getrusage ru_maxrss, as Bun reports it: bytes).
  const kb = (p.resourceUsage?.maxRSS ?? Number.NaN) / 1024;
  const rep = JSON.parse(p.stdout.toString());
  console.log(
    `${label.padEnd(12)} ${(ms / 1000).toFixed(2).padStart(7)} s   peak RSS ${(kb / 1024).toFixed(0).padStart(4)} MB   created ${rep.created}, merged ${rep.merged}, already ${rep.already}`,
  );
  return { ms, kb, rep };
}

console.log(
  `claude-mem database: ${N} observations, ${Math.floor(N / 20)} summaries, 4 projects (built in ${(built / 1000).toFixed(1)} s)`,
);
measure("dry run", ["import", "claude-mem", "--db", join(root, "claude-mem.db"), "--dry-run", "--json"]);
const real = measure("import", ["import", "claude-mem", "--db", join(root, "claude-mem.db"), "--json"]);
measure("second run", ["import", "claude-mem", "--db", join(root, "claude-mem.db"), "--json"]);
let files = 0;
for (const id of readdirSync(join(env.COFFER_HOME, "memory", "projects")))
  files += readdirSync(join(env.COFFER_HOME, "memory", "projects", id, "entries")).length;
console.log(`entries on disk: ${files}; import rate ${((real.rep.created / real.ms) * 1000).toFixed(0)} entries/s`);

if (process.env.KEEP) console.log(`kept ${root}`);
else rmSync(root, { recursive: true, force: true });
