/**
 * Where a process's start goes above the runtime's floor (issue 38): programs compiled with
 * Coffer's own flags that each load one thing and print, run interleaved with the floor
 * (`console.log(1)`), each reported as its median and what it adds to the floor's. The runtime's
 * modules every Coffer process loads (`node:fs`, `node:path`, `node:os`; the CLI's `node:util`
 * under citty; `bun:sqlite` and a first query; `bun:ffi` for the hook's watchdog), then Coffer's
 * own: the hook's entry, the CLI framework, the store and the prompt's routing, each with
 * everything it imports (so they include the runtime's modules above).
 *
 *   bun scripts/bench/floor-parts.ts [--runs 40] [--json]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compiledPrograms, FLOOR_SOURCE, numArg, stats } from "./_common";

const RUNS = numArg("runs", 40);
const JSON_OUT = process.argv.includes("--json");
const src = resolve(import.meta.dir, "..", "..", "src");

// A small WAL database like index.db for the open-and-query program.
const dbDir = mkdtempSync(join(tmpdir(), "coffer-floor-parts-"));
process.on("exit", () => rmSync(dbDir, { recursive: true, force: true }));
const dbFile = join(dbDir, "index.db");
const db = new Database(dbFile);
db.run("PRAGMA journal_mode = WAL");
db.run("CREATE TABLE t(x)");
db.run("PRAGMA user_version = 7");
db.close();

/** A program that loads `what` and prints one of its names (so the bundler keeps the import). */
const loads = (what: string, name = "*") =>
  name === "*"
    ? `import * as m from ${JSON.stringify(what)};\nconsole.log(Object.keys(m).length);\n`
    : `import { ${name} } from ${JSON.stringify(what)};\nconsole.log(typeof ${name});\n`;

const PARTS: [string, string, string][] = [
  ["floor", "the floor: console.log(1)", FLOOR_SOURCE],
  ["fs", "node:fs", loads("node:fs", "existsSync")],
  ["path", "node:path", loads("node:path", "join")],
  ["os", "node:os", loads("node:os", "homedir")],
  ["util", "node:util (citty's parseArgs)", loads("node:util", "parseArgs")],
  ["ffi", "bun:ffi", loads("bun:ffi", "dlopen")],
  ["sqlite", "bun:sqlite", loads("bun:sqlite", "Database")],
  [
    "query",
    "bun:sqlite, open + one query",
    `import { Database } from "bun:sqlite";\nconsole.log(new Database(${JSON.stringify(dbFile)}).query("PRAGMA user_version").get());\n`,
  ],
  ["hook", "src/hooks/entry.ts (the hook's entry)", loads(join(src, "hooks", "entry.ts"))],
  ["cli", "src/commands/_run.ts (citty and Coffer's CLI)", loads(join(src, "commands", "_run.ts"))],
  ["store", "src/store/store.ts", loads(join(src, "store", "store.ts"))],
  ["route", "src/retrieval/route.ts", loads(join(src, "retrieval", "route.ts"))],
];

const bins = compiledPrograms(Object.fromEntries(PARTS.map(([name, , source]) => [name, source])));
const times = new Map<string, number[]>(PARTS.map(([name]) => [name, []]));
for (let i = 0; i < RUNS; i++)
  for (const [name] of PARTS) {
    const t = performance.now();
    const r = Bun.spawnSync([bins[name]!], { stdout: "pipe", stderr: "pipe" });
    const ms = performance.now() - t;
    if (r.exitCode !== 0) throw new Error(`${name}: exit ${r.exitCode}: ${r.stderr}`);
    times.get(name)!.push(ms);
  }

const floor = stats(times.get("floor")!).median;
const rows = PARTS.map(([name, label]) => {
  const median = stats(times.get(name)!).median;
  return { name, part: label, median: Number(median.toFixed(2)), added: Number((median - floor).toFixed(2)) };
});
if (JSON_OUT) console.log(JSON.stringify({ runs: RUNS, floor, rows }, null, 2));
else {
  console.log(`floor-parts: ${RUNS} runs each, interleaved; medians`);
  for (const r of rows)
    console.log(
      `  ${r.part.padEnd(48)} ${r.median.toFixed(2).padStart(6)} ms${r.name === "floor" ? "" : `  ${r.added >= 0 ? "+" : ""}${r.added.toFixed(2)}`}`,
    );
}
