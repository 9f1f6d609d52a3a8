/**
 * Qwen Code's hooks through the compiled binary, with stdin as Qwen Code 0.24.4 sends it (captured
 * from the real CLI: docs/hosts-observed.md): each event answers Claude's `hookSpecificOutput`
 * shape, path triggers come from PostToolUse on read_file|write_file|edit, a subagent's first
 * PostToolUse of any tool carries its bundle, and a resumed session sends the bundle again (it
 * lives in a system prompt Qwen rebuilds without it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectId, type Sandbox, sandbox, writeEntries, writeRules } from "../kit";

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-hook-qwen-");
  repo = sb.repo("app");
  mkdirSync(join(repo, "src", "deploy"), { recursive: true });
  writeFileSync(join(repo, "src", "deploy", "run.sh"), "make release\n");
  const pid = projectId(repo);
  writeRules(sb, pid, "- Run bun test before committing\n");
  writeEntries(sb, pid, [
    {
      id: "E1RELEASE",
      title: "Release process",
      body: "This repo deploys via make release, never git push --tags.",
      tags: ["release"],
      applies_to: ["src/deploy/**"],
    },
  ]);
});
afterAll(() => sb.cleanup());

/** The fields every Qwen hook payload carries (0.24.4). */
const base = (s: string, name: string) => ({
  session_id: s,
  transcript_path: `/home/u/.qwen/projects/-home-u-app/chats/${s}.jsonl`,
  cwd: repo,
  hook_event_name: name,
  timestamp: "2026-12-03T18:28:54.963Z",
  permission_mode: "auto",
});

function run(event: string, payload: unknown) {
  const r = sb.run(["hook", event, "--agent", "qwen"], { stdin: JSON.stringify(payload) });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout);
}

const ctx = (j: any): string => j.hookSpecificOutput?.additionalContext ?? "";

describe("qwen hooks", () => {
  test("SessionStart answers the bundle in hookSpecificOutput; resume sends it again and keeps what prompts delivered", () => {
    const start = { ...base("q-1", "SessionStart"), source: "startup", model: "qwen3-coder-plus" };
    const j = run("session-start", start);
    expect(Object.keys(j)).toEqual(["hookSpecificOutput"]);
    expect(j.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(ctx(j)).toStartWith("# Project rules (via Coffer)\n");
    expect(ctx(j)).toContain("Run bun test before committing");
    const p = {
      ...base("q-1", "UserPromptSubmit"),
      prompt_id: "q-1########0",
      prompt: "how do we cut a release?",
      submitted_prompt: "how do we cut a release?",
    };
    expect(ctx(run("prompt", p))).toContain("make release, never git push --tags");
    // Resumed with the bundle unchanged: Qwen rebuilt the system prompt, so the bundle goes again
    // (Claude's rule would send nothing); the replayed history still holds the entry, so it does not.
    expect(ctx(run("session-start", { ...start, source: "resume" }))).toStartWith("# Project rules (via Coffer)\n");
    expect(ctx(run("prompt", { ...p, prompt: "how do we cut a release again?" }))).not.toContain(
      "never git push --tags",
    );
  });

  test("UserPromptSubmit routes the entry once per session", () => {
    const p = {
      ...base("q-2", "UserPromptSubmit"),
      prompt_id: "q-2########0",
      prompt: "how do we cut a release?",
      submitted_prompt: "how do we cut a release?",
    };
    const j = run("prompt", p);
    expect(j.hookSpecificOutput.hookEventName).toBe("UserPromptSubmit");
    expect(ctx(j)).toStartWith("# Relevant memory (via Coffer)\n");
    expect(ctx(j)).toContain("make release, never git push --tags");
    expect(ctx(run("prompt", { ...p, prompt: "release steps again" }))).not.toContain("never git push --tags");
  });

  test("PostToolUse on read_file with a matching file_path answers the entry; other tools answer {}", () => {
    const t = {
      ...base("q-3", "PostToolUse"),
      tool_name: "read_file",
      tool_input: { file_path: join(repo, "src", "deploy", "run.sh") },
      tool_response: { llmContent: "make release\n" },
      tool_use_id: "call_1",
    };
    const j = run("tool", t);
    expect(j.hookSpecificOutput.hookEventName).toBe("PostToolUse");
    expect(ctx(j)).toContain("make release, never git push --tags");
    expect(run("tool", { ...t, session_id: "q-4", tool_name: "run_shell_command" })).toEqual({});
    expect(run("tool", { ...t, session_id: "q-5", tool_input: {} })).toEqual({});
  });

  test("a subagent's first PostToolUse of any tool (agent_id set) answers its bundle and the parent's entries, once", () => {
    const start = { ...base("q-7", "SessionStart"), source: "startup", model: "qwen3-coder-plus" };
    run("session-start", start);
    const p = { ...base("q-7", "UserPromptSubmit"), prompt_id: "q-7########0", prompt: "how do we cut a release?" };
    expect(ctx(run("prompt", p))).toContain("never git push --tags");
    const grep = {
      ...base("q-7", "PostToolUse"),
      agent_id: "general-purpose-call_mx84y3m40002",
      tool_name: "grep_search",
      tool_input: { pattern: "release" },
      tool_response: { llmContent: "" },
      tool_use_id: "call_2",
    };
    // The main agent's non-path tool: nothing, as before.
    const { agent_id: _, ...mainGrep } = grep;
    expect(run("tool", mainGrep)).toEqual({});
    const j = run("tool", grep);
    expect(j.hookSpecificOutput.hookEventName).toBe("PostToolUse");
    expect(ctx(j)).toStartWith("# Project rules (via Coffer)\n");
    expect(ctx(j)).toContain("Run bun test before committing");
    expect(ctx(j)).toContain("make release, never git push --tags"); // inherited from the parent
    // Once per subagent: its next tool, and a path trigger already delivered, answer nothing.
    expect(run("tool", { ...grep, tool_use_id: "call_3" })).toEqual({});
    const read = { ...grep, tool_name: "read_file", tool_input: { file_path: join(repo, "src", "deploy", "run.sh") } };
    expect(run("tool", read)).toEqual({});
    // Another subagent of the same session gets its own bundle, with the path-triggered entry.
    const other = run("tool", { ...read, agent_id: "general-purpose-call_other" });
    expect(ctx(other)).toStartWith("# Project rules (via Coffer)\n");
    expect(ctx(other).split("never git push --tags").length - 1).toBe(1);
  });

  test("a payload of another event, or not JSON, answers the empty shape", () => {
    expect(run("prompt", { ...base("q-6", "Stop"), prompt: "x" })).toEqual({});
    const r = sb.run(["hook", "session-start", "--agent", "qwen"], { stdin: "not json" });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "" },
    });
  });
});
