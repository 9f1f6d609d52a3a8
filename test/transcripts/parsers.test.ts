/**
 * Parsers over every transcript fixture (the shared ones and ours), compared with golden files
 * that were read by hand, plus the properties each golden must have whatever it says.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parseClaude } from "../../src/transcripts/claude";
import { parseCodex } from "../../src/transcripts/codex";
import { parseGemini } from "../../src/transcripts/gemini";
import { fixtures, parseFixture, render } from "./golden";

const all = fixtures();

test("every shared fixture has a golden", () => {
  expect(all.filter((f) => f.name.startsWith("shared/")).length).toBe(8);
  expect(all.filter((f) => f.name.startsWith("own/")).length).toBeGreaterThanOrEqual(3);
});

describe("golden outputs", () => {
  for (const f of all) {
    test(f.name, () => {
      expect(render(parseFixture(f))).toBe(readFileSync(f.golden, "utf8"));
    });
  }
});

/** Strings that must never survive cleaning, per fixture (tool traffic, thinking, preambles, Coffer). */
const FORBIDDEN: Record<string, string[]> = {
  "shared/claude/simple-tools.jsonl": ["def hello()", "File written successfully", "git add .", "Add hello function"],
  "shared/claude/representative.jsonl": [
    "File created successfully",
    "Hello, Alice!\nHello, Alice!",
    "python /tmp/decorator_example.py",
    "def repeat(times)",
  ],
  "shared/claude/edge-cases.jsonl": [
    "Caveat:",
    "<command-name>",
    "test-command",
    "Command output here",
    "Tool execution failed",
    "wow error",
    "FailingTool",
    "Implement core functionality",
  ],
  "shared/claude/record-zoo-v2.1.jsonl": [
    "Reasoning goes here",
    "a.txt",
    "Summary of prior context",
    "The user doesn't want to proceed",
    "Hello",
    "Done.",
    "Partial reply",
  ],
  "shared/codex/record-zoo-0.146.jsonl": ["a.txt", '"command"', "Refused"],
  "shared/gemini/session-legacy.json": ["Short reasoning placeholder"],
  "shared/gemini/session-v040.jsonl": ["ls -F", "AgentSessions/", "README.md"],
  "own/claude/coffer-context.jsonl": [
    "(via Coffer)",
    "Coffer proof",
    "already loaded",
    "Run bun test before committing",
    "Redis",
    "grep for it",
    "export function total",
    "claudeMd",
    "/compact",
    "Compacted",
    "SessionStart hook additional context",
    "UserPromptSubmit hook additional context",
    "continued from a previous conversation",
    "Base directory",
    "Always write a regression test",
    "Request interrupted",
    "API Error",
    "cut off mid",
  ],
  "own/codex/preambles-and-duplicates.jsonl": [
    "(via Coffer)",
    "Coffer proof",
    "Invoices are immutable",
    "permissions instructions",
    "AGENTS.md",
    "Use pnpm",
    "environment_context",
    "<cwd>",
    "Stripe retries webhooks",
    "Inspecting webhook handler",
    'rg", "refund',
    "src/webhooks/refund.ts:12",
    "git status",
    "Begin Patch",
    "Success. Updated",
    "Summary of the conversation",
    "interrupted the previous turn",
    "cut sho",
  ],
  "own/codex/untyped-response-items.jsonl": [
    "environment_context",
    "Looking at rounding",
    "toFixed",
    "Sandbox: workspace-write",
    "NEW_TASK",
    "audit rounding",
  ],
  "public/claude/agent-sessions-schema_drift.jsonl": ["List files", "cat README.md", "# Title"],
  "public/claude/agent-sessions-large.jsonl": ["Plan\n1)", "line1"],
  "public/codex/agent-sessions-large.jsonl": ["printf", "line1", "<cwd>"],
  "public/codex/claude-code-log-structured.jsonl": [
    "SYNTHETIC_ENCRYPTED",
    "I will inspect",
    "find . -maxdepth",
    "./alpha.txt",
    "Begin Patch",
    "Done!",
    "status",
    "ignored",
  ],
  "public/gemini/agent-sessions-large.json": ["printf", "non-existent", "Request cancelled", "Placeholder thoughts"],
  // Real sessions of the pinned CLIs with Coffer's hooks injecting context (see SOURCES.md).
  "own/claude/observed-2.1.328.jsonl": [
    "via Coffer",
    "hook additional context",
    "session_context",
    "Coffer proof",
    "Use tabs in Makefiles",
    "Always run the linter",
    "Release process",
    "make release",
  ],
  "own/codex/observed-0.169.0.jsonl": [
    "via Coffer",
    "environment_context",
    "skills_instructions",
    "Coffer proof",
    "Use tabs in Makefiles",
    "Always run the linter",
    "Release process",
    "make release",
  ],
  "own/gemini/observed-0.61.0.jsonl": [
    "via Coffer",
    "session_context",
    "This is the Gemini CLI",
    "Coffer proof",
    "Use tabs in Makefiles",
    "Always run the linter",
    "Release process",
  ],
  "own/gemini/session-resumed.jsonl": [
    "(via Coffer)",
    "hook_context",
    "Run make check before pushing",
    "Coffer proof",
    "already loaded",
    "CI is UTC",
    "state_snapshot",
    "overall_goal",
    "Got it. Thanks",
    "Memory for Makefile",
    "ok\n",
  ],
  "own/gemini/session-rewind.jsonl": [
    "(via Coffer)",
    "already loaded",
    "Exports run at 02:00",
    "Content from referenced files",
    "db.query(row.id)",
    "Reading the export loop",
    "Rust",
    "Request cancelled",
    "Quota exceeded",
    "trunc",
  ],
};

describe("what never survives", () => {
  for (const f of all) {
    test(f.name, () => {
      const text = parseFixture(f)
        .turns.map((t) => t.text)
        .join("\n");
      for (const s of FORBIDDEN[f.name] ?? []) expect(text).not.toContain(s);
      for (const marker of [
        "<system-reminder>",
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md instructions",
        "<command-name>",
        "<local-command-stdout>",
        "(via Coffer)",
      ]) {
        expect(text).not.toContain(marker);
      }
    });
  }
});

test("Claude Code's api-request-blob records (whole requests, user text included) are not conversation", () => {
  const f = all.find((x) => x.name === "own/claude/coffer-context.jsonl")!;
  expect(readFileSync(f.path, "utf8")).toContain('"type":"api-request-blob"');
  const turns = parseFixture(f).turns;
  expect(turns.filter((t) => t.text.startsWith("The checkout endpoint returns 500")).length).toBe(1);
});

test("Gemini: a history re-sync and a compression keep the turns before them; a resume's second header is metadata", () => {
  const f = all.find((x) => x.name === "own/gemini/session-resumed.jsonl")!;
  expect(parseFixture(f).turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
});

test("Codex user text recorded as event, response item and item_completed counts once per turn", () => {
  const f = all.find((x) => x.name === "own/codex/preambles-and-duplicates.jsonl")!;
  const turns = parseFixture(f).turns;
  const count = (s: string) => turns.filter((t) => t.text === s).length;
  expect(count("Why do refunds post twice when the webhook retries?")).toBe(1);
  expect(count("Do it, keyed by the Stripe event id. We decided webhooks must always be idempotent.")).toBe(1);
  expect(count("Added an idempotency check keyed by `evt.id` (table `processed_events`).")).toBe(1);
  // Said again in a later turn: that is a new turn and counts again.
  expect(count("Thanks!")).toBe(2);
  // And the shared record zoo: "List the files" arrives as event_msg and response_item.
  const zoo = parseFixture(all.find((x) => x.name === "shared/codex/record-zoo-0.146.jsonl")!).turns;
  expect(zoo.filter((t) => t.text === "List the files").length).toBe(1);
  expect(zoo.filter((t) => t.text === "Found 2 files.").length).toBe(1);
});

describe("shapes seen in public samples", () => {
  const codexLine = (payload: unknown, ts = "2025-09-02T09:00:00.000Z") =>
    JSON.stringify({ timestamp: ts, type: "response_item", payload });

  test("Codex: response items with role + content but no type (older versions) are conversation", () => {
    const text = [
      JSON.stringify({ type: "session_meta", payload: { id: "s1", cwd: "/w", timestamp: "2025-09-02T09:00:00Z" } }),
      codexLine({ role: "user", content: [{ type: "input_text", text: "Why is the total off by a cent?" }] }),
      codexLine({ role: "assistant", content: [{ type: "output_text", text: "Floats; use integer cents." }] }),
      codexLine({ role: "user", content: "Use cents then." }),
      codexLine({ role: "developer", content: [{ type: "input_text", text: "sandbox rules" }] }),
      codexLine({ role: "system", content: "system prompt" }),
      codexLine({ type: "agent_message", author: "/root", content: [{ type: "input_text", text: "NEW_TASK" }] }),
      codexLine({ type: "reasoning", role: "assistant", content: [{ type: "text", text: "thinking" }] }),
    ].join("\n");
    expect(parseCodex(text).turns.map((t) => [t.role, t.text])).toEqual([
      ["user", "Why is the total off by a cent?"],
      ["assistant", "Floats; use integer cents."],
      ["user", "Use cents then."],
    ]);
  });

  test("Codex: an untyped item and its event_msg copy count once", () => {
    const f = all.find((x) => x.name === "own/codex/untyped-response-items.jsonl")!;
    const turns = parseFixture(f).turns;
    expect(turns.filter((t) => t.text === "Why do the monthly totals drift by a cent?").length).toBe(1);
    expect(turns.filter((t) => t.text.startsWith("Amounts are summed as floats")).length).toBe(1);
    expect(turns.map((t) => t.role)).toEqual(["user", "assistant", "assistant", "user", "assistant"]);
  });

  test("Claude: a user message that is a task notification is dropped, the typed ones kept", () => {
    const rec = (content: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ type: "user", sessionId: "s", message: { role: "user", content }, ...extra });
    const text = [
      rec("Run the tests in the background"),
      rec("Background task finished: 12 passed", { origin: { kind: "task-notification" } }),
      rec("Now fix the flaky one", { origin: { kind: "human" } }),
    ].join("\n");
    expect(parseClaude(text).turns.map((t) => t.text)).toEqual([
      "Run the tests in the background",
      "Now fix the flaky one",
    ]);
    const drift = parseFixture(all.find((x) => x.name === "public/claude/agent-sessions-schema_drift.jsonl")!);
    expect(drift.turns.map((t) => t.text)).toEqual(["Open README", "Read README and extracted the title."]);
  });

  test("Gemini: a model message carrying API-style parts is read", () => {
    const f = parseFixture(all.find((x) => x.name === "public/gemini/agent-sessions-large.json")!);
    expect(f.turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  test("every public sample parses to at least one turn", () => {
    const pub = all.filter((f) => f.name.startsWith("public/"));
    expect(pub.length).toBeGreaterThanOrEqual(6);
    for (const f of pub) expect(parseFixture(f).turns.length).toBeGreaterThan(0);
  });
});

test("titles: the host's own title first, else the first user line, at most 80 characters", () => {
  const byName = (n: string) => parseFixture(all.find((x) => x.name === n)!).title;
  expect(byName("own/claude/coffer-context.jsonl")).toBe("Fix 500 on empty cart checkout"); // ai-title record
  expect(byName("shared/claude/record-zoo-v2.1.jsonl")).toBe("Stage0 small fixture"); // custom-title beats ai-title
  expect(byName("own/codex/preambles-and-duplicates.jsonl")).toBe("Idempotent refund webhooks"); // thread_name_updated
  expect(byName("own/gemini/session-rewind.jsonl")).toBe("Speed up the nightly export job"); // $set summary
  expect(byName("shared/gemini/session-v040.jsonl")).toBe("Say hello and list files."); // first user turn
  expect(byName("own/gemini/session-resumed.jsonl")).toBe("Why does make check fail on CI only?"); // hook context is not the title
  for (const f of all) expect(parseFixture(f).title.length).toBeLessThanOrEqual(80);
});

describe("tolerance", () => {
  test("unknown records, garbage lines and a truncated last line are skipped, never thrown", () => {
    const junk = ['"just a string"', "42", "[1,2]", "{not json", '{"type":"mystery","payload":{"x":1}}', ""].join("\n");
    const user = JSON.stringify({ type: "user", sessionId: "s", message: { role: "user", content: "still here" } });
    expect(parseClaude(`${junk}\n${user}\n{"type":"user","message":{"content":"cut`).turns.map((t) => t.text)).toEqual([
      "still here",
    ]);
    const codexLine = JSON.stringify({
      timestamp: "2026-01-01T00:00:00Z",
      type: "event_msg",
      payload: { type: "user_message", message: "still here" },
    });
    expect(
      parseCodex(`${junk}\n${codexLine}\n{"type":"response_item","payload":{"ty`).turns.map((t) => t.text),
    ).toEqual(["still here"]);
    const gem = JSON.stringify({ id: "a", type: "user", content: "still here" });
    expect(
      parseGemini(`{"sessionId":"s","projectHash":"h"}\n${junk}\n${gem}\n{"id":"b","type":"gem`).turns.map(
        (t) => t.text,
      ),
    ).toEqual(["still here"]);
    expect(parseGemini('{"sessionId":"s","messages":[{"id":"a","type":"user","content":"cut sh').turns).toEqual([]);
    expect(parseClaude("").turns).toEqual([]);
  });

  test("Gemini content without displayContent: pasted file contents and Coffer's part are dropped", () => {
    const line = JSON.stringify({
      id: "m1",
      type: "user",
      content: [
        { text: "Why is it slow?" },
        { text: "--- Content from referenced files ---\nsecret code\n--- End of content ---" },
        { text: "# Relevant memory (via Coffer)\n- x" },
      ],
    });
    expect(parseGemini(`{"sessionId":"s","projectHash":"h"}\n${line}`).turns).toEqual([
      { role: "user", text: "Why is it slow?" },
    ]);
  });

  test("Coffer context inside an older Claude hook tag or appended to a prompt is cut, the prompt kept", () => {
    const rec = (content: string) =>
      JSON.stringify({ type: "user", sessionId: "s", message: { role: "user", content } });
    const text = [
      rec(
        "Fix the build\n<user-prompt-submit-hook># Relevant memory (via Coffer)\n- Use bun</user-prompt-submit-hook>",
      ),
      rec("Also the docs\n\n## Project rules (via Coffer)\n- Never push to main\nCoffer proof: rules=1"),
      rec("# Relevant memory (via Coffer)\n- only context"),
    ].join("\n");
    expect(parseClaude(text).turns.map((t) => t.text)).toEqual(["Fix the build", "Also the docs"]);
  });
});
