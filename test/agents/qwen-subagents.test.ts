/**
 * Qwen Code 0.24.4 subagents (the `agent` tool), real CLI, offline. What reaches a subagent:
 * Coffer's path trigger does (the subagent's own tool calls fire PostToolUse, whose context is
 * appended to its tool result); a SubagentStart hook's context does not (0.24.4 keeps it in the
 * subagent's template variables, `${hook_context}`, which the built-in agents' prompts never use),
 * in the foreground or in the background. So `coffer link qwen` installs no SubagentStart hook.
 * Recorded in docs/hosts-observed.md ("Qwen Code").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { agentTurns, conversationTexts, type ModelServer, type Reply, startModelServer } from "../kit";
import { BUNDLE_HEADING, coffer, seedStore, textOf } from "./coffer";
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

let server: ModelServer;
let script: Reply[] = [];
beforeAll(() => {
  server = startModelServer({ respond: () => script.shift() ?? { text: "OK." } });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

/** A linked sandbox with a path-triggered entry, plus a SubagentStart hook added by hand. */
async function linked(): Promise<AgentSandbox> {
  const sb = agentSandbox(server, { prefix: "coffer-qwen-sub-" });
  seedStore(sb);
  await Bun.write(join(sb.project, "deploy", "release.sh"), "#!/bin/sh\necho release\n");
  const remember = ["remember", DEPLOY_BODY, "--title", "Deploy scripts are POSIX sh", "--kind", "gotcha"];
  coffer(sb, [...remember, "--applies-to", "deploy/**"]);
  coffer(sb, ["link", "qwen"]);
  const path = join(sb.home, ".qwen", "settings.json");
  const doc = readJson(path);
  expect(doc.hooks.SubagentStart).toBeUndefined();
  const start = doc.hooks.SessionStart[0].hooks[0].command.replace("session-start", "subagent-start");
  doc.hooks.SubagentStart = [{ hooks: [{ type: "command", command: start, timeout: 10 }] }];
  writeJson(path, doc);
  return sb;
}

/** The requests the subagent made (its task is the last user text). */
function subagentTurns() {
  return agentTurns(server.requests).filter((r) =>
    conversationTexts(r).some((x) => x.role === "user" && x.text === SUB),
  );
}

describe("Qwen Code subagents", () => {
  for (const background of [false, true])
    test(
      `${background ? "background" : "foreground"} subagent: the path trigger reaches it, SubagentStart's bundle does not`,
      async () => {
        const sb = await linked();
        script = [
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
          {
            text: "Reading.",
            toolCall: { name: "read_file", input: { file_path: join(sb.project, "deploy", "release.sh") } },
          },
          { text: "Subagent done." },
          { text: "Done." },
          { text: "Done again." },
        ];
        server.clear();
        // yolo: no approval classifier call (a model request of its own) before the agent tool runs.
        assertRunOk(
          await runAgent(sb, "qwen", { prompt: "Please delegate this", extraArgs: ["--approval-mode", "yolo"] }),
        );
        const sub = subagentTurns();
        expect(sub.length).toBe(2);
        for (const r of sub) expect(textOf(r)).not.toContain(BUNDLE_HEADING);
        expect(textOf(sub[0])).not.toContain(DEPLOY_BODY);
        expect(textOf(sub[1])).toContain(DEPLOY_BODY);
        const events = JSON.parse(sb.run(["stats", "--json"]).stdout).hooks.by_event.map((e: any) => e.event);
        expect(events).toContain("subagent-start"); // it ran and answered; Qwen did not pass it on
        expect(events).toContain("tool");
      },
      TEST_TIMEOUT_MS,
    );
});
