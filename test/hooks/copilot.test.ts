/**
 * Copilot CLI through the compiled binary and its pure parts: the hook answers to the payloads
 * Copilot CLI 1.0.102 sends with PascalCase event names (captured from the real CLI), the
 * transcript reader on a real session file, and the headless summariser's output parsing.
 * The real CLI end to end: test/agents/copilot.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { headless } from "../../src/hosts/copilot/headless";
import { copilotActivity, parseCopilot } from "../../src/transcripts/copilot";
import { projectId, type Sandbox, sandbox, writeEntries, writeRules } from "../kit";

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-hook-copilot-");
  repo = sb.repo("app");
  mkdirSync(join(repo, "deploy"), { recursive: true });
  writeFileSync(join(repo, "deploy", "run.sh"), "make release\n");
  const pid = projectId(repo);
  writeRules(sb, pid, "- Run bun test before committing\n");
  writeEntries(sb, pid, [
    {
      id: "E1RELEASE",
      title: "Release process",
      body: "This repo deploys via make release, never git push --tags.",
      tags: ["release"],
      applies_to: ["deploy/**"],
    },
  ]);
});
afterAll(() => sb.cleanup());

const hook = (event: string, payload: Record<string, unknown>) =>
  sb.run(["hook", event, "--agent", "copilot"], { stdin: JSON.stringify(payload), cwd: repo });

/** Fields every payload of Copilot 1.0.102 carries (PascalCase events: snake_case fields). */
const base = (session: string, name: string) => ({
  hook_event_name: name,
  session_id: session,
  timestamp: "2026-12-03T18:29:25.804Z",
  cwd: repo,
});

describe("coffer hook --agent copilot", () => {
  test("SessionStart (source new): the bundle as a top-level additionalContext", () => {
    const r = hook("session-start", { ...base("s1", "SessionStart"), source: "new", initial_prompt: "hi" });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(["additionalContext"]);
    expect(out.additionalContext).toStartWith("# Project rules (via Coffer)");
    expect(out.additionalContext).toContain("- Run bun test before committing");
  });

  test("SessionStart (source resume): the bundle again (Copilot keeps no SessionStart context), what prompts delivered stays delivered", () => {
    hook("session-start", { ...base("s2", "SessionStart"), source: "new" });
    const p = { ...base("s2", "UserPromptSubmit"), prompt: "how does the release process work?" };
    expect(JSON.parse(hook("prompt", p).stdout).additionalContext).toContain("This repo deploys via make release");
    const r = hook("session-start", { ...base("s2", "SessionStart"), source: "resume" });
    expect(JSON.parse(r.stdout).additionalContext).toStartWith("# Project rules (via Coffer)");
    // The replayed prompt already holds the entry.
    expect(JSON.parse(hook("prompt", p).stdout).additionalContext ?? "").not.toContain("This repo deploys");
  });

  test("UserPromptSubmit: the routed entry, once per session", () => {
    hook("session-start", { ...base("s3", "SessionStart"), source: "new" });
    const p = { ...base("s3", "UserPromptSubmit"), prompt: "how does the release process work?" };
    const out = JSON.parse(hook("prompt", p).stdout);
    expect(out.additionalContext).toContain("# Relevant memory (via Coffer)");
    expect(out.additionalContext).toContain("This repo deploys via make release");
    expect(JSON.parse(hook("prompt", p).stdout).additionalContext ?? "").not.toContain("This repo deploys");
  });

  test("PostToolUse on a file: the applies_to entry; another tool: {}", () => {
    hook("session-start", { ...base("s4", "SessionStart"), source: "new" });
    const read = {
      ...base("s4", "PostToolUse"),
      tool_name: "Read",
      tool_input: { path: join(repo, "deploy", "run.sh") },
      tool_result: { result_type: "success", text_result_for_llm: "make release\n" },
    };
    expect(JSON.parse(hook("tool", read).stdout).additionalContext).toContain("This repo deploys via make release");
    const bash = { ...base("s4", "PostToolUse"), tool_name: "Bash", tool_input: { command: "ls" } };
    expect(hook("tool", bash).stdout.trim()).toBe("{}");
  });

  test("SubagentStart (camelCase payload): the bundle for the subagent; the subagent's prompt: {}", () => {
    const r = hook("subagent-start", {
      sessionId: "s6",
      timestamp: 1796323477372,
      cwd: repo,
      transcriptPath: "/home/u/.copilot/session-state/s6/events.jsonl",
      agentName: "general-purpose",
      agent_id: "a1",
      agent_type: "general-purpose",
      parent_agent_id: "s6",
    });
    expect(JSON.parse(r.stdout).additionalContext).toStartWith("# Project rules (via Coffer)");
    const sub = {
      ...base("a1", "UserPromptSubmit"),
      agent_id: "a1",
      prompt: "# Project rules (via Coffer)\n\nrelease process",
    };
    expect(hook("prompt", sub).stdout.trim()).toBe("{}");
  });

  test("a payload of another event, or garbage: {} and exit 0", () => {
    expect(hook("prompt", { ...base("s5", "SessionStart"), prompt: "x" }).stdout.trim()).toBe("{}");
    const r = sb.run(["hook", "prompt", "--agent", "copilot"], { stdin: "not json", cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("{}");
  });
});

const FIXTURE = readFileSync(
  join(import.meta.dir, "..", "fixtures", "transcripts", "copilot", "observed-1.0.102.jsonl"),
  "utf8",
);

describe("Copilot CLI transcripts (events.jsonl)", () => {
  test("a real session: typed prompts and answers, none of Coffer's context, the resumed turn too", () => {
    const p = parseCopilot(FIXTURE);
    expect(p.session_id).toBe("bed39eb7-165e-4d33-bae0-8bcb053ba3c1");
    expect(p.cwd).toBe("/home/u/proj");
    expect(p.turns.map((t) => [t.role, t.text])).toEqual([
      ["user", "How does the release process deploy?"],
      ["assistant", "Let me look."],
      ["assistant", "It deploys with make release."],
      ["user", "And again?"],
      ["assistant", "Still make release."],
    ]);
    expect(JSON.stringify(p.turns)).not.toContain("via Coffer");
    expect(p.title).toBe("How does the release process deploy?");
    expect(p.first_activity! < p.last_activity!).toBe(true);
  });

  test("activity: prompts, words, the view call and its result", () => {
    const acts = copilotActivity(FIXTURE);
    expect(acts.map((a) => a.kind)).toEqual(["prompt", "say", "tool", "result", "say", "prompt", "say"]);
    expect(acts[2]).toMatchObject({ tool: "view", text: '{"path":"/home/u/proj/deploy/run.sh"}' });
    expect(acts[3]!.tool).toBe("view");
  });
});

describe("copilot headless: output parsing", () => {
  const ok = [
    '{"type":"user.message","data":{"content":"x"}}',
    '{"type":"assistant.message","data":{"content":"[]","toolRequests":[]}}',
    '{"type":"result","sessionId":"s","exitCode":0}',
  ].join("\n");

  test("the answer, and the tokens of --usage-output-file (read, then removed)", () => {
    const dir = join(sb.root, "headless");
    mkdirSync(dir, { recursive: true });
    const spec = { system: "S", systemFile: "", dir, workDir: dir, home: sb.home };
    const argv = headless.argv(spec);
    const file = argv[argv.indexOf("--usage-output-file") + 1]!;
    writeFileSync(
      file,
      JSON.stringify({
        modelMetrics: { "claude-haiku-4.5": { usage: { inputTokens: 2860, outputTokens: 5, cacheReadTokens: 0 } } },
      }),
    );
    expect(headless.parse({ stdout: ok, stderr: "", code: 0 }, spec)).toEqual({
      ok: true,
      text: "[]",
      usage: { input_tokens: 2860, output_tokens: 5 },
      model: "claude-haiku-4.5",
    });
    expect(() => readFileSync(file)).toThrow();
  });

  test("no tools, no MCP server of the user's, no instructions files, prompt on stdin after the marker", () => {
    mkdirSync(join(sb.home, ".copilot"), { recursive: true });
    writeFileSync(join(sb.home, ".copilot", "mcp-config.json"), '{"mcpServers":{"coffer":{},"github2":{}}}');
    const spec = { system: "SYSTEM", systemFile: "", dir: sb.root, workDir: sb.root, home: sb.home };
    const argv = headless.argv(spec);
    expect(argv).not.toContain("-p");
    for (const a of [
      "--available-tools=coffer-headless-none",
      "--disable-builtin-mcps",
      "--disable-mcp-server=coffer",
      "--disable-mcp-server=github2",
      "--no-custom-instructions",
    ])
      expect(argv).toContain(a);
    expect(headless.stdin!(spec, "[MARKER]\n\nTranscript...")).toBe("[MARKER]\n\nSYSTEM\n\nTranscript...");
  });

  test("failures: session.error (unreachable), logged out, no answer", () => {
    const refused = [
      '{"type":"session.error","data":{"errorType":"query","message":"Could not connect to local model provider at http://127.0.0.1:9.\\n  Check that the service is running and the port is correct."}}',
      '{"type":"result","exitCode":1}',
    ].join("\n");
    expect(headless.parse({ stdout: refused, stderr: "", code: 1 })).toMatchObject({ ok: false, kind: "network" });
    const loggedOut =
      "\nTo authenticate, you can use any of the following methods:\n  • Start 'copilot' and run the '/login' command\n";
    expect(headless.parse({ stdout: "", stderr: loggedOut, code: 1 })).toMatchObject({
      ok: false,
      kind: "auth",
      message: "not logged in to GitHub Copilot",
    });
    expect(headless.parse({ stdout: '{"type":"result","exitCode":0}', stderr: "", code: 0 })).toMatchObject({
      ok: false,
      kind: "malformed",
    });
  });
});
