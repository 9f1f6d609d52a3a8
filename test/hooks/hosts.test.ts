/**
 * Every host x every event through the compiled binary, with stdin shaped like what each host
 * really sends, checking the exact shape of the JSON answered on stdout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Event, type Host, hook, projectId, type Sandbox, sandbox, writeEntries, writeRules } from "../kit";

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-hook-hosts-");
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
    { id: "E2PARSER", title: "Parser design", body: "The parser is hand-written recursive descent." },
  ]);
});
afterAll(() => sb.cleanup());

const PATCH = (repo: string) =>
  `*** Begin Patch\n*** Update File: ${repo}/src/deploy/run.sh\n@@\n-make release\n+make release VERSION=1\n*** End Patch\n`;

type Expect =
  | { kind: "specific"; name: string; starts: string; contains?: string }
  | { kind: "snake"; starts: string; contains?: string }
  | { kind: "exact"; json: unknown };

type Row = { host: Host; event: Event; payload: (s: string) => Record<string, unknown>; expect: Expect; cwd?: "repo" };

const RULES = "# Project rules (via Coffer)";
const MEMORY = "# Relevant memory (via Coffer)";
const EMPTY = { kind: "exact", json: {} } as const;

const claudeBase = (s: string, name: string) => ({
  session_id: s,
  transcript_path: `/home/u/.claude/projects/x/${s}.jsonl`,
  cwd: repo,
  permission_mode: "default",
  hook_event_name: name,
});
const codexBase = (s: string, name: string) => ({
  session_id: s,
  transcript_path: null,
  cwd: repo,
  hook_event_name: name,
  model: "gpt-5.5",
});
const geminiBase = (s: string, name: string) => ({
  session_id: s,
  transcript_path: `/home/u/.gemini/tmp/x/chats/session-${s}.json`,
  cwd: repo,
  hook_event_name: name,
  timestamp: "2026-11-29T21:30:00.000Z",
});

const ROWS: Row[] = [
  // Claude Code
  {
    host: "claude",
    event: "session-start",
    payload: (s) => ({ ...claudeBase(s, "SessionStart"), source: "startup", model: "claude-sonnet-4-6" }),
    expect: { kind: "specific", name: "SessionStart", starts: RULES, contains: "coffer__resume()" },
  },
  {
    host: "claude",
    event: "prompt",
    payload: (s) => ({ ...claudeBase(s, "UserPromptSubmit"), prompt: "how do we cut a release?" }),
    expect: { kind: "specific", name: "UserPromptSubmit", starts: MEMORY, contains: "make release" },
  },
  {
    host: "claude",
    event: "tool",
    payload: (s) => ({
      ...claudeBase(s, "PreToolUse"),
      tool_name: "Read",
      tool_input: { file_path: `${repo}/src/deploy/run.sh` },
      tool_use_id: "toolu_01",
    }),
    expect: { kind: "specific", name: "PreToolUse", starts: MEMORY, contains: "[E1RELEASE]" },
  },
  {
    host: "claude",
    event: "tool",
    payload: (s) => ({ ...claudeBase(s, "PreToolUse"), tool_name: "Bash", tool_input: { command: "ls" } }),
    expect: EMPTY,
  },
  {
    host: "claude",
    event: "compact",
    payload: (s) => ({ ...claudeBase(s, "PreCompact"), trigger: "manual", custom_instructions: "" }),
    expect: EMPTY,
  },
  {
    host: "claude",
    event: "subagent-start",
    payload: (s) => ({ ...claudeBase(s, "SubagentStart"), agent_id: "a1b2c3", agent_type: "Explore" }),
    expect: { kind: "specific", name: "SubagentStart", starts: RULES },
  },
  {
    host: "claude",
    event: "session-end",
    payload: (s) => ({ ...claudeBase(s, "SessionEnd"), reason: "exit" }),
    expect: EMPTY,
  },
  // Codex
  {
    host: "codex",
    event: "session-start",
    payload: (s) => ({ ...codexBase(s, "SessionStart"), source: "startup" }),
    expect: { kind: "specific", name: "SessionStart", starts: RULES },
  },
  {
    host: "codex",
    event: "prompt",
    payload: (s) => ({ ...codexBase(s, "UserPromptSubmit"), turn_id: "t1", prompt: "how do we cut a release?" }),
    expect: { kind: "specific", name: "UserPromptSubmit", starts: MEMORY, contains: "make release" },
  },
  {
    host: "codex",
    event: "tool",
    payload: (s) => ({
      ...codexBase(s, "PreToolUse"),
      turn_id: "t1",
      tool_name: "apply_patch",
      tool_use_id: "call_1",
      tool_input: { command: PATCH(repo) },
    }),
    expect: { kind: "specific", name: "PreToolUse", starts: MEMORY, contains: "[E1RELEASE]" },
  },
  {
    host: "codex",
    event: "tool",
    payload: (s) => ({ ...codexBase(s, "PreToolUse"), tool_name: "Bash", tool_input: { command: "ls" } }),
    expect: EMPTY,
  },
  {
    host: "codex",
    event: "compact",
    payload: (s) => ({ ...codexBase(s, "PreCompact"), trigger: "auto" }),
    expect: EMPTY,
  },
  {
    host: "codex",
    event: "subagent-start",
    payload: (s) => ({ ...codexBase(s, "SubagentStart"), agent_id: "019a-child", agent_type: "default" }),
    expect: { kind: "specific", name: "SubagentStart", starts: RULES },
  },
  // Gemini CLI
  {
    host: "gemini",
    event: "session-start",
    payload: (s) => ({ ...geminiBase(s, "SessionStart"), source: "startup" }),
    expect: { kind: "specific", name: "SessionStart", starts: RULES },
  },
  {
    host: "gemini",
    event: "prompt",
    payload: (s) => ({ ...geminiBase(s, "BeforeAgent"), prompt: "how do we cut a release?" }),
    expect: { kind: "specific", name: "BeforeAgent", starts: MEMORY, contains: "make release" },
  },
  {
    host: "gemini",
    event: "tool",
    payload: (s) => ({
      ...geminiBase(s, "AfterTool"),
      tool_name: "read_file",
      tool_input: { file_path: `${repo}/src/deploy/run.sh` },
      tool_response: { llmContent: "make release" },
    }),
    expect: { kind: "specific", name: "AfterTool", starts: MEMORY, contains: "[E1RELEASE]" },
  },
  {
    host: "gemini",
    event: "tool",
    payload: (s) => ({
      ...geminiBase(s, "AfterTool"),
      tool_name: "smart_replace_all",
      tool_input: { file_path: `${repo}/src/deploy/run.sh` },
    }),
    expect: EMPTY,
  },
  {
    host: "gemini",
    event: "compact",
    payload: (s) => ({ ...geminiBase(s, "PreCompress"), trigger: "auto" }),
    expect: EMPTY,
  },
  { host: "gemini", event: "subagent-start", payload: (s) => ({ ...geminiBase(s, "SubagentStart") }), expect: EMPTY },
  {
    host: "gemini",
    event: "session-end",
    payload: (s) => ({ ...geminiBase(s, "SessionEnd"), reason: "exit" }),
    expect: EMPTY,
  },
  // Cursor
  {
    host: "cursor",
    event: "session-start",
    payload: (s) => ({
      conversation_id: s,
      generation_id: "g1",
      hook_event_name: "sessionStart",
      workspace_roots: [repo],
      cursor_version: "2.1.0",
      is_background_agent: false,
    }),
    expect: { kind: "snake", starts: RULES },
  },
  {
    host: "cursor",
    event: "prompt",
    payload: (s) => ({
      conversation_id: s,
      hook_event_name: "beforeSubmitPrompt",
      workspace_roots: [repo],
      prompt: "release?",
    }),
    expect: EMPTY,
  },
  { host: "cursor", event: "tool", payload: (s) => ({ conversation_id: s, workspace_roots: [repo] }), expect: EMPTY },
  // Windsurf (no injection channel: always {})
  {
    host: "windsurf",
    event: "prompt",
    payload: (s) => ({
      agent_action_name: "pre_user_prompt",
      trajectory_id: s,
      execution_id: "x1",
      timestamp: "2026-11-29T21:30:00Z",
      tool_info: { user_prompt: "how do we cut a release?" },
    }),
    expect: EMPTY,
    cwd: "repo",
  },
  { host: "windsurf", event: "session-start", payload: (s) => ({ trajectory_id: s }), expect: EMPTY, cwd: "repo" },
  // OpenCode plugin
  {
    host: "opencode",
    event: "session-start",
    payload: (s) => ({ hook_event_name: "chat.message", session_id: s, cwd: repo, prompt: "hi" }),
    expect: { kind: "snake", starts: RULES },
  },
  {
    host: "opencode",
    event: "prompt",
    payload: (s) => ({ hook_event_name: "chat.message", session_id: s, cwd: repo, prompt: "how do we cut a release?" }),
    expect: { kind: "snake", starts: RULES, contains: `${MEMORY}\n\n## [E1RELEASE]` },
  },
  { host: "opencode", event: "tool", payload: (s) => ({ session_id: s, cwd: repo }), expect: EMPTY },
];

describe("every host x event answers its host's exact shape", () => {
  ROWS.forEach((row, n) => {
    test(`${row.host} ${row.event} ${row.expect.kind === "exact" ? "-> {}" : "-> context"} (#${n + 1})`, () => {
      const session = `sess-${row.host}-${n + 1}`;
      const r = hook(sb, row.host, row.event, row.payload(session), { cwd: row.cwd === "repo" ? repo : undefined });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout.endsWith("\n")).toBe(true);
      const j = JSON.parse(r.stdout);
      const e = row.expect;
      if (e.kind === "exact") {
        expect(j).toEqual(e.json);
      } else if (e.kind === "specific") {
        expect(Object.keys(j)).toEqual(["hookSpecificOutput"]);
        expect(Object.keys(j.hookSpecificOutput)).toEqual(["hookEventName", "additionalContext"]);
        expect(j.hookSpecificOutput.hookEventName).toBe(e.name);
        expect(j.hookSpecificOutput.additionalContext.startsWith(`${e.starts}\n`)).toBe(true);
        if (e.contains) expect(j.hookSpecificOutput.additionalContext).toContain(e.contains);
        // Never a permission decision.
        expect(r.stdout).not.toContain("permissionDecision");
        expect(r.stdout).not.toContain('"decision"');
      } else {
        expect(Object.keys(j)).toEqual(["additional_context"]);
        expect(j.additional_context.startsWith(`${e.starts}\n`)).toBe(true);
        if (e.contains) expect(j.additional_context).toContain(e.contains);
      }
    });
  });
});

describe("empty answers keep the host's shape", () => {
  const codexEmptyStart = { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "" } };

  test("Codex SessionStart answers its own shape even when empty (malformed stdin, resume with an unchanged bundle)", () => {
    const bad = hook(sb, "codex", "session-start", "not json");
    expect(bad.code).toBe(0);
    expect(JSON.parse(bad.stdout)).toEqual(codexEmptyStart);
    const first = hook(sb, "codex", "session-start", {
      ...codexBase("codex-resume", "SessionStart"),
      source: "startup",
    });
    expect(JSON.parse(first.stdout).hookSpecificOutput.additionalContext).toStartWith(RULES);
    const resumed = hook(sb, "codex", "session-start", {
      ...codexBase("codex-resume", "SessionStart"),
      source: "resume",
    });
    expect(JSON.parse(resumed.stdout)).toEqual(codexEmptyStart);
  });

  test("Claude SessionStart empty is the same shape; other Claude events answer {}", () => {
    expect(JSON.parse(hook(sb, "claude", "session-start", "{").stdout)).toEqual(codexEmptyStart);
    expect(JSON.parse(hook(sb, "claude", "prompt", "{").stdout)).toEqual({});
  });

  test("an event the host does not have, an unknown host or event: {} and exit 0", () => {
    for (const args of [
      ["hook", "prompt", "--agent", "copilot"],
      ["hook", "nope", "--agent", "claude"],
      ["hook"],
      ["hook", "prompt"],
    ]) {
      const r = sb.run(args, { stdin: "{}" });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({});
    }
  });

  test("a stdin hook_event_name that contradicts the command's event injects nothing", () => {
    const r = hook(sb, "claude", "prompt", {
      ...claudeBase("mismatch", "SessionStart"),
      prompt: "how do we cut a release?",
    });
    expect(JSON.parse(r.stdout)).toEqual({});
  });

  test("the session-end row above queued its transcript", () => {
    const queue = JSON.parse(readFileSync(join(sb.cofferHome, "queue", "session-queue.json"), "utf8"));
    expect(queue.map((q: { host: string }) => q.host).sort()).toEqual(["claude", "gemini"]);
    expect(queue.find((q: { host: string }) => q.host === "claude").transcript_path).toStartWith(
      "/home/u/.claude/projects/x/",
    );
  });
});

describe("adapter details", () => {
  test("Codex apply_patch: every Add/Update/Delete/Move path; outside cwd ignored; relative paths resolve against cwd", () => {
    const patch = `*** Begin Patch\n*** Add File: /etc/passwd\n+x\n*** Update File: src/deploy/run.sh\n@@\n+y\n*** End Patch`;
    const r = hook(sb, "codex", "tool", {
      ...codexBase("codex-rel", "PreToolUse"),
      tool_name: "apply_patch",
      tool_input: { command: patch },
    });
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain("[E1RELEASE]");
    const outside = `*** Begin Patch\n*** Update File: /etc/hosts\n@@\n+y\n*** End Patch`;
    const r2 = hook(sb, "codex", "tool", {
      ...codexBase("codex-out", "PreToolUse"),
      tool_name: "apply_patch",
      tool_input: { command: outside },
    });
    expect(JSON.parse(r2.stdout)).toEqual({});
  });

  describe("Gemini as observed (docs/hosts-observed.md)", () => {
    const gem = (event: Event, s: string, extra: Record<string, unknown>) =>
      hook(sb, "gemini", event, { ...geminiBase(s, extra.hook_event_name as string), ...extra });
    const before = (s: string, prompt: string) =>
      JSON.parse(gem("prompt", s, { hook_event_name: "BeforeAgent", prompt }).stdout).hookSpecificOutput
        ?.additionalContext ?? "";

    test("BeforeAgent strips the <hook_context> Gemini prepends before routing", () => {
      const bundle = JSON.parse(
        gem("session-start", "g-ctx", { hook_event_name: "SessionStart", source: "startup" }).stdout,
      ).hookSpecificOutput.additionalContext;
      const ctx = before("g-ctx", `<hook_context>${bundle}</hook_context>\n\nhow do we cut a release?`);
      expect(ctx).toContain("## [E1RELEASE]");
    });

    test("PreCompress auto (fired before every model call) keeps the delivered set; manual resets it", () => {
      expect(before("g-pc", "how do we cut a release?")).toContain("## [E1RELEASE]");
      expect(JSON.parse(gem("compact", "g-pc", { hook_event_name: "PreCompress", trigger: "auto" }).stdout)).toEqual(
        {},
      );
      // Still delivered: nothing new to inject.
      expect(before("g-pc", "how do we cut a release?")).not.toContain("## [E1RELEASE]");
      expect(JSON.parse(gem("compact", "g-pc", { hook_event_name: "PreCompress", trigger: "manual" }).stdout)).toEqual(
        {},
      );
      expect(before("g-pc", "how do we cut a release?")).toContain("## [E1RELEASE]");
    });

    test("resume is a fresh start on Gemini (its replay drops hook context): full bundle, set reset", () => {
      gem("session-start", "g-res", { hook_event_name: "SessionStart", source: "startup" });
      expect(before("g-res", "how do we cut a release?")).toContain("## [E1RELEASE]");
      const resumed = JSON.parse(
        gem("session-start", "g-res", { hook_event_name: "SessionStart", source: "resume" }).stdout,
      );
      expect(resumed.hookSpecificOutput.additionalContext).toStartWith(RULES);
      expect(before("g-res", "how do we cut a release?")).toContain("## [E1RELEASE]");
    });
  });

  test("Windsurf has no cwd field: the process cwd is used, and nothing is ever injected", () => {
    const r = hook(
      sb,
      "windsurf",
      "prompt",
      { agent_action_name: "pre_user_prompt", trajectory_id: "w1", tool_info: { user_prompt: "release" } },
      { cwd: repo },
    );
    expect(JSON.parse(r.stdout)).toEqual({});
  });

  test("Cursor takes the first workspace root as cwd", () => {
    const r = hook(sb, "cursor", "session-start", {
      conversation_id: "c-roots",
      hook_event_name: "sessionStart",
      workspace_roots: [repo, "/tmp"],
    });
    expect(JSON.parse(r.stdout).additional_context).toContain("Run bun test before committing");
  });

  test("OpenCode retains its slot ({}) when the routed set did not change, and replaces it when it did", () => {
    const base = { hook_event_name: "chat.message", session_id: "oc-slot", cwd: repo };
    const first = JSON.parse(hook(sb, "opencode", "prompt", { ...base, prompt: "how do we cut a release?" }).stdout);
    expect(first.additional_context).toContain("[E1RELEASE]");
    expect(JSON.parse(hook(sb, "opencode", "prompt", { ...base, prompt: "release steps again" }).stdout)).toEqual({});
    const changed = JSON.parse(hook(sb, "opencode", "prompt", { ...base, prompt: "parser recursive descent" }).stdout);
    expect(changed.additional_context).toContain("[E2PARSER]");
    expect(changed.additional_context).toStartWith(RULES);
  });
});
