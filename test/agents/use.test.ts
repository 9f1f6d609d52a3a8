/**
 * Did the agent use it? (issue 41) With the real Claude Code, Codex and Gemini CLIs, offline against
 * the fake model server, `coffer link`ed: the prompt hook delivers an entry with a command and the
 * model's scripted answer uses that command; once the session has settled, the use pass (run by
 * `coffer show`) records the delivery as used. An entry delivered alongside that the answer does not
 * touch is recorded as not used. An entry the model fetches through Coffer's MCP recall counts as
 * used even when its answer repeats nothing of it.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type ModelServer, type Reply, startModelServer } from "../kit";
import { coffer, hookErrors } from "./coffer";
import { type AgentName, agentSandbox, assertRunOk, cleanupSandboxes, runAgent, TEST_TIMEOUT_MS } from "./harness";

const PROMPT = "How does the release process deploy, and where do the release notes go?";
const COMMAND = "make release TARGET=prod";
const ANSWER = `Deploy with \`${COMMAND}\` from the repository root.`;

let server: ModelServer;
let script: Reply[] = [];
beforeAll(() => {
  server = startModelServer({ respond: () => script.shift() });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

describe("the use pass reads real agents' sessions", () => {
  for (const agent of ["claude", "codex", "gemini"] as AgentName[]) {
    test(
      `${agent}: the delivered command the model's answer uses is recorded as used`,
      async () => {
        const sb = agentSandbox(server, { prefix: `coffer-use-${agent}-` });
        const remember = (title: string, body: string) =>
          coffer(sb, ["remember", body, "--title", title, "--kind", "convention", "--json"]).json().id as string;
        const used = remember("Release process", `The release process deploys with \`${COMMAND}\`.`);
        const other = remember("Release notes", "Release notes go in docs/CHANGELOG.md, one section per version.");
        coffer(sb, ["link", agent]);
        coffer(sb, ["config", "set", "distill.settle_minutes", "0"]);
        server.clear();
        script = [{ text: ANSWER }];
        const run = assertRunOk(await runAgent(sb, agent, { prompt: PROMPT }));
        expect(hookErrors(sb, run)).toEqual([]);

        const use = (id: string) => coffer(sb, ["show", id, "--json"]).json().use;
        expect(use(used)).toMatchObject({ delivered: 1, judged: 1, used: 1, unknown: 0 });
        const o = use(other);
        // Delivered with it (the prompt asks about both), never used by the answer.
        expect(o.delivered).toBe(1);
        expect(o).toMatchObject({ judged: 1, used: 0, unknown: 0 });
      },
      TEST_TIMEOUT_MS,
    );
  }
});

describe("a recall through Coffer's MCP server counts as use", () => {
  const calls: Record<string, { tool: string; args: string[] }> = {
    claude: { tool: "mcp__coffer__coffer__recall", args: ["--allowedTools", "mcp__coffer__coffer__recall"] },
    gemini: { tool: "mcp_coffer_coffer__recall", args: ["--approval-mode", "yolo"] },
  };
  for (const agent of ["claude", "gemini"] as AgentName[]) {
    test(
      `${agent}: the delivered entry the model recalls is used (evidence: mcp)`,
      async () => {
        const sb = agentSandbox(server, { prefix: `coffer-use-mcp-${agent}-` });
        const id = coffer(sb, [
          "remember",
          "Deploys go out through the release pipeline after two approvals.",
          "--title",
          "Release process",
          "--kind",
          "convention",
          "--json",
        ]).json().id as string;
        coffer(sb, ["link", agent]);
        coffer(sb, ["config", "set", "distill.settle_minutes", "0"]);
        server.clear();
        const call = calls[agent]!;
        script = [
          ...(agent === "claude"
            ? [{ toolCall: { name: "ToolSearch", input: { query: `select:${call.tool}` } } }]
            : []),
          { toolCall: { name: call.tool, input: { query: "release process" } } },
          { text: "Found it." },
        ];
        const run = assertRunOk(await runAgent(sb, agent, { prompt: "Recall how we release", extraArgs: call.args }));
        expect(hookErrors(sb, run)).toEqual([]);
        expect(coffer(sb, ["show", id, "--json"]).json().use).toMatchObject({ delivered: 1, judged: 1, used: 1 });
        const db = new Database(join(sb.cofferHome, "state", "index.db"), { readonly: true });
        try {
          expect(db.query("SELECT verdict, why FROM delivery_use WHERE entry_id = ?").all(id)).toEqual([
            { verdict: "used", why: "mcp" },
          ]);
        } finally {
          db.close();
        }
      },
      TEST_TIMEOUT_MS,
    );
  }
});
