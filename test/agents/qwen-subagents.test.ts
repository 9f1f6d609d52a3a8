/**
 * Qwen Code 0.24.4 subagents (the `agent` tool), real CLI, offline. A SubagentStart hook's context
 * never reaches the subagent (0.24.4 keeps it in the subagent's template variables,
 * `${hook_context}`, which the built-in agents' prompts never use), in the foreground or in the
 * background, so `coffer link qwen` installs no SubagentStart hook. The subagent's own tool calls
 * fire PostToolUse with its `agent_id` (and the parent's `session_id`), whose context is appended
 * to its tool result: the subagent's first tool result of any tool carries its bundle (the rules
 * and the parent's routed memory), once, and path triggers reach it too; the main agent's requests
 * are what they were. Recorded in docs/hosts-observed.md ("Qwen Code").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentTurns, conversationTexts, type ModelServer, type Reply, startModelServer } from "../kit";
import { BUNDLE_HEADING, coffer, count, ENTRY_BODY, PROMPT_1, seedStore, textOf } from "./coffer";
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

const SUB = "Find out how the release process deploys";
const DEPLOY_BODY = "Deploy scripts must stay POSIX sh: CI runs them under dash";

/** The requests the subagent made (its task is a user text). */
const isSub = (r: Parameters<typeof conversationTexts>[0]) =>
  conversationTexts(r).some((x) => x.role === "user" && x.text === SUB);

let server: ModelServer;
/** The replies of the main agent and of the subagent, each in its order (a background subagent runs alongside). */
let mainScript: Reply[] = [];
let subScript: Reply[] = [];
beforeAll(() => {
  server = startModelServer({
    respond: (r) => (isSub(r) ? subScript.shift() : mainScript.shift()) ?? { text: "OK." },
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

/**
 * A linked sandbox (auto memory off: no extraction request among the turns) with a path-triggered
 * entry, and a second PostToolUse hook that keeps every payload Qwen sends; `subagentStart` adds a
 * SubagentStart hook by hand.
 */
async function linked(opts: { subagentStart?: boolean } = {}): Promise<{ sb: AgentSandbox; payloads: string }> {
  const sb = agentSandbox(server, { prefix: "coffer-qwen-sub-" });
  seedStore(sb);
  await Bun.write(join(sb.project, "deploy", "release.sh"), "#!/bin/sh\necho release\n");
  const remember = ["remember", DEPLOY_BODY, "--title", "Deploy scripts are POSIX sh", "--kind", "gotcha"];
  coffer(sb, [...remember, "--applies-to", "deploy/**"]);
  coffer(sb, ["link", "qwen", "--native-memory", "off"]);
  const path = join(sb.home, ".qwen", "settings.json");
  const doc = readJson(path);
  expect(doc.hooks.SubagentStart).toBeUndefined();
  expect(doc.hooks.PostToolUse[0].matcher).toBeUndefined(); // every tool
  const payloads = join(sb.home, "post-tool-use.jsonl");
  doc.hooks.PostToolUse.push({ hooks: [{ type: "command", command: `(cat; echo) >> '${payloads}'`, timeout: 10 }] });
  if (opts.subagentStart) {
    const start = doc.hooks.SessionStart[0].hooks[0].command.replace("session-start", "subagent-start");
    doc.hooks.SubagentStart = [{ hooks: [{ type: "command", command: start, timeout: 10 }] }];
  }
  writeJson(path, doc);
  return { sb, payloads };
}

/** The main agent delegates; the subagent globs the project, reads the deploy script, and ends. */
async function delegate(sb: AgentSandbox, background: boolean) {
  mainScript = [
    {
      text: "Delegating.",
      toolCall: {
        name: "agent",
        input: {
          description: "Check release",
          prompt: SUB,
          subagent_type: "general-purpose",
          run_in_background: background,
        },
      },
    },
    { text: "Done." },
    { text: "Done again." },
  ];
  subScript = [
    { text: "Listing.", toolCall: { name: "glob", input: { pattern: "**/*.md", path: sb.project } } },
    {
      text: "Reading.",
      toolCall: { name: "read_file", input: { file_path: join(sb.project, "deploy", "release.sh") } },
    },
    { text: "Subagent done." },
  ];
  server.clear();
  // yolo: no approval classifier call (a model request of its own) before the agent tool runs.
  assertRunOk(await runAgent(sb, "qwen", { prompt: PROMPT_1, extraArgs: ["--approval-mode", "yolo"] }));
  const turns = agentTurns(server.requests);
  return { sub: turns.filter(isSub), main: turns.filter((r) => !isSub(r)) };
}

describe("Qwen Code subagents", () => {
  for (const background of [false, true])
    test(
      `${background ? "background" : "foreground"} subagent: its first tool result carries its bundle once, path triggers reach it, the main agent's requests are unchanged`,
      async () => {
        const { sb, payloads } = await linked();
        const { sub, main } = await delegate(sb, background);
        expect(sub.length).toBe(3);
        // Before any tool: nothing (the session-start bundle is the main agent's system prompt).
        expect(textOf(sub[0])).not.toContain(BUNDLE_HEADING);
        expect(textOf(sub[0])).not.toContain(ENTRY_BODY);
        // After glob: the rules and the parent's routed entry, in the tool result.
        const listed = conversationTexts(sub[1]).filter((x) => x.text.includes(BUNDLE_HEADING));
        expect(listed.length).toBe(1);
        expect(listed[0]!.role).not.toBe("system");
        expect(count(textOf(sub[1]), BUNDLE_HEADING)).toBe(1);
        expect(count(textOf(sub[1]), ENTRY_BODY)).toBe(1);
        // After read_file: the path-triggered entry; the bundle is not sent again.
        expect(count(textOf(sub[2]), DEPLOY_BODY)).toBe(1);
        expect(count(textOf(sub[2]), BUNDLE_HEADING)).toBe(1);
        expect(count(textOf(sub[2]), ENTRY_BODY)).toBe(1);
        // The main agent: the bundle once (system prompt), the routed entry once, nothing of the subagent's.
        expect(main.length).toBeGreaterThanOrEqual(2);
        for (const r of main) {
          expect(count(textOf(r), BUNDLE_HEADING)).toBe(1);
          expect(count(textOf(r), ENTRY_BODY)).toBe(1);
          expect(textOf(r)).not.toContain(DEPLOY_BODY);
        }
        // How a subagent's tool event is told apart: its agent_id, under the parent's session_id.
        const seen = readFileSync(payloads, "utf8")
          .split("\n")
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l));
        const subCalls = seen.filter((p) => p.agent_id);
        expect(subCalls.map((p) => p.tool_name)).toEqual(["glob", "read_file"]);
        const mainCalls = seen.filter((p) => !p.agent_id);
        expect(mainCalls.map((p) => p.tool_name)).toEqual(["agent"]);
        expect(new Set(seen.map((p) => p.session_id)).size).toBe(1);
        const stats = JSON.parse(sb.run(["stats", "--json"]).stdout).hooks.by_event;
        expect(stats.map((e: any) => e.event)).toContain("tool");
      },
      TEST_TIMEOUT_MS,
    );

  test(
    "a SubagentStart hook's context does not reach the subagent",
    async () => {
      const { sb } = await linked({ subagentStart: true });
      const { sub } = await delegate(sb, false);
      expect(sub.length).toBe(3);
      expect(textOf(sub[0])).not.toContain(BUNDLE_HEADING);
      expect(textOf(sub[0])).not.toContain(ENTRY_BODY);
      const events = JSON.parse(sb.run(["stats", "--json"]).stdout).hooks.by_event.map((e: any) => e.event);
      expect(events).toContain("subagent-start"); // it ran and answered; Qwen did not pass it on
    },
    TEST_TIMEOUT_MS,
  );
});
