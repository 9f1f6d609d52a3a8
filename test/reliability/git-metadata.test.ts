/**
 * Hostile git metadata (issue 12): a `.git/HEAD` that is a symlink to /dev/zero made a hook grow
 * to 1.4 GB, and a `.git/config` that is a FIFO made `coffer remember` hang. Git metadata is read
 * with bounded, non-blocking reads of regular files only: both commands finish normally, the
 * project is still recognised (by path), and the hook answers without hitting its deadline.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { BIN, claudeStart, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
beforeAll(() => {
  sb = sandbox("coffer-rel-git-");
});
afterAll(() => sb.cleanup());

/** Run coffer with a hard stop; returns exit code (null when it had to be killed), stdout, peak RSS in KB. */
async function bounded(args: string[], cwd: string, stdin?: string) {
  const timeFile = join(sb.root, `time-${Math.random().toString(36).slice(2)}.txt`);
  const p = Bun.spawn(["/usr/bin/time", "-v", "-o", timeFile, BIN, ...args], {
    cwd,
    env: sb.env,
    stdin: stdin !== undefined ? new Blob([stdin]) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    p.kill("SIGKILL");
  }, 20_000);
  const [stdout, stderr] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  clearTimeout(timer);
  let rssKb = -1;
  try {
    rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timeFile, "utf8"))?.[1] ?? -1);
  } catch {}
  return { code: killed ? null : code, stdout, stderr, rssKb };
}

test("a .git/config FIFO: remember finishes (no blocking open), the project is recognised", async () => {
  const repo = sb.repo("fifo");
  rmSync(join(repo, ".git", "config"));
  expect(Bun.spawnSync(["mkfifo", join(repo, ".git", "config")]).exitCode).toBe(0);
  const r = await bounded(["remember", "fifo config does not hang", "--scope", "project"], repo);
  expect(r.code).toBe(0);
  const list = sb.run(["list", "--json"], { cwd: repo });
  expect(list.stdout).toContain("fifo config does not hang");
}, 60_000);

test("a .git/HEAD symlinked to /dev/zero: the hook answers with bounded memory, remember works", async () => {
  const repo = sb.repo("zero");
  rmSync(join(repo, ".git", "HEAD"));
  symlinkSync("/dev/zero", join(repo, ".git", "HEAD"));
  expect(sb.run(["remember", "seed", "--scope", "global"]).code).toBe(0);
  const h = await bounded(
    ["hook", "session-start", "--agent", "claude"],
    repo,
    JSON.stringify(claudeStart("s-zero", repo)),
  );
  expect(h.code).toBe(0);
  expect(() => JSON.parse(h.stdout)).not.toThrow();
  expect(h.rssKb).toBeGreaterThan(0);
  expect(h.rssKb).toBeLessThan(400 * 1024);
  let log = "";
  try {
    log = readFileSync(join(sb.cofferHome, "state", "hook.log"), "utf8");
  } catch {}
  expect(log).not.toContain("deadline reached");
  const r = await bounded(["remember", "zero head does not blow up", "--scope", "project"], repo);
  expect(r.code).toBe(0);
  expect(r.rssKb).toBeLessThan(400 * 1024);
}, 60_000);
