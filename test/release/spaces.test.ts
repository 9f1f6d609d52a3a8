/**
 * An installed binary whose path has a space and a quote in it (as under "C:\Users\Ada Lovelace"
 * or "~/My Tools"): `coffer link` quotes it for the shell each real agent runs hooks with, and
 * Claude Code's, Codex's and Gemini CLI's hook runners all start it and deliver the bundle.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { expectBundle, hookErrors, PROMPT_1, seedStore } from "../agents/coffer";
import {
  type AgentName,
  agentSandbox,
  assertRunOk,
  cleanupSandboxes,
  readJson,
  runAgent,
  TEST_TIMEOUT_MS,
} from "../agents/harness";
import { agentTurns, BIN, type ModelServer, startModelServer } from "../kit";

let server: ModelServer;
beforeAll(() => {
  server = startModelServer({ respond: () => undefined });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

describe("a binary path with a space and a quote", () => {
  for (const agent of ["claude", "codex", "gemini"] as AgentName[]) {
    test(
      `${agent}: link quotes it, the hook runner starts it, the bundle arrives`,
      async () => {
        const sb = agentSandbox(server, { prefix: "coffer-spaces-" });
        seedStore(sb);
        const dir = join(sb.root, "My Tools", "it's here");
        mkdirSync(dir, { recursive: true });
        const bin = join(dir, "coffer");
        copyFileSync(BIN, bin);
        const link = Bun.spawnSync([bin, "link", agent], { cwd: sb.project, env: sb.env, stderr: "pipe" });
        expect(link.stderr.toString()).toBe("");
        expect(link.exitCode).toBe(0);
        if (agent === "claude") {
          const cmd = readJson(join(sb.home, ".claude", "settings.json")).hooks.SessionStart[0].hooks[0].command;
          expect(cmd).toBe(`'${bin.replace("'", "'\\''")}' hook session-start --agent claude`);
        }
        server.clear();
        const run = assertRunOk(await runAgent(sb, agent, { prompt: PROMPT_1 }));
        expect(hookErrors(sb, run)).toEqual([]);
        const turns = agentTurns(server.requests);
        expectBundle(turns[turns.length - 1]);
      },
      TEST_TIMEOUT_MS,
    );
  }
});
