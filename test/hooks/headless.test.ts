/**
 * Inside an agent CLI Coffer runs headless to distil, Coffer's own hooks must do nothing: with
 * COFFER_NO_HOOKS set, or when the session runs in Coffer's run folder (a host that cleans its
 * hooks' environment), every event answers the host's empty output, nothing is queued.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { claudePrompt, claudeStart, contextOf, hook, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;
beforeEach(() => {
  sb = sandbox("coffer-hook-headless-");
  repo = sb.repo("shop");
  expect(sb.run(["rules", "add", "Always run the linter before committing", "--scope", "global"]).code).toBe(0);
});
afterEach(() => sb.cleanup());

const queueFile = () => join(sb.cofferHome, "queue", "session-queue.json");
const sessionEnd = (session: string, cwd: string) => ({
  session_id: session,
  transcript_path: `/home/u/.claude/projects/x/${session}.jsonl`,
  cwd,
  hook_event_name: "SessionEnd",
  reason: "other",
});

test("the rules reach a normal session (the baseline the other tests turn off)", () => {
  const r = hook(sb, "claude", "session-start", claudeStart("s1", repo), { cwd: repo });
  expect(r.code).toBe(0);
  expect(contextOf(r)).toContain("Always run the linter before committing");
});

test("COFFER_NO_HOOKS: every event answers the host's empty output; session end queues nothing", () => {
  const env = { COFFER_NO_HOOKS: "1" };
  const start = hook(sb, "claude", "session-start", claudeStart("s1", repo), { cwd: repo, env });
  expect(start.code).toBe(0);
  expect(contextOf(start)).toBe("");
  expect(JSON.parse(start.stdout).hookSpecificOutput.hookEventName).toBe("SessionStart"); // Claude's empty shape
  const prompt = hook(sb, "claude", "prompt", claudePrompt("s1", repo, "how do we lint?"), { cwd: repo, env });
  expect(JSON.parse(prompt.stdout)).toEqual({});
  const gemini = hook(
    sb,
    "gemini",
    "session-start",
    { session_id: "g1", cwd: repo, hook_event_name: "SessionStart", source: "startup" },
    { cwd: repo, env },
  );
  expect(JSON.parse(gemini.stdout)).toEqual({});
  const end = hook(sb, "claude", "session-end", sessionEnd("s1", repo), { cwd: repo, env });
  expect(JSON.parse(end.stdout)).toEqual({});
  expect(existsSync(queueFile())).toBe(false);
  // Not even a log line: nothing went wrong.
  expect(existsSync(join(sb.cofferHome, "state", "hook.log"))).toBe(false);
});

test("a session in Coffer's run folder gets nothing either, even without the variable", () => {
  const run = join(sb.cofferHome, "state", "headless", "run");
  mkdirSync(run, { recursive: true });
  const start = hook(sb, "claude", "session-start", claudeStart("s2", run), { cwd: run });
  expect(contextOf(start)).toBe("");
  const end = hook(sb, "claude", "session-end", sessionEnd("s2", run), { cwd: run });
  expect(JSON.parse(end.stdout)).toEqual({});
  expect(existsSync(queueFile())).toBe(false);
  // The same folder name elsewhere is an ordinary directory.
  const other = join(sb.root, "work", "run");
  mkdirSync(other, { recursive: true });
  expect(contextOf(hook(sb, "claude", "session-start", claudeStart("s3", other), { cwd: other }))).toContain(
    "Always run the linter",
  );
});
