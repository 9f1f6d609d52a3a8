/**
 * The real Claude Code, Codex and Gemini CLIs, headless and offline against the fake model server,
 * with a hand-written logging hook (no Coffer involved). These pin down the host facts Coffer depends
 * on and that docs/hosts-observed.md records: hook stdin per event, where additionalContext lands in
 * the model request, how resume works, where transcripts land, how MCP tools are offered.
 * When a pinned version changes and one of these fails, update docs/hosts-observed.md with it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentTurns,
  conversationTexts,
  endsWithToolResult,
  type ModelServer,
  offeredTools,
  type RecordedRequest,
  startModelServer,
  type ToolCall,
} from "../kit";
import {
  type AgentSandbox,
  agentSandbox,
  assertRunOk,
  cleanupSandboxes,
  readJson,
  runAgent,
  TEST_TIMEOUT_MS,
  writeJson,
} from "./harness";

const HOOK = join(import.meta.dir, "fixtures", "log-hook.sh");
const FAKE_MCP = join(import.meta.dir, "fixtures", "fake-mcp.ts");

let server: ModelServer;
/** One tool call for the next model turn that is not a tool continuation, then plain text. */
let nextTool: ToolCall | undefined;

beforeAll(() => {
  server = startModelServer({
    respond: (req) => {
      if (endsWithToolResult(req)) return { text: "Done with the tool." };
      if (nextTool) {
        const toolCall = nextTool;
        nextTool = undefined;
        return { text: "Let me look.", toolCall };
      }
      return { text: "OK." };
    },
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

function hookLog(sb: AgentSandbox, event: string): any[] {
  const f = join(sb.root, "hooklog", `${event}.jsonl`);
  if (!existsSync(f)) return [];
  return readFileSync(f, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

function setup(): AgentSandbox {
  const sb = agentSandbox(server, { prefix: "coffer-hosts-" });
  mkdirSync(join(sb.root, "hooklog"), { recursive: true });
  sb.agentEnv.HOOK_LOG_DIR = join(sb.root, "hooklog");
  server.clear();
  return sb;
}

const cmd = (event: string) => `${HOOK} ${event}`;
const group = (event: string, matcher?: string, timeout = 10) => [
  { ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: cmd(event), timeout }] },
];

/** [role, text] of every conversation text that carries a marker, in request order. */
function markers(req: RecordedRequest | undefined): [string, string][] {
  return conversationTexts(req)
    .filter((t) => t.text.includes("MARKER-"))
    .flatMap((t) =>
      [...t.text.matchAll(/[^\n]*MARKER-[A-Za-z]+-\d+[^\n]*/g)].map((m) => [t.role, m[0]] as [string, string]),
    );
}

describe("Claude Code (raw hooks)", () => {
  test(
    "hook stdin, context placement, resume, transcript, MCP offered as deferred tools",
    async () => {
      const sb = setup();
      writeJson(join(sb.home, ".claude", "settings.json"), {
        hooks: {
          SessionStart: group("SessionStart", "startup|resume|clear|compact"),
          UserPromptSubmit: group("UserPromptSubmit"),
          PreToolUse: group("PreToolUse", "Read|Edit|Write|MultiEdit"),
          SessionEnd: group("SessionEnd", undefined, 5),
        },
      });
      const claudeJson = join(sb.home, ".claude.json");
      writeJson(claudeJson, {
        mcpServers: {
          coffer: {
            type: "stdio",
            command: process.execPath,
            args: [FAKE_MCP],
            env: { MCP_LOG: join(sb.root, "mcp.log") },
          },
        },
      });
      const readme = join(sb.project, "README.md");
      nextTool = { name: "Read", input: { file_path: readme } };
      const r1 = assertRunOk(await runAgent(sb, "claude", { prompt: "first turn: read the readme" }));
      expect(r1.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(r1.stderr).toBe("");

      const [ss] = hookLog(sb, "SessionStart");
      expect(ss).toMatchObject({
        session_id: r1.sessionId,
        cwd: sb.project,
        hook_event_name: "SessionStart",
        source: "startup",
      });
      expect(ss.transcript_path).toBe(
        join(sb.home, ".claude", "projects", sb.project.replace(/[^A-Za-z0-9]/g, "-"), `${r1.sessionId}.jsonl`),
      );
      expect(hookLog(sb, "UserPromptSubmit")[0]).toMatchObject({
        session_id: r1.sessionId,
        cwd: sb.project,
        prompt: "first turn: read the readme",
      });
      expect(hookLog(sb, "PreToolUse")[0]).toMatchObject({ tool_name: "Read", tool_input: { file_path: readme } });
      expect(hookLog(sb, "SessionEnd")[0]).toMatchObject({ session_id: r1.sessionId, hook_event_name: "SessionEnd" });

      const turns = agentTurns(server.requests);
      expect(turns.length).toBe(2); // the prompt, then the continuation after the Read tool result
      // Context lands in role "system" entries inside `messages`, prefixed by the hook event.
      expect(markers(turns[1])).toEqual([
        ["system", "SessionStart hook additional context: MARKER-SessionStart-1"],
        ["system", "UserPromptSubmit hook additional context: MARKER-UserPromptSubmit-1"],
        ["system", "PreToolUse:Read hook additional context: MARKER-PreToolUse-1"],
      ]);
      // MCP tools are deferred: named in the ToolSearch reminder, not in `tools`.
      expect(offeredTools(turns[0])).not.toContain("mcp__coffer__coffer__recall");
      expect(conversationTexts(turns[0]).some((t) => t.text.includes("\nmcp__coffer__coffer__recall"))).toBe(true);

      // The transcript records hook output as attachments.
      const transcript = readFileSync(ss.transcript_path, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const att = transcript.filter((l) => l.type === "attachment").map((l) => l.attachment);
      expect(att).toContainEqual(
        expect.objectContaining({
          type: "hook_additional_context",
          content: ["MARKER-SessionStart-1"],
          hookEvent: "SessionStart",
        }),
      );
      expect(att).toContainEqual(expect.objectContaining({ type: "hook_success", hookEvent: "SessionStart" }));

      // Resume: same session, source "resume", earlier context replayed, new (different) context added.
      server.clear();
      const r2 = assertRunOk(await runAgent(sb, "claude", { prompt: "second turn", resume: r1.sessionId }));
      expect(r2.sessionId).toBe(r1.sessionId);
      expect(hookLog(sb, "SessionStart")[1]).toMatchObject({ session_id: r1.sessionId, source: "resume" });
      const [t2] = agentTurns(server.requests);
      expect(markers(t2).map((m) => m[1])).toEqual([
        "SessionStart hook additional context: MARKER-SessionStart-1",
        "UserPromptSubmit hook additional context: MARKER-UserPromptSubmit-1",
        "PreToolUse:Read hook additional context: MARKER-PreToolUse-1",
        "SessionStart hook additional context: MARKER-SessionStart-2",
        "UserPromptSubmit hook additional context: MARKER-UserPromptSubmit-2",
      ]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("Codex (raw hooks)", () => {
  test(
    "hook stdin, developer-message placement, exec resume, rollout, MCP behind tool_search",
    async () => {
      const sb = setup();
      writeJson(join(sb.home, ".codex", "hooks.json"), {
        hooks: {
          SessionStart: group("SessionStart", "startup|resume|clear|compact"),
          UserPromptSubmit: group("UserPromptSubmit"),
          PreToolUse: group("PreToolUse", "apply_patch"),
        },
      });
      const cfg = join(sb.home, ".codex", "config.toml");
      const toml = readFileSync(cfg, "utf8");
      await Bun.write(
        cfg,
        `${toml}\n[mcp_servers.coffer]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FAKE_MCP)}]\nenv = { MCP_LOG = ${JSON.stringify(join(sb.root, "mcp.log"))} }\n`,
      );
      const patch = "*** Begin Patch\n*** Add File: notes/new.md\n+hello\n*** End Patch\n";
      nextTool = { name: "apply_patch", input: patch };
      const r1 = assertRunOk(await runAgent(sb, "codex", { prompt: "first turn: add a note" }));
      expect(r1.sessionId).toBeDefined();
      expect(r1.stderr).toContain("hook: SessionStart Completed");
      expect(r1.stderr).toContain("hook: UserPromptSubmit Completed");
      expect(r1.stderr).toContain("hook: PreToolUse Completed");

      const [ss] = hookLog(sb, "SessionStart");
      expect(ss).toMatchObject({
        session_id: r1.sessionId,
        cwd: sb.project,
        hook_event_name: "SessionStart",
        source: "startup",
      });
      expect(ss.transcript_path).toContain(join(sb.home, ".codex", "sessions"));
      expect(ss.transcript_path).toEndWith(`-${r1.sessionId}.jsonl`);
      expect(existsSync(ss.transcript_path)).toBe(true);
      expect(hookLog(sb, "UserPromptSubmit")[0]).toMatchObject({
        prompt: "first turn: add a note",
        session_id: r1.sessionId,
      });
      expect(hookLog(sb, "PreToolUse")[0]).toMatchObject({ tool_name: "apply_patch", tool_input: { command: patch } });

      const turns = agentTurns(server.requests);
      expect(turns.length).toBe(2);
      const items = conversationTexts(turns[1]);
      const at = (s: string) => items.findIndex((t) => t.text === s);
      expect(items[at("MARKER-SessionStart-1")]?.role).toBe("developer");
      expect(at("MARKER-SessionStart-1")).toBe(at("first turn: add a note") - 1);
      expect(at("MARKER-UserPromptSubmit-1")).toBe(at("first turn: add a note") + 1);
      expect(items[at("MARKER-PreToolUse-1")]?.role).toBe("developer");
      // MCP tools are deferred behind tool_search.
      expect(offeredTools(turns[0])).toContain("tool_search");
      expect(conversationTexts(turns[0]).some((t) => t.text.includes("- mcp__coffer"))).toBe(true);

      // exec resume: same session, source "resume", earlier developer messages replayed.
      server.clear();
      nextTool = { name: "tool_search", input: { query: "coffer recall" } };
      const r2 = assertRunOk(await runAgent(sb, "codex", { prompt: "second turn", resume: r1.sessionId }));
      expect(r2.sessionId).toBe(r1.sessionId);
      expect(hookLog(sb, "SessionStart")[1]).toMatchObject({ session_id: r1.sessionId, source: "resume" });
      const t2 = agentTurns(server.requests);
      const texts = conversationTexts(t2[0]).map((t) => t.text);
      for (const m of [
        "MARKER-SessionStart-1",
        "MARKER-UserPromptSubmit-1",
        "MARKER-SessionStart-2",
        "MARKER-UserPromptSubmit-2",
      ])
        expect(texts).toContain(m);
      // After tool_search the MCP tool's schema reaches the model.
      const out = (t2[1]!.body.input as any[]).find((i) => i.type === "tool_search_output");
      expect(out.tools[0]).toMatchObject({ type: "namespace", name: "mcp__coffer" });
      expect(out.tools[0].tools.map((t: any) => t.name)).toContain("coffer__recall");

      // The rollout stores hook context as developer messages.
      const rollout = readFileSync(ss.transcript_path, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(rollout[0].type).toBe("session_meta");
      expect(rollout).toContainEqual(
        expect.objectContaining({
          type: "response_item",
          payload: expect.objectContaining({
            type: "message",
            role: "developer",
            content: [{ type: "input_text", text: "MARKER-SessionStart-1" }],
          }),
        }),
      );
    },
    TEST_TIMEOUT_MS,
  );
});

describe("Codex SessionStart 'nothing' outputs", () => {
  test(
    "{} is accepted; an empty additionalContext adds an empty developer message",
    async () => {
      const devMessages = async (out: string) => {
        const sb = setup();
        writeJson(join(sb.home, ".codex", "hooks.json"), {
          hooks: { SessionStart: [{ hooks: [{ type: "command", command: `printf '%s' '${out}'`, timeout: 10 }] }] },
        });
        const run = assertRunOk(await runAgent(sb, "codex", { prompt: "hi" }));
        expect(run.stderr).toContain("hook: SessionStart Completed");
        return conversationTexts(agentTurns(server.requests)[0])
          .filter((t) => t.role === "developer")
          .map((t) => t.text);
      };
      const none = await devMessages("{}");
      const empty = await devMessages('{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}');
      expect(none).not.toContain("");
      expect(empty.length).toBe(none.length + 1);
      expect(empty).toContain("");
    },
    TEST_TIMEOUT_MS,
  );
});

describe("Gemini CLI (raw hooks)", () => {
  test(
    "hook stdin, <hook_context> placement, PreCompress every turn, resume, MCP only when trusted",
    async () => {
      const sb = setup();
      const settingsPath = join(sb.home, ".gemini", "settings.json");
      const settings = readJson(settingsPath);
      const g = (event: string, matcher?: string) => [
        {
          ...(matcher ? { matcher } : {}),
          hooks: [{ type: "command", command: cmd(event), name: `log-${event}`, timeout: 10000 }],
        },
      ];
      settings.hooks = {
        SessionStart: g("SessionStart"),
        BeforeAgent: g("BeforeAgent"),
        AfterTool: g("AfterTool", "read_file|write_file|replace"),
        PreCompress: g("PreCompress"),
        SessionEnd: g("SessionEnd"),
      };
      settings.mcpServers = {
        coffer: { command: process.execPath, args: [FAKE_MCP], env: { MCP_LOG: join(sb.root, "mcp.log") } },
      };
      writeJson(settingsPath, settings);

      nextTool = { name: "read_file", input: { file_path: "README.md" } };
      const r1 = assertRunOk(await runAgent(sb, "gemini", { prompt: "first turn: read the readme" }));
      expect(r1.sessionId).toMatch(/^[0-9a-f-]{36}$/);

      const [ss] = hookLog(sb, "SessionStart");
      expect(ss).toMatchObject({
        session_id: r1.sessionId,
        cwd: sb.project,
        hook_event_name: "SessionStart",
        source: "startup",
      });
      expect(ss.transcript_path).toContain(join(sb.home, ".gemini", "tmp"));
      // BeforeAgent's prompt carries the SessionStart context in front of the user's text.
      expect(hookLog(sb, "BeforeAgent")[0].prompt).toBe(
        "<hook_context>MARKER-SessionStart-1</hook_context>\n\nfirst turn: read the readme",
      );
      expect(hookLog(sb, "AfterTool")[0]).toMatchObject({
        tool_name: "read_file",
        tool_input: { file_path: "README.md" },
      });
      // PreCompress fires before every model call, with nothing to compress.
      expect(hookLog(sb, "PreCompress").map((h) => h.trigger)).toEqual(["auto", "auto"]);
      expect(hookLog(sb, "SessionEnd")[0]).toMatchObject({ reason: "exit" });

      const turns = agentTurns(server.requests);
      expect(turns.length).toBe(2);
      const texts = conversationTexts(turns[1]);
      expect(texts).toContainEqual({
        role: "user",
        text: "<hook_context>MARKER-SessionStart-1</hook_context>\n\nfirst turn: read the readme",
      });
      expect(texts).toContainEqual({ role: "user", text: "<hook_context>MARKER-BeforeAgent-1</hook_context>" });
      expect(texts.find((t) => t.role === "tool")!.text).toContain(
        "\\n\\n<hook_context>MARKER-AfterTool-1</hook_context>",
      );
      // An untrusted MCP server's tools are not offered in headless mode.
      expect(offeredTools(turns[0]).filter((t) => t.includes("coffer"))).toEqual([]);
      expect(readFileSync(join(sb.root, "mcp.log"), "utf8")).toContain('"tools/list"');

      // Resume: same session; the earlier user turn that carried hook context is NOT replayed.
      server.clear();
      settings.mcpServers.coffer.trust = true;
      writeJson(settingsPath, settings);
      const r2 = assertRunOk(await runAgent(sb, "gemini", { prompt: "second turn", resume: r1.sessionId }));
      expect(r2.sessionId).toBe(r1.sessionId);
      expect(hookLog(sb, "SessionStart")[1]).toMatchObject({ source: "resume" });
      const [t2] = agentTurns(server.requests);
      const all = conversationTexts(t2)
        .map((t) => t.text)
        .join("\n");
      expect(all).not.toContain("first turn: read the readme");
      expect(all).not.toContain("MARKER-SessionStart-1");
      expect(all).toContain("<hook_context>MARKER-SessionStart-2</hook_context>\n\nsecond turn");
      // A trusted MCP server's tools are offered as mcp_<server>_<tool>.
      expect(offeredTools(t2)).toContain("mcp_coffer_coffer__recall");
    },
    TEST_TIMEOUT_MS,
  );
});
