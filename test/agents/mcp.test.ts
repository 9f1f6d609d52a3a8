/**
 * Coffer's MCP server (`coffer serve --stdio`, registered by `coffer link`) inside the real agents:
 * the recorded model requests offer Coffer's tools, and a tool call reaches Coffer's store.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  agentTurns,
  conversationTexts,
  endsWithToolResult,
  type ModelServer,
  offeredTools,
  type Reply,
  startModelServer,
} from "../kit";
import { coffer, hookErrors, seedStore, textOf } from "./coffer";
import { agentSandbox, assertRunOk, cleanupSandboxes, runAgent, TEST_TIMEOUT_MS } from "./harness";

const TOOLS = [
  "coffer__recall",
  "coffer__remember",
  "coffer__read",
  "coffer__list",
  "coffer__forget",
  "coffer__set_handoff",
  "coffer__resume",
];

let server: ModelServer;
/** Replies for the agent's successive model calls; plain "OK." once it is empty. */
let script: Reply[] = [];
beforeAll(() => {
  server = startModelServer({ respond: () => script.shift() });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

describe("MCP inside the real agents", () => {
  test(
    "Claude Code lists Coffer's tools as deferred tools, and a recall call returns the stored entry",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      coffer(sb, ["link", "claude"]);
      server.clear();
      script = [
        { toolCall: { name: "ToolSearch", input: { query: "select:mcp__coffer__coffer__recall" } } },
        { toolCall: { name: "mcp__coffer__coffer__recall", input: { query: "release process" } } },
        { text: "Found it." },
      ];
      const run = assertRunOk(
        await runAgent(sb, "claude", {
          prompt: "Recall how we release",
          extraArgs: ["--allowedTools", "mcp__coffer__coffer__recall"],
        }),
      );
      expect(hookErrors(sb, run)).toEqual([]);
      const turns = agentTurns(server.requests);
      const listing = conversationTexts(turns[0]).find((t) =>
        t.text.includes("deferred tools are now available"),
      )!.text;
      for (const tool of TOOLS) expect(listing).toContain(`\nmcp__coffer__${tool}`);
      // After ToolSearch the schema is loaded, and the call's result is Coffer's recall output.
      expect(turns.length).toBe(3);
      expect(JSON.stringify(turns[1]!.body)).toContain("mcp__coffer__coffer__recall");
      const result = conversationTexts(turns[2])
        .filter((t) => t.role === "tool")
        .map((t) => JSON.stringify(t.text))
        .join("\n");
      expect(result).toContain("make release");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Claude Code saves an entry with keywords through coffer__remember; a later prompt that shares only a keyword with it routes it",
    async () => {
      const sb = agentSandbox(server);
      coffer(sb, ["link", "claude"]);
      server.clear();
      const text = "Customer invoices are rendered as PDF by a billing worker from invoice.hbs";
      script = [
        { toolCall: { name: "ToolSearch", input: { query: "select:mcp__coffer__coffer__remember" } } },
        {
          toolCall: {
            name: "mcp__coffer__coffer__remember",
            input: { text, title: "Invoice PDFs", kind: "fact", keywords: ["Quillpress", "receipt layout"] },
          },
        },
        { text: "Saved." },
      ];
      const first = assertRunOk(
        await runAgent(sb, "claude", {
          prompt: "Remember how invoices are made",
          extraArgs: ["--allowedTools", "mcp__coffer__coffer__remember"],
        }),
      );
      expect(hookErrors(sb, first)).toEqual([]);
      // The tool description asked for keywords; the call stored them with the entry.
      const listing = JSON.stringify(agentTurns(server.requests)[1]!.body);
      expect(listing).toContain("other words to ask for it by");
      const [entry] = coffer(sb, ["list", "--json"]).json().entries;
      const shown = coffer(sb, ["show", entry.id, "--json"]).json();
      expect(shown).toMatchObject({ title: "Invoice PDFs", keywords: ["Quillpress", "receipt layout"], source: "mcp" });
      expect(shown.actor).toStartWith("agent:");

      // A new session: "Quillpress" is in no word of the entry but its keywords.
      const prompt = "Where is Quillpress configured?";
      const words = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g)!;
      for (const w of words(prompt)) expect(words(`${text} Invoice PDFs`)).not.toContain(w);
      server.clear();
      script = [{ text: "OK." }];
      const second = assertRunOk(await runAgent(sb, "claude", { prompt }));
      expect(second.sessionId).not.toBe(first.sessionId);
      expect(hookErrors(sb, second)).toEqual([]);
      const context = textOf(agentTurns(server.requests)[0]);
      const routed = context.slice(context.indexOf("UserPromptSubmit hook additional context:"));
      expect(routed).toContain("billing worker from invoice.hbs");

      // The same store without the keywords routes nothing for that prompt (the keyword did it).
      const bare = agentSandbox(server);
      coffer(bare, ["remember", text, "--title", "Invoice PDFs", "--kind", "fact"]);
      const hook = bare.run(["hook", "prompt", "--agent", "claude"], {
        cwd: bare.project,
        stdin: JSON.stringify({ session_id: "s-1", cwd: bare.project, hook_event_name: "UserPromptSubmit", prompt }),
      });
      expect(hook.stdout.trim()).toBe("{}");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Codex names the mcp__coffer namespace and tool_search returns Coffer's tools",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      coffer(sb, ["link", "codex"]);
      server.clear();
      script = [
        { toolCall: { name: "tool_search", input: { query: "coffer memory recall remember" } } },
        { text: "Found them." },
      ];
      const run = assertRunOk(await runAgent(sb, "codex", { prompt: "Which memory tools do you have?" }));
      expect(hookErrors(sb, run)).toEqual([]);
      const turns = agentTurns(server.requests);
      expect(
        conversationTexts(turns[0]).some((t) => /Deferred tool namespaces:[\s\S]*- mcp__coffer\n/.test(t.text)),
      ).toBe(true);
      expect(offeredTools(turns[0])).toContain("tool_search");
      expect(endsWithToolResult(turns[1])).toBe(true);
      const out = (turns[1]!.body.input as any[]).find((i) => i.type === "tool_search_output");
      const ns = out.tools.find((t: any) => t.name === "mcp__coffer");
      expect(ns).toBeDefined();
      const names = ns.tools.map((t: any) => t.name);
      expect(names).toContain("coffer__recall");
      expect(names).toContain("coffer__remember");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Gemini CLI offers mcp_coffer_* tools (yolo approval: headless default mode hides untrusted MCP servers) and a recall call returns the entry",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      coffer(sb, ["link", "gemini"]);
      server.clear();
      script = [
        { toolCall: { name: "mcp_coffer_coffer__recall", input: { query: "release process" } } },
        { text: "Found it." },
      ];
      const run = assertRunOk(
        await runAgent(sb, "gemini", { prompt: "Recall how we release", extraArgs: ["--approval-mode", "yolo"] }),
      );
      expect(hookErrors(sb, run)).toEqual([]);
      const turns = agentTurns(server.requests);
      for (const tool of TOOLS) expect(offeredTools(turns[0])).toContain(`mcp_coffer_${tool}`);
      expect(turns.length).toBe(2);
      const result = conversationTexts(turns[1])
        .filter((t) => t.role === "tool")
        .map((t) => t.text)
        .join("\n");
      expect(result).toContain("make release");
    },
    TEST_TIMEOUT_MS,
  );
});
