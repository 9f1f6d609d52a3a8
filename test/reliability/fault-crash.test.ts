/**
 * Fault-injection suite, crashes (issue 12): `kill -9` at seeded random points of remember,
 * reindex, sync, distill, link and the session-end queue append, many times each. After every
 * round: no partial entry file, no lock of a dead process left once the next run went through,
 * the index matches memory/, config files written by link still parse, the queue parses, and the
 * next ordinary run of the same command succeeds. Replay a failure with COFFER_FAULT_SEED.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BIN,
  type ModelServer,
  modelServer,
  placeClaude,
  projectId,
  rng,
  runAsync,
  type Sandbox,
  sandbox,
  simpleClaudeSession,
  writeEntries,
  writeModelConfig,
} from "../kit";
import { checkConsistent, record, SEED, seedFor } from "./_fault";

let sb: Sandbox;
let repo: string;
let remote: string;
let server: ModelServer;
const gitEnv = (root: string) => {
  const cfg = join(root, "gitconfig-empty");
  writeFileSync(cfg, "");
  return {
    GIT_CONFIG_GLOBAL: cfg,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Crash",
    GIT_AUTHOR_EMAIL: "crash@example.test",
    GIT_COMMITTER_NAME: "Crash",
    GIT_COMMITTER_EMAIL: "crash@example.test",
  };
};

let kills = 0;
let runs = 0;
const killsBy: Record<string, number> = {};

beforeAll(() => {
  sb = sandbox("coffer-fault-crash-");
  Object.assign(sb.env, gitEnv(sb.root), { COFFER_TEST_KEY: "k" });
  repo = sb.repo("crashy");
  server = modelServer([
    {
      text: JSON.stringify([{ kind: "gotcha", title: "Crash lesson", body: "The heron job needs the VPN." }]),
      delayMs: 30,
    },
  ]);
  writeModelConfig(sb, "openai", server.url);
  writeEntries(
    sb,
    projectId(repo),
    Array.from({ length: 300 }, (_, i) => ({
      id: `01C${String(i).padStart(23, "0")}`,
      title: `crash note ${i}`,
      body: `Body ${i} ${"text ".repeat(40)}`,
    })),
  );
  expect(sb.run(["reindex"], { cwd: repo }).code).toBe(0);
  remote = join(sb.root, "remote.git");
  expect(Bun.spawnSync(["git", "init", "-q", "--bare", "-b", "main", remote], { env: sb.env }).exitCode).toBe(0);
  const init = sb.run(["sync", "--init", remote], { cwd: repo });
  expect(init.code).toBe(0);
});
afterAll(() => {
  server.stop();
  sb.cleanup();
});

/** Start `coffer <args>`, SIGKILL it after `delayMs` if it still runs; true when the kill landed. */
async function killAfter(args: string[], delayMs: number, stdin?: string): Promise<boolean> {
  const p = Bun.spawn([BIN, ...args], {
    cwd: repo,
    env: sb.env,
    stdin: stdin !== undefined ? "pipe" : "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  if (stdin !== undefined && p.stdin) {
    try {
      (p.stdin as import("bun").FileSink).write(stdin);
      await (p.stdin as import("bun").FileSink).end();
    } catch {}
  }
  await Bun.sleep(delayMs);
  runs++;
  const landed = p.exitCode === null && p.signalCode === null;
  p.kill("SIGKILL");
  await p.exited;
  return landed;
}

async function round(
  name: string,
  times: number,
  maxDelayMs: number,
  args: (i: number) => string[],
  stdin?: (i: number) => string,
) {
  const rand = rng(seedFor(`crash-${name}`));
  let landed = 0;
  for (let i = 0; i < times; i++) {
    const delay = Math.floor(rand() * maxDelayMs);
    if (await killAfter(args(i), delay, stdin?.(i))) landed++;
  }
  kills += landed;
  killsBy[name] = landed;
  return landed;
}

const TIMES = 50;

test("kill -9 during remember: every entry file whole, index matches memory/", async () => {
  await round("remember", TIMES, 45, (i) => [
    "remember",
    `crash remember ${SEED} ${i}: the osprey flag`,
    "--scope",
    "project",
  ]);
  expect(sb.run(["remember", "after the remember crashes", "--scope", "project"], { cwd: repo }).code).toBe(0);
  expect(checkConsistent(sb, repo)).toEqual([]);
}, 120_000);

test("kill -9 during reindex: the next command heals, index matches memory/, dead temps tidied", async () => {
  await round("reindex", 40, 110, () => ["reindex"]);
  // A `handoff set` killed mid-write leaves its temp file in handoff/ (a pid that no longer runs).
  const dead = Bun.spawnSync(["true"]).pid;
  const handoffDir = join(sb.cofferHome, "memory", "projects", projectId(repo), "handoff");
  mkdirSync(handoffDir, { recursive: true });
  writeFileSync(join(handoffDir, `.main.md.${dead}.k3x.tmp`), "half a handoff");
  const r = sb.run(["reindex"], { cwd: repo });
  expect(r.code).toBe(0);
  expect(checkConsistent(sb, repo)).toEqual([]);
  // reindex removed the temp files of writers killed mid-write
  const dir = join(sb.cofferHome, "memory", "projects", projectId(repo), "entries");
  expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  expect(readdirSync(handoffDir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
}, 120_000);

test("kill -9 during sync: the next sync succeeds (stale lock broken, rebase recovered), memory/ committed", async () => {
  let n = 0;
  await round("sync", 25, 300, (i) => {
    sb.run(["remember", `sync crash note ${i}`, "--scope", "project"], { cwd: repo });
    n++;
    return ["sync"];
  });
  const s = sb.run(["sync", "--json"], { cwd: repo });
  expect(s.code).toBe(0);
  expect(existsSync(join(sb.cofferHome, "memory", ".git", "index.lock"))).toBe(false);
  const status = Bun.spawnSync(["git", "status", "--porcelain"], { cwd: join(sb.cofferHome, "memory"), env: sb.env });
  expect(status.stdout.toString().trim()).toBe("");
  const log = Bun.spawnSync(["git", "log", "-p", "main"], { cwd: remote, env: sb.env }).stdout.toString();
  for (let i = 0; i < n; i++) expect(log).toContain(`sync crash note ${i}`);
  expect(checkConsistent(sb, repo)).toEqual([]);
}, 180_000);

test("kill -9 during a distillation sweep: the next sweep completes, entries whole", async () => {
  await round("distill", 25, 150, (i) => {
    placeClaude(sb, simpleClaudeSession(`How does heron work? (${i})`, `It batches; run ${i}.`), {
      id: `cccccccc-0000-4000-8000-${String(i).padStart(12, "0")}`,
      cwd: repo,
      ageMinutes: 40,
    });
    return ["distill", "sweep", "--json"];
  });
  // Async: the model server runs in this process and must keep answering.
  const r = await runAsync(sb, ["distill", "sweep", "--json"], { cwd: repo });
  if (r.code !== 0) console.log(r.stdout.slice(0, 2000), r.stderr.slice(0, 2000));
  expect(r.code).toBe(0);
  expect(checkConsistent(sb, repo)).toEqual([]);
  // The ledger is JSON lines, every line whole.
  const ledger = join(sb.cofferHome, "state", "distilled.jsonl");
  if (existsSync(ledger))
    for (const line of readFileSync(ledger, "utf8").split("\n").filter(Boolean))
      expect(() => JSON.parse(line)).not.toThrow();
}, 180_000);

test("kill -9 during link/unlink: config files always parse, the next link succeeds", async () => {
  mkdirSync(join(sb.home, ".claude"), { recursive: true });
  writeFileSync(join(sb.home, ".claude", "settings.json"), '{\n  "theme": "dark",\n  "hooks": {}\n}\n');
  await round("link", TIMES, 30, (i) => (i % 2 ? ["unlink", "claude"] : ["link", "claude"]));
  for (const f of [join(sb.home, ".claude", "settings.json"), join(sb.home, ".claude.json")])
    if (existsSync(f)) expect(() => JSON.parse(readFileSync(f, "utf8"))).not.toThrow();
  const r = sb.run(["link", "claude"], { cwd: repo });
  expect(r.code).toBe(0);
  const settings = JSON.parse(readFileSync(join(sb.home, ".claude", "settings.json"), "utf8"));
  expect(settings.theme).toBe("dark");
  expect(JSON.stringify(settings.hooks)).toContain("coffer");
}, 120_000);

test("kill -9 during the session-end queue append: the queue parses, the next append works, no lock left", async () => {
  const transcript = join(sb.home, "t.jsonl");
  writeFileSync(transcript, "{}\n");
  await round(
    "queue",
    TIMES,
    22,
    () => ["hook", "session-end", "--agent", "claude"],
    (i) =>
      JSON.stringify({ session_id: `q-${i}`, cwd: repo, transcript_path: transcript, hook_event_name: "SessionEnd" }),
  );
  const p = Bun.spawnSync([BIN, "hook", "session-end", "--agent", "claude"], {
    cwd: repo,
    env: sb.env,
    stdin: Buffer.from(
      JSON.stringify({ session_id: "q-final", cwd: repo, transcript_path: transcript, hook_event_name: "SessionEnd" }),
    ),
  });
  expect(p.exitCode).toBe(0);
  const queue = JSON.parse(readFileSync(join(sb.cofferHome, "queue", "session-queue.json"), "utf8"));
  const items = Array.isArray(queue) ? queue : queue.items;
  expect(items.some((q: { session: string }) => q.session === "q-final")).toBe(true);
  expect(checkConsistent(sb, repo)).toEqual([]);
}, 120_000);

test("suite figures", () => {
  record("crash.runs", runs);
  record("crash.kills_landed", kills);
  for (const [k, v] of Object.entries(killsBy)) record(`crash.kills.${k}`, v);
  expect(kills).toBeGreaterThan(120);
});
