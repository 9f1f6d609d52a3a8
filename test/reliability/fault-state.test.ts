/**
 * Fault-injection suite, broken state (issue 12): index.db deleted, truncated, garbage or locked;
 * entry files that are broken, binary or 10 MB; stale locks of dead processes. Every case: hooks
 * still exit 0 with a valid answer, CLI commands heal or say what is wrong (never a stack trace),
 * and the index matches memory/ afterwards. Read-only and full COFFER_HOME: storage.test.ts.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectId, rng, type Sandbox, sandbox, writeEntries } from "../kit";
import { checkConsistent, HOSTS, record, runHook, seedFor, validAnswer } from "./_fault";

let sb: Sandbox;
let repo: string;
let dbFile: string;
let cases = 0;
const NO_BUG = /bug in Coffer|SQLiteError|^\s+at /m;

beforeAll(() => {
  sb = sandbox("coffer-fault-state-");
  repo = sb.repo("state");
  writeEntries(
    sb,
    projectId(repo),
    Array.from({ length: 120 }, (_, i) => ({
      id: `01S${String(i).padStart(23, "0")}`,
      title: `state note ${i}`,
      body: `release detail ${i}`,
    })),
  );
  expect(sb.run(["reindex"], { cwd: repo }).code).toBe(0);
  expect(sb.run(["rules", "add", "STATE-RULE keep it short", "--scope", "global"], { cwd: repo }).code).toBe(0);
  dbFile = join(sb.cofferHome, "state", "index.db");
});
afterAll(() => {
  record("state.cases", cases);
  sb.cleanup();
});

/** Every host's session-start and prompt answer validly (exit 0, one answer, no stderr), all at once. */
async function hooksAnswer(tag: string, maxMs = 1500 + 2500): Promise<string[]> {
  const bad: string[] = [];
  const runs = HOSTS.flatMap((host) =>
    ["session-start", "prompt"].map(async (event) => {
      const payload = {
        session_id: `${tag}-${host}`,
        conversation_id: `${tag}-${host}`,
        trajectory_id: `${tag}-${host}`,
        cwd: repo,
        workspace_roots: [repo],
        hook_event_name: event === "prompt" ? "UserPromptSubmit" : "SessionStart",
        prompt: "release detail",
        tool_info: { user_prompt: "release detail" },
      };
      const r = await runHook(sb, host, event, JSON.stringify(payload), repo);
      cases++;
      if (r.code !== 0 || !validAnswer(host, r.stdout) || r.stderr || r.ms > maxMs)
        bad.push(
          `${tag} ${host} ${event}: ${r.code} ${Math.round(r.ms)}ms ${r.stdout.slice(0, 100)} ${r.stderr.slice(0, 100)}`,
        );
    }),
  );
  await Promise.all(runs);
  return bad;
}

function cliHeals(tag: string): string[] {
  const bad: string[] = [];
  for (const args of [["recall", "release"], ["list", "--json"], ["status"]]) {
    const r = sb.run(args, { cwd: repo });
    cases++;
    if (r.code !== 0 || NO_BUG.test(r.stderr))
      bad.push(`${tag} ${args.join(" ")}: ${r.code} ${r.stderr.slice(0, 200)}`);
  }
  return bad;
}

test("index.db deleted, truncated, or overwritten with garbage: hooks answer, commands heal", async () => {
  const rand = rng(seedFor("state-garbage"));
  const breakers: [string, () => void][] = [
    ["deleted", () => rmSync(dbFile, { force: true })],
    ["truncated", () => truncateSync(dbFile, Math.floor(readFileSync(dbFile).length / 2))],
    ["zeroed", () => truncateSync(dbFile, 0)],
    [
      "garbage",
      () => writeFileSync(dbFile, Buffer.from(Array.from({ length: 65536 }, () => Math.floor(rand() * 256)))),
    ],
    [
      "garbage-after-header",
      () => {
        const b = readFileSync(dbFile);
        for (let i = 100; i < b.length; i++) b[i] = Math.floor(rand() * 256);
        writeFileSync(dbFile, b);
      },
    ],
  ];
  for (const [name, breakIt] of breakers) {
    for (const s of ["-wal", "-shm"]) rmSync(dbFile + s, { force: true });
    breakIt();
    expect(await hooksAnswer(`hook-${name}`)).toEqual([]);
    breakIt();
    expect(cliHeals(name)).toEqual([]);
    expect(checkConsistent(sb, repo)).toEqual([]);
  }
}, 120_000);

test("index.db locked by another process: hooks answer within the deadline, writes name the holder", async () => {
  const db = new Database(dbFile);
  db.run("BEGIN EXCLUSIVE");
  try {
    expect(await hooksAnswer("locked")).toEqual([]);
    const p = Bun.spawn(
      [process.env.COFFER_BIN ?? join(import.meta.dir, "..", "..", "dist", "coffer"), "remember", "locked write"],
      {
        cwd: repo,
        env: sb.env,
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const err = await new Response(p.stderr).text();
    expect(await p.exited).toBe(1);
    expect(err).toMatch(/locked by another process/);
    expect(err).not.toMatch(NO_BUG);
    cases++;
  } finally {
    db.run("ROLLBACK");
    db.close();
  }
  expect(checkConsistent(sb, repo)).toEqual([]);
}, 120_000);

test("broken, binary and 10 MB entry files are skipped with a notice; everything else works", async () => {
  const dir = join(sb.cofferHome, "memory", "projects", projectId(repo), "entries");
  const rand = rng(seedFor("state-entries"));
  writeFileSync(join(dir, "01SBROKEN00000000000000000.md"), "---\ntitle: [unclosed\n---\nbody\n");
  writeFileSync(
    join(dir, "01SBINARY00000000000000000.md"),
    Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rand() * 256))),
  );
  writeFileSync(
    join(dir, "01SHUGE0000000000000000000.md"),
    `---\nid: 01SHUGE0000000000000000000\ntitle: huge\n---\n${"release huge ".repeat(800_000)}\n`,
  );
  const r = sb.run(["reindex"], { cwd: repo });
  expect(r.code).toBe(0);
  for (const name of ["01SBROKEN", "01SBINARY", "01SHUGE"]) expect(r.stderr + r.stdout).toContain(name);
  expect(await hooksAnswer("entries")).toEqual([]);
  expect(cliHeals("entries")).toEqual([]);
  const recall = sb.run(["recall", "release huge", "--json"], { cwd: repo });
  expect(recall.stdout).not.toContain("01SHUGE");
  // forget removes each of them (they are named, not parsed)
  for (const id of ["01SBROKEN00000000000000000", "01SBINARY00000000000000000", "01SHUGE0000000000000000000"]) {
    const f = sb.run(["forget", id, "--yes"], { cwd: repo });
    expect(f.code).toBe(0);
    expect(existsSync(join(dir, `${id}.md`))).toBe(false);
    cases++;
  }
  expect(checkConsistent(sb, repo)).toEqual([]);
}, 120_000);

test("stale locks of dead processes are broken; a live one is named", () => {
  const state = join(sb.cofferHome, "state");
  const queueDir = join(sb.cofferHome, "queue");
  mkdirSync(queueDir, { recursive: true });
  // A pid that does not run: spawn and reap a process, reuse its pid.
  const dead = Bun.spawnSync(["true"]).pid;
  // sync.lock of a dead process: a sync (no remote set up) gets past the lock to its own message.
  writeFileSync(join(state, "sync.lock"), JSON.stringify({ pid: dead, at: Date.now() }));
  const s = sb.run(["sync"], { cwd: repo });
  expect(s.stderr).not.toMatch(/another coffer sync is running/);
  expect(s.stderr).not.toMatch(NO_BUG);
  expect(existsSync(join(state, "sync.lock"))).toBe(false);
  // sync.lock of a live process (this test): named.
  writeFileSync(join(state, "sync.lock"), JSON.stringify({ pid: process.pid, at: Date.now() }));
  const busy = sb.run(["sync"], { cwd: repo });
  expect(busy.code).toBe(1);
  expect(busy.stderr).toContain(`another coffer sync is running (pid ${process.pid})`);
  rmSync(join(state, "sync.lock"));
  // Queue lock: dead owner, and an empty lock (killed mid-create) older than a second.
  for (const content of [JSON.stringify({ pid: dead, at: Date.now() }), ""]) {
    const lock = join(queueDir, "session-queue.json.lock");
    writeFileSync(lock, content);
    if (!content) {
      const old = new Date(Date.now() - 5000);
      require("node:fs").utimesSync(lock, old, old);
    }
    const p = Bun.spawnSync(
      [
        process.env.COFFER_BIN ?? join(import.meta.dir, "..", "..", "dist", "coffer"),
        "hook",
        "session-end",
        "--agent",
        "claude",
      ],
      {
        cwd: repo,
        env: sb.env,
        stdin: Buffer.from(
          JSON.stringify({
            session_id: `stale-${content.length}`,
            cwd: repo,
            transcript_path: "/tmp/t.jsonl",
            hook_event_name: "SessionEnd",
          }),
        ),
      },
    );
    expect(p.exitCode).toBe(0);
    expect(existsSync(lock)).toBe(false);
    expect(readFileSync(join(queueDir, "session-queue.json"), "utf8")).toContain(`stale-${content.length}`);
    cases++;
  }
  expect(checkConsistent(sb, repo)).toEqual([]);
});

test("HOME unset: commands refuse with a clear message unless COFFER_HOME is set; hooks still answer", () => {
  const bin = process.env.COFFER_BIN ?? join(import.meta.dir, "..", "..", "dist", "coffer");
  const run = (args: string[], env: Record<string, string>, stdin?: string) => {
    const p = Bun.spawnSync([bin, ...args], {
      cwd: repo,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", NO_COLOR: "1", ...env },
      stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
      stdout: "pipe",
      stderr: "pipe",
    });
    cases++;
    return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
  };
  for (const args of [["status"], ["remember", "no home here", "--scope", "global"], ["recall", "release"]]) {
    const r = run(args, {});
    expect({ args, code: r.code }).toEqual({ args, code: 1 });
    expect(r.stderr).toMatch(/HOME is not set/);
    expect(r.stderr).toMatch(/COFFER_HOME/);
    expect(r.stderr).not.toMatch(NO_BUG);
  }
  // With COFFER_HOME, HOME is not needed for the store (a repository is still a project).
  const ok = run(["remember", "written without HOME", "--json"], { COFFER_HOME: sb.cofferHome });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('"scope": "project"');
  // A hook without HOME answers validly (nothing to inject from a store it cannot name).
  const h = run(
    ["hook", "session-start", "--agent", "claude"],
    {},
    JSON.stringify({ session_id: "s-nohome", cwd: repo, hook_event_name: "SessionStart", source: "startup" }),
  );
  expect(h.code).toBe(0);
  expect(validAnswer("claude", h.stdout)).toBe(true);
});
