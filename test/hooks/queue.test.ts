/** session-end: concurrent hooks append to queue/session-queue.json under its lock. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;
beforeEach(() => {
  sb = sandbox("coffer-hook-queue-");
  repo = sb.repo("q");
  mkdirSync(sb.cofferHome, { recursive: true });
  // 30 processes at once on a loaded 2-core machine may not all start within the default 1.5 s
  // deadline; this checks the queue's lock, not the deadline (test/hooks/robust.test.ts does).
  writeFileSync(join(sb.cofferHome, "config.toml"), "[hook]\ndeadline_ms = 10000\n");
});
afterEach(() => sb.cleanup());

const queueFile = () => join(sb.cofferHome, "queue", "session-queue.json");

async function endSessions(ids: string[], host = "claude") {
  const procs = ids.map((id) => {
    const p = sb.spawn(["hook", "session-end", "--agent", host], { cwd: repo, stdin: "" });
    p.stdin!.write(
      JSON.stringify({
        session_id: id,
        transcript_path: `/home/u/.claude/projects/q/${id}.jsonl`,
        cwd: repo,
        hook_event_name: "SessionEnd",
        reason: "exit",
      }),
    );
    p.stdin!.end();
    return p;
  });
  return Promise.all(procs.map(async (p) => ({ code: await p.exited, stdout: await new Response(p.stdout).text() })));
}

test("20 concurrent session-end hooks -> exactly 20 distinct entries, valid JSON", async () => {
  const ids = Array.from({ length: 20 }, (_, i) => `end-${i}`);
  const results = await endSessions(ids);
  for (const r of results) {
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({});
  }
  const queue = JSON.parse(readFileSync(queueFile(), "utf8"));
  expect(queue.length).toBe(20);
  expect(new Set(queue.map((q: { session: string }) => q.session))).toEqual(new Set(ids));
  for (const q of queue) {
    expect(Object.keys(q).sort()).toEqual(["at", "host", "session", "transcript_path"]);
    expect(q.host).toBe("claude");
  }
}, 60_000);

test("dedup by host + session; the newest 50 are kept", async () => {
  await endSessions(Array.from({ length: 30 }, (_, i) => `a-${i}`));
  await endSessions(Array.from({ length: 30 }, (_, i) => `b-${i}`));
  await endSessions(["b-0", "b-1"]); // again: no duplicates
  const queue = JSON.parse(readFileSync(queueFile(), "utf8"));
  expect(queue.length).toBe(50);
  const keys = queue.map((q: { host: string; session: string }) => `${q.host}:${q.session}`);
  expect(new Set(keys).size).toBe(50);
  for (let i = 0; i < 30; i++) expect(keys).toContain(`claude:b-${i}`);
}, 60_000);

test("a stale lock left by a dead process is broken; the hook still answers {} at once", async () => {
  mkdirSync(join(sb.cofferHome, "queue"), { recursive: true });
  writeFileSync(`${queueFile()}.lock`, JSON.stringify({ pid: 999_999_999, at: Date.now() }));
  const started = Date.now();
  const [r] = await endSessions(["after-crash"]);
  expect(r!.code).toBe(0);
  expect(Date.now() - started).toBeLessThan(1500);
  expect(JSON.parse(readFileSync(queueFile(), "utf8")).map((q: { session: string }) => q.session)).toEqual([
    "after-crash",
  ]);
});

test("no transcript_path or an unsafe one: nothing queued, still {}", async () => {
  for (const payload of [
    { session_id: "x", cwd: repo },
    { session_id: "x", cwd: repo, transcript_path: "relative.jsonl" },
    { session_id: "../x", cwd: repo, transcript_path: "/t.jsonl" },
  ]) {
    const r = sb.run(["hook", "session-end", "--agent", "claude"], { cwd: repo, stdin: JSON.stringify(payload) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({});
  }
  expect(() => readFileSync(queueFile(), "utf8")).toThrow();
});
