/**
 * Kimi Code through the compiled binary: `coffer link kimi` writes `[[hooks]]` tables into the
 * user's `config.toml` and gives the file back byte for byte on unlink (comments, the user's own
 * hooks and a missing final newline included); the hook answers Kimi Code 2.1.0's payloads
 * (captured: `prompt` is a list of content parts) with plain text; the transcript reader on a real
 * session. The real CLI end to end: test/agents/kimi.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { kimiPromptText } from "../../src/hosts/kimi/hook";
import { kimiActivity, kimiHead, parseKimi } from "../../src/transcripts/kimi";
import { BIN, projectId, type Sandbox, sandbox, writeEntries, writeRules } from "../kit";

let sb: Sandbox;
let repo: string;
beforeAll(() => {
  sb = sandbox("coffer-hook-kimi-");
  repo = sb.repo("app");
  const pid = projectId(repo);
  writeRules(sb, pid, "- Run bun test before committing\n");
  writeEntries(sb, pid, [
    {
      id: "E1RELEASE",
      title: "Release process",
      body: "This repo deploys via make release, never git push --tags.",
      tags: ["release"],
    },
  ]);
});
afterAll(() => sb.cleanup());

const USER_CONFIG = `# my Kimi settings
default_model = "kimi-for-coding"   # keep

[[hooks]]
event = "PreToolUse"
matcher = "Bash"
command = "node ~/.kimi-code/hooks/check.mjs"

[providers.kimi]
type = "kimi"
api_key = "sk-x"`; // no final newline, on purpose

describe("coffer link kimi: [[hooks]] in config.toml", () => {
  test("two UserPromptSubmit tables appended; unlink gives the file back byte for byte", () => {
    const file = join(sb.home, ".kimi-code", "config.toml");
    mkdirSync(join(sb.home, ".kimi-code"), { recursive: true });
    writeFileSync(file, USER_CONFIG);
    expect(sb.run(["link", "kimi"], { cwd: repo }).code).toBe(0);
    const doc = parseToml(readFileSync(file, "utf8")) as { hooks: Record<string, unknown>[]; providers: unknown };
    expect(doc.hooks).toEqual([
      { event: "PreToolUse", matcher: "Bash", command: "node ~/.kimi-code/hooks/check.mjs" },
      { event: "UserPromptSubmit", command: `${BIN} hook session-start --agent kimi`, timeout: 10 },
      { event: "UserPromptSubmit", command: `${BIN} hook prompt --agent kimi`, timeout: 10 },
    ]);
    expect(doc.providers).toEqual({ kimi: { type: "kimi", api_key: "sk-x" } });
    expect(readFileSync(file, "utf8")).toStartWith(USER_CONFIG);
    expect(JSON.parse(readFileSync(join(sb.home, ".kimi-code", "mcp.json"), "utf8")).mcpServers.coffer).toEqual({
      command: BIN,
      args: ["serve", "--stdio"],
    });
    // Linking again changes nothing; doctor sees it linked.
    const again = sb.run(["link", "kimi"], { cwd: repo });
    expect(again.stdout).toContain("already linked");
    const host = sb
      .run(["doctor", "--json"], { cwd: repo })
      .json()
      .hosts.find((h: { host: string }) => h.host === "kimi");
    expect(host).toMatchObject({ status: "linked", events: ["UserPromptSubmit"] });
    expect(sb.run(["unlink", "kimi"], { cwd: repo }).code).toBe(0);
    // The one change left: the newline the file lacked before the first table.
    expect(readFileSync(file, "utf8")).toBe(`${USER_CONFIG}\n`);
  });

  test("--project is refused: Kimi Code has no project hooks", () => {
    const r = sb.run(["link", "kimi", "--project"], { cwd: repo });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Kimi Code has no project-level link");
  });
});

/** A UserPromptSubmit payload as Kimi Code 2.1.0 sends it (captured). */
const payload = (session: string, text: string) => ({
  hook_event_name: "UserPromptSubmit",
  session_id: session,
  cwd: repo,
  client_type: "kimi_code_cli",
  prompt: [{ type: "text", text }],
  is_steer: false,
});

const hook = (event: string, body: unknown) =>
  sb.run(["hook", event, "--agent", "kimi"], { stdin: JSON.stringify(body), cwd: repo });

describe("coffer hook --agent kimi", () => {
  test("session-start on UserPromptSubmit: the bundle as plain text, once a session", () => {
    const first = hook("session-start", payload("s1", "hello"));
    expect(first.code).toBe(0);
    expect(first.stdout).toStartWith("# Project rules (via Coffer)");
    expect(first.stdout).toContain("- Run bun test before committing");
    expect(hook("session-start", payload("s1", "again")).stdout.trim()).toBe("");
  });

  test("prompt: the routed entry as plain text; nothing when nothing routes", () => {
    const r = hook("prompt", payload("s2", "how does the release process work?"));
    expect(r.stdout).toStartWith("# Relevant memory (via Coffer)");
    expect(r.stdout).toContain("This repo deploys via make release");
    expect(hook("prompt", payload("s2", "hello there")).stdout.trim()).toBe("");
    expect(kimiPromptText([{ type: "text", text: "a" }, { type: "image_url" }, { type: "text", text: "b" }])).toBe(
      "a\nb",
    );
    expect(hook("prompt", "not json").stdout.trim()).toBe("");
  });
});

const WIRE = join(
  import.meta.dir,
  "..",
  "fixtures",
  "transcripts",
  "kimi",
  "session_5cacc4df-6424-44c2-a163-aefb73466246",
  "agents",
  "main",
  "wire.jsonl",
);

describe("Kimi Code transcripts (wire.jsonl)", () => {
  test("a real, resumed session: typed prompts and answers; no hook output", () => {
    const p = parseKimi(readFileSync(WIRE, "utf8"));
    expect(p.turns.map((t) => [t.role, t.text])).toEqual([
      ["user", "How does the release process deploy?"],
      ["assistant", "OK."],
      ["user", "Remind me about the release process again"],
      ["assistant", "OK."],
    ]);
    expect(JSON.stringify(p.turns)).not.toContain("via Coffer");
    expect(p.title).toBe("How does the release process deploy?");
    expect(kimiHead(WIRE)).toEqual({
      session_id: "session_5cacc4df-6424-44c2-a163-aefb73466246",
      cwd: "/home/u/proj",
      first_activity: "2026-12-03T19:01:12.608Z",
    });
  });
});

describe("Kimi Code activity (the use signal)", () => {
  test("a real session: typed prompts and answers in order, no hook output", () => {
    const acts = kimiActivity(readFileSync(WIRE, "utf8"));
    expect(acts.map((a) => [a.kind, a.text])).toEqual([
      ["prompt", "How does the release process deploy?"],
      ["say", "OK."],
      ["prompt", "Remind me about the release process again"],
      ["say", "OK."],
    ]);
    expect(acts[0]!.at).toBe(1796324472857);
  });

  test("tool calls (wire 1.1 and the older function shape) and their results, named by call id", () => {
    const rec = (message: unknown, time: number) =>
      JSON.stringify({ message: { message, meta: { source: "llm" } }, type: "agent.message.appended", time });
    const wire = [
      rec(
        {
          role: "assistant",
          content: [],
          toolCalls: [{ type: "function", id: "c1", name: "ReadFile", arguments: '{"path":"deploy/release.sh"}' }],
        },
        1,
      ),
      rec({ role: "tool", toolCallId: "c1", content: [{ type: "text", text: "make release" }] }, 2),
      rec(
        {
          role: "assistant",
          content: [{ type: "text", text: "Done." }],
          toolCalls: [{ id: "c2", function: { name: "Shell", arguments: '{"command":"make release"}' } }],
        },
        3,
      ),
    ].join("\n");
    expect(kimiActivity(wire)).toEqual([
      { kind: "tool", text: '{"path":"deploy/release.sh"}', at: 1, tool: "ReadFile" },
      { kind: "result", text: "make release", at: 2, tool: "ReadFile" },
      { kind: "say", text: "Done.", at: 3 },
      { kind: "tool", text: '{"command":"make release"}', at: 3, tool: "Shell" },
    ]);
  });
});

describe("kimi headless: argv and output parsing", () => {
  test("an agent file with no tools and Coffer's prompt; the input as -p's argument", async () => {
    const { headless } = await import("../../src/hosts/kimi/headless");
    const spec = { system: "SYSTEM", systemFile: "", dir: "/d", workDir: "/w", home: sb.home, input: "[M]\n\nT" };
    const files = headless.files!("SYSTEM");
    const [name, text] = Object.entries(files)[0]!;
    expect(text).toBe(
      "---\nname: coffer-distill\ndescription: Coffer's distillation run (no tools)\ntools: []\nsubagents: []\n---\nSYSTEM\n",
    );
    expect(headless.argv(spec)).toEqual([
      "--agent-file",
      `/d/${name}`,
      "-p",
      "[M]\n\nT",
      "--output-format",
      "stream-json",
    ]);
    expect(headless.stdin!(spec, "x")).toBe("");
  });

  test("the last assistant line is the answer; retries, a missing model and no answer are failures", async () => {
    const { headless } = await import("../../src/hosts/kimi/headless");
    const ok = [
      '{"role":"meta","type":"system.version","version":"2.1.0"}',
      '{"role":"assistant","content":"UserPromptSubmit hook\\n\\nsomeone else\'s output"}',
      '{"role":"assistant","content":"[]"}',
      '{"role":"meta","type":"session.resume_hint","session_id":"session_x"}',
    ].join("\n");
    expect(headless.parse({ stdout: ok, stderr: "", code: 0 })).toEqual({ ok: true, text: "[]" });
    const retrying =
      '{"role":"meta","type":"turn.step.retrying","failed_attempt":3,"error_name":"APIConnectionError","error_message":"Connection error."}';
    expect(headless.parse({ stdout: retrying, stderr: "", code: 143 })).toMatchObject({ ok: false, kind: "network" });
    const noModel =
      "error: failed to run prompt: No model configured. Run `kimi` and use /login to sign in, then retry";
    expect(headless.parse({ stdout: "", stderr: noModel, code: 1 })).toMatchObject({ ok: false, kind: "auth" });
  });
});
