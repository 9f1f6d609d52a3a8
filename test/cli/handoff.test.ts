/**
 * Handoffs: `coffer handoff` shows the current one, `clear` removes it, and freshness comes from
 * the repository — commits on the branch and tracked files changed since it was saved, read from
 * .git files (loose and packed objects).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;
const now = Math.floor(Date.now() / 1000);

function git(args: string[], date = now - 3600): void {
  const p = Bun.spawnSync(["git", ...args], {
    cwd: repo,
    env: {
      ...sb.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "T",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "T",
      GIT_COMMITTER_EMAIL: "t@example.com",
      GIT_AUTHOR_DATE: `@${date} +0000`,
      GIT_COMMITTER_DATE: `@${date} +0000`,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr}`);
}

function commitFile(name: string, text: string, date: number): void {
  const file = join(repo, name);
  writeFileSync(file, text);
  utimesSync(file, date, date);
  git(["add", name], date);
  git(["commit", "-q", "-m", `change ${name}`], date);
}

beforeAll(() => {
  sb = sandbox("coffer-handoff-");
  repo = sb.repo("app", "https://github.com/acme/app.git");
  for (let i = 0; i < 5; i++) commitFile(`f${i}.txt`, `v${i}\n`, now - 7200 + i);
});
afterAll(() => sb.cleanup());

const handoff = (...args: string[]) => sb.run(["handoff", ...args], { cwd: repo });

test("`coffer handoff` alone shows the handoff; without one it says so on stderr", () => {
  const none = handoff();
  expect(none.code).toBe(0);
  expect(none.stdout).toBe("");
  expect(none.stderr).toContain("No handoff for branch main yet");
  expect(handoff("set", "Half-way through the parser; next: error recovery").code).toBe(0);
  const shown = handoff();
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("Handoff for branch main");
  expect(shown.stdout).toContain("Half-way through the parser; next: error recovery");
});

test("a handoff saved seconds ago, with nothing changed since, is not labelled stale", () => {
  const r = handoff("show", "--json").json();
  expect(r).toMatchObject({ found: true, stale: false, commits_since: 0, files_changed_since: 0 });
  expect(r.note).toMatch(/^saved \d+ s ago; no commits or file changes since$/);
  expect(handoff().stdout).not.toContain("may be stale");
  expect(sb.run(["resume"], { cwd: repo }).stdout).not.toContain("may be stale");
});

test("an edited tracked file makes it 'may be stale'", () => {
  const file = join(repo, "f1.txt");
  writeFileSync(file, "edited after the handoff\n");
  utimesSync(file, now + 60, now + 60);
  const r = handoff("--json").json();
  expect(r).toMatchObject({ stale: true, commits_since: 0, files_changed_since: 1 });
  expect(handoff().stdout).toContain("since then 1 file changed: may be stale; ignore if unrelated");
});

test("commits on the branch since the handoff are counted, from loose and from packed objects", () => {
  // The handoff was saved moments ago; date it two minutes back so these commits come after it.
  const file = (readdirSync(join(sb.cofferHome, "memory"), { recursive: true }) as string[]).find((f) =>
    f.endsWith("handoff/main.md"),
  )!;
  const path = join(sb.cofferHome, "memory", file);
  const earlier = new Date((now - 120) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  writeFileSync(path, readFileSync(path, "utf8").replace(/^updated: .*$/m, `updated: ${earlier}`));
  commitFile("f1.txt", "edited after the handoff\n", now + 60);
  commitFile("f9.txt", "new\n", now + 120);
  const loose = handoff("--json").json();
  expect(loose.commits_since).toBe(2);
  expect(loose.note).toContain("since then 2 commits on main, 2 files changed: may be stale");
  git(["gc", "-q", "--aggressive"]);
  const packed = handoff("--json").json();
  expect(packed.commits_since).toBe(2);
  expect(packed.stale).toBe(true);
});

test("session start announces the handoff in one line: age, commits since, first line", () => {
  const payload = { session_id: "h-1", cwd: repo, hook_event_name: "SessionStart", source: "startup" };
  const r = sb.run(["hook", "session-start", "--agent", "claude"], { cwd: repo, stdin: JSON.stringify(payload) });
  expect(r.code).toBe(0);
  const ctx: string = JSON.parse(r.stdout).hookSpecificOutput.additionalContext;
  const line = ctx.split("\n").find((l) => l.startsWith("A handoff for"));
  expect(line).toMatch(
    /^A handoff for branch `main` \(saved \d+ min ago; since then 2 commits on main: may be stale; ignore if unrelated\) begins "Half-way through the parser; next: error recovery"\. /,
  );
  expect(line).toContain("call `coffer__resume()`");
});

test("`coffer handoff clear` removes it", () => {
  const r = handoff("clear");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Handoff cleared for branch main");
  expect(sb.run(["resume", "--json"], { cwd: repo }).json()).toEqual({ found: false });
  const again = handoff("clear");
  expect(again.code).toBe(0);
  expect(again.stderr).toContain("nothing to clear");
});
