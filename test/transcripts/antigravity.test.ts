/**
 * Antigravity CLI's transcript (agy was not run here): a hand-written `transcript.jsonl` in the
 * step shape third-party readers of agy 2.x files document (`{step_index, source, type, status,
 * created_at, content, tool_calls, thinking}`; test/fixtures/transcripts/SOURCES.md). The
 * conversation is the typed requests and the model's PLANNER_RESPONSE words: no agy metadata
 * blocks, no injected SYSTEM_MESSAGE, no thinking, no tool traffic; the cwd from ADDITIONAL_METADATA;
 * the acts with tool calls and tool steps; the session found on disk under `~/.gemini/antigravity*`.
 */
import { afterEach, expect, test } from "bun:test";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { antigravityActivity, antigravityHead, parseAntigravity } from "../../src/transcripts/antigravity";
import { detectHost, listSessions, parseSessionFile, sessionFileAt } from "../../src/transcripts/discovery";
import { type Sandbox, sandbox } from "../kit";

const ID = "7c1e9a52-4b0d-4f6e-9a31-2d8b5f0c6e17";
const BRAIN = join(import.meta.dir, "..", "fixtures", "transcripts", "antigravity", "brain");
const FILE = join(BRAIN, ID, ".system_generated", "logs", "transcript.jsonl");
const text = readFileSync(FILE, "utf8");

let sb: Sandbox | undefined;
/** HOME as this file found it: put back after each test (the other test files share the process). */
const home = process.env.HOME;
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
  if (home === undefined) delete process.env.HOME;
  else process.env.HOME = home;
});

test("the conversation: typed requests and the model's words, nothing agy or Coffer added", () => {
  const p = parseAntigravity(text);
  expect(p.host).toBe("antigravity");
  expect(p.cwd).toBe("/home/u/proj");
  expect(p.title).toBe("Check the deploy script, please");
  expect(p.turns.map((t) => [t.role, t.text])).toEqual([
    ["user", "Check the deploy script, please"],
    ["assistant", "Let me read it."],
    ["assistant", "The script runs make release."],
    ["user", "And does it tag the release?"],
    ["assistant", "No: make release never runs git push --tags."],
  ]);
  expect(p.first_activity).toBe("2026-12-03T18:40:01Z");
  expect(p.last_activity).toBe("2026-12-03T18:41:33Z");
  const all = JSON.stringify(p);
  for (const gone of ["via Coffer", "ADDITIONAL_METADATA", "Model Selection", "wants the deploy script", "#!/bin/sh"])
    expect(all).not.toContain(gone);
});

test("the acts: prompts, words, the view_file call and its step's result, in order", () => {
  expect(antigravityActivity(text).map((a) => [a.kind, a.tool ?? "", a.text])).toEqual([
    ["prompt", "", "Check the deploy script, please"],
    ["say", "", "Let me read it."],
    ["tool", "view_file", '{"AbsolutePath":"/home/u/proj/deploy.sh"}'],
    ["result", "view_file", "#!/bin/sh\nmake release"],
    ["say", "", "The script runs make release."],
    ["prompt", "", "And does it tag the release?"],
    ["say", "", "No: make release never runs git push --tags."],
  ]);
  expect(antigravityActivity(text)[0]!.at).toBe(Date.parse("2026-12-03T18:40:01Z"));
});

test("head: the conversation id from the path, the cwd and the first time from the first step", () => {
  expect(antigravityHead(FILE)).toEqual({
    session_id: ID,
    cwd: "/home/u/proj",
    first_activity: "2026-12-03T18:40:01Z",
  });
});

test("found under ~/.gemini/antigravity-cli and ~/.gemini/antigravity, told apart from Gemini CLI's chats", () => {
  sb = sandbox("coffer-agy-transcripts-");
  process.env.HOME = sb.home;
  for (const app of ["antigravity-cli", "antigravity"])
    cpSync(join(BRAIN, ID), join(sb.home, ".gemini", app, "brain", app === "antigravity" ? "old-conv" : ID), {
      recursive: true,
    });
  const found = listSessions(["antigravity"]);
  expect(found.map((f) => f.session_id).sort()).toEqual([ID, "old-conv"]);
  expect(found.every((f) => f.host === "antigravity")).toBe(true);
  // By where it lives, and (the older folder, or a copy elsewhere) by what its first line looks like.
  for (const f of found) expect(detectHost(f.path)).toBe("antigravity");
  expect(detectHost(FILE)).toBe("antigravity");
  const file = sessionFileAt(FILE);
  expect(file).toMatchObject({ host: "antigravity", session_id: ID });
  expect(parseSessionFile(file).turns).toHaveLength(5);
});
