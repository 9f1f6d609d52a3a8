/**
 * End to end per host: link, read back the command string Coffer wrote, execute it exactly as
 * the host does (`sh -c "<command>"`, JSON on stdin, no shell rc files, a PATH without Coffer)
 * with a realistic payload, and check the answer is the host's valid injection output carrying
 * the seeded rules. Windsurf cannot inject: its hook answers nothing and Coffer reaches it
 * through the MCP server registered in mcp_config.json, which is started the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, linkSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { BIN, type Sandbox, sandbox } from "../kit";
import { read } from "./util";

let sb: Sandbox;
let repo: string;
const SESSION = "5f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

beforeAll(() => {
  sb = sandbox("coffer-link-e2e-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  expect(sb.run(["rules", "add", "Run bun test before every commit", "--scope", "project"], { cwd: repo }).code).toBe(
    0,
  );
  expect(sb.run(["rules", "add", "Answer in English", "--scope", "global"], { cwd: repo }).code).toBe(0);
});
afterAll(() => sb.cleanup());

/** Run a hook command the way agents do: through sh, JSON on stdin, a bare environment. */
function runAsHost(command: string, stdin: unknown, cwd = repo) {
  const p = Bun.spawnSync(["sh", "-c", command], {
    cwd,
    env: { HOME: sb.home, COFFER_HOME: sb.cofferHome, PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
    stdin: Buffer.from(JSON.stringify(stdin)),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

function expectSeeded(context: string) {
  expect(context).toContain("coffer__resume()");
  expect(context).toContain("coffer__remember");
  expect(context).toContain("Run bun test before every commit");
  expect(context).toContain("Answer in English");
}

/** The command Coffer wrote for `native` in a grouped hooks file. */
function groupedCommand(file: string, native: string): string {
  const doc = JSON.parse(read(file)!.replace(/^\s*\/\/.*$/gm, ""));
  const cmds = doc.hooks[native]
    .flatMap((g: any) => g.hooks.map((h: any) => h.command))
    .filter((c: string) => c.includes(" hook "));
  expect(cmds.length).toBe(1);
  expect(cmds[0].startsWith(`${BIN} `)).toBe(true);
  return cmds[0];
}

function claudeLikeStart(host: string) {
  return {
    session_id: SESSION,
    transcript_path: join(sb.home, `.${host}`, "sessions", `${SESSION}.jsonl`),
    cwd: repo,
    hook_event_name: "SessionStart",
    source: "startup",
    ...(host === "codex" ? { model: "gpt-5-codex", permission_mode: "default" } : {}),
  };
}

describe("Claude Code", () => {
  test("SessionStart command -> hookSpecificOutput with the seeded rules", () => {
    expect(sb.run(["link", "claude"]).code).toBe(0);
    const file = join(sb.home, ".claude", "settings.json");
    const r = runAsHost(groupedCommand(file, "SessionStart"), claudeLikeStart("claude"));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expectSeeded(out.hookSpecificOutput.additionalContext);
  });

  test("every other installed command answers valid JSON and exits 0", () => {
    const file = join(sb.home, ".claude", "settings.json");
    const base = { session_id: SESSION, transcript_path: join(sb.home, "t.jsonl"), cwd: repo };
    const payloads: Record<string, object> = {
      UserPromptSubmit: { ...base, hook_event_name: "UserPromptSubmit", prompt: "run the tests please" },
      PreToolUse: {
        ...base,
        hook_event_name: "PreToolUse",
        tool_name: "Read",
        tool_input: { file_path: join(repo, "README.md") },
      },
      PreCompact: { ...base, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "" },
      SubagentStart: { ...base, hook_event_name: "SubagentStart", agent_id: "a1", agent_type: "Explore" },
    };
    for (const [native, payload] of Object.entries(payloads)) {
      const r = runAsHost(groupedCommand(file, native), payload);
      expect(r.code).toBe(0);
      // Always one JSON document (at least `{}`): an empty stdout is not a valid answer.
      expect(r.stdout.trim()).not.toBe("");
      expect(() => JSON.parse(r.stdout)).not.toThrow();
      expect(r.stderr).toBe("");
    }
  });
});

describe("Codex", () => {
  test("SessionStart command (no rc files, PATH without coffer) -> seeded rules", () => {
    expect(sb.run(["link", "codex"]).code).toBe(0);
    const r = runAsHost(
      groupedCommand(join(sb.home, ".codex", "hooks.json"), "SessionStart"),
      claudeLikeStart("codex"),
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expectSeeded(out.hookSpecificOutput.additionalContext);
  });

  test("PreToolUse on apply_patch answers valid JSON", () => {
    const cmd = groupedCommand(join(sb.home, ".codex", "hooks.json"), "PreToolUse");
    const r = runAsHost(cmd, {
      session_id: SESSION,
      cwd: repo,
      hook_event_name: "PreToolUse",
      tool_name: "apply_patch",
      tool_input: { command: "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch\n" },
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).not.toBe("");
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  });

  test("the MCP registration in config.toml starts an MCP server", async () => {
    const entry = (parseToml(read(join(sb.home, ".codex", "config.toml"))!) as any).mcp_servers.coffer;
    await expectMcpServer([entry.command, ...entry.args]);
  });
});

describe("Gemini CLI", () => {
  test("SessionStart command -> hookSpecificOutput with the seeded rules", () => {
    expect(sb.run(["link", "gemini"]).code).toBe(0);
    const r = runAsHost(groupedCommand(join(sb.home, ".gemini", "settings.json"), "SessionStart"), {
      ...claudeLikeStart("gemini"),
      timestamp: "2026-11-29T21:30:00.000Z",
    });
    expect(r.code).toBe(0);
    // Exit 0 means stdout must be JSON only.
    const out = JSON.parse(r.stdout);
    expectSeeded(out.hookSpecificOutput.additionalContext);
  });
});

describe("Cursor", () => {
  test("sessionStart command -> {additional_context} with the seeded rules", () => {
    expect(sb.run(["link", "cursor"]).code).toBe(0);
    const doc = JSON.parse(read(join(sb.home, ".cursor", "hooks.json"))!);
    const cmd: string = doc.hooks.sessionStart.map((h: any) => h.command).find((c: string) => c.includes(" hook "));
    expect(cmd).toBe(`${BIN} hook session-start --agent cursor`);
    const r = runAsHost(cmd, {
      conversation_id: "c0ffee00-1111-2222-3333-444455556666",
      generation_id: "g-1",
      hook_event_name: "sessionStart",
      workspace_roots: [repo],
      transcript_path: null,
    });
    expect(r.code).toBe(0);
    expectSeeded(JSON.parse(r.stdout).additional_context);
  });
});

describe("Windsurf", () => {
  test("pre_user_prompt command answers nothing (Windsurf cannot inject) and exits 0", () => {
    expect(sb.run(["link", "windsurf"]).code).toBe(0);
    const doc = JSON.parse(read(join(sb.home, ".codeium", "windsurf", "hooks.json"))!);
    const cmd: string = doc.hooks.pre_user_prompt[0].command;
    expect(cmd).toBe(`${BIN} hook prompt --agent windsurf`);
    const r = runAsHost(cmd, {
      agent_action_name: "pre_user_prompt",
      trajectory_id: "traj-42",
      execution_id: "exec-7",
      timestamp: "2026-11-29T21:30:00Z",
      tool_info: { user_prompt: "how do we deploy?" },
    });
    expect(r.code).toBe(0);
    expect(["", "{}"]).toContain(r.stdout.trim());
  });

  test("Cascade reaches Coffer through the registered MCP server", async () => {
    const entry = JSON.parse(read(join(sb.home, ".codeium", "windsurf", "mcp_config.json"))!).mcpServers.coffer;
    await expectMcpServer([entry.command, ...entry.args]);
  });
});

describe("a binary path that needs quoting", () => {
  test("spaces, an apostrophe and non-ASCII survive the trip through sh -c", () => {
    const dir = join(sb.root, "Zoë's tools");
    mkdirSync(dir, { recursive: true });
    const bin = join(dir, "coffer");
    try {
      linkSync(BIN, bin);
    } catch {
      copyFileSync(BIN, bin);
      Bun.spawnSync(["chmod", "+x", bin]);
    }
    const home = join(sb.root, "home2");
    mkdirSync(home);
    const env = { ...sb.env, HOME: home };
    expect(Bun.spawnSync([bin, "link", "claude", "--no-mcp"], { env, cwd: home }).exitCode).toBe(0);
    const doc = JSON.parse(read(join(home, ".claude", "settings.json"))!);
    const cmd: string = doc.hooks.SessionStart[0].hooks[0].command;
    expect(cmd).toBe(`'${dir.replace("'", "'\\''")}/coffer' hook session-start --agent claude`);
    const p = Bun.spawnSync(["sh", "-c", cmd], {
      cwd: repo,
      env: { HOME: home, COFFER_HOME: sb.cofferHome, PATH: "/usr/bin:/bin" },
      stdin: Buffer.from(JSON.stringify(claudeLikeStart("claude"))),
    });
    expect(p.exitCode).toBe(0);
    expectSeeded(JSON.parse(p.stdout.toString()).hookSpecificOutput.additionalContext);
    // And it is still recognised as Coffer's: a re-link changes nothing, unlink removes it.
    expect(Bun.spawnSync([bin, "link", "claude", "--no-mcp"], { env, cwd: home }).stdout.toString()).toContain(
      "already linked",
    );
    expect(Bun.spawnSync([bin, "unlink", "claude"], { env, cwd: home }).exitCode).toBe(0);
    expect(read(join(home, ".claude", "settings.json"))).toBeNull();
  });
});

/** Start an MCP stdio server as a client would and check it lists Coffer's tools. */
async function expectMcpServer(argv: string[]) {
  expect(argv[0]).toBe(BIN);
  const p = Bun.spawn(argv, {
    cwd: repo,
    env: { HOME: sb.home, COFFER_HOME: sb.cofferHome, PATH: "/usr/bin:/bin" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const send = (msg: object) => p.stdin.write(`${JSON.stringify(msg)}\n`);
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "windsurf", version: "1.0" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
  await p.stdin.flush();
  const reader = p.stdout.getReader();
  let buf = "";
  const deadline = Date.now() + 10000;
  let tools: any;
  while (!tools && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += new TextDecoder().decode(value);
    for (const line of buf.split("\n")) {
      try {
        const msg = JSON.parse(line);
        if (msg.id === 2) tools = msg.result?.tools;
      } catch {}
    }
  }
  p.kill();
  expect(tools?.map((t: any) => t.name)).toContain("coffer__recall");
}
