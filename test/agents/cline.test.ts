/**
 * Coffer inside the real Cline CLI (pinned in harness.ts), offline: `cline auth` points its
 * OpenAI-compatible provider at the fake server. `coffer link cline` (real command, real files)
 * -> `cline "<task>" --json` -> what reached the model. Cline 3.0.65 runs no hook that can inject
 * before the first model call of a task (TaskStart is detached; UserPromptSubmit fires only for a
 * follow-up message, which needs the interactive TUI), so the rules bundle and the entries arrive
 * with the first tool result: that is what is checked. Then the finished session is distilled by
 * a configured model, and `coffer unlink cline` leaves nothing of Coffer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTurns, conversationTexts, type ModelServer, offeredTools, type Reply, startModelServer } from "../kit";
import {
  BUNDLE_HEADING,
  coffer,
  cofferAsync,
  count,
  DEPLOY_BODY,
  expectNoCoffer,
  GLOBAL_RULE,
  PROJECT_RULE,
  rememberDeployGotcha,
  seedStore,
  textOf,
} from "./coffer";
import { type AgentSandbox, agentSandbox, cleanupSandboxes, ensureAgent, TEST_TIMEOUT_MS } from "./harness";

const INSIGHT = { kind: "decision", title: "Deploy scripts stay POSIX sh", body: "CI runs deploy scripts under dash." };
const DISTILL_MARK = "You read the transcript of one coding-agent session";

let server: ModelServer;
let script: Reply[] = [];
beforeAll(() => {
  server = startModelServer({
    respond: (req) => (req.raw.includes(DISTILL_MARK) ? { text: JSON.stringify([INSIGHT]) } : script.shift()),
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

type ClineRun = { stdout: string; stderr: string; sessionId?: string };

async function cline(sb: AgentSandbox, args: string[]): Promise<ClineRun> {
  const exe = await ensureAgent("cline");
  const p = Bun.spawn([exe, ...args], {
    cwd: sb.project,
    env: sb.agentEnv,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), 120_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  clearTimeout(timer);
  if (code !== 0)
    throw new Error(`cline ${args[0]} exited ${code}\nstdout:\n${stdout.slice(-3000)}\nstderr:\n${stderr}`);
  return { stdout, stderr };
}

/** A sandbox whose Cline talks to the fake server (`cline auth`, as a user would set it up). */
async function clineSandbox(): Promise<AgentSandbox> {
  const sb = agentSandbox(server, { prefix: "coffer-cline-" });
  await cline(sb, ["auth", "-p", "openai", "-k", "test-not-a-real-key", "-m", "gpt-5.5", "-b", `${server.url}/v1`]);
  return sb;
}

/** One task, headless; the session id is the newest folder under ~/.cline/data/sessions. */
async function task(sb: AgentSandbox, prompt: string) {
  server.clear();
  const run = await cline(sb, [prompt, "--json"]);
  const result = run.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l))
    .find((e) => e.type === "run_result");
  expect(result?.finishReason).toBe("completed");
  const log = join(sb.cofferHome, "state", "hook.log");
  expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("");
  const turns = agentTurns(server.requests);
  expect(turns.length).toBeGreaterThan(0);
  return { run, turns, last: turns[turns.length - 1] };
}

const readTool = (sb: AgentSandbox): Reply => ({
  toolCall: { name: "read_files", input: { files: [{ path: join(sb.project, "deploy", "release.sh") }] } },
});

describe("Cline CLI + coffer link cline", () => {
  test(
    "the first tool result brings the bundle and the path-triggered entry, once; unlink leaves no Coffer",
    async () => {
      const sb = await clineSandbox();
      seedStore(sb);
      const id = await rememberDeployGotcha(sb);
      const mcpFile = join(sb.home, ".cline", "data", "settings", "cline_mcp_settings.json");
      coffer(sb, ["link", "cline"]);
      expect(existsSync(join(sb.home, ".cline", "hooks", "PostToolUse.sh"))).toBe(true);

      script = [readTool(sb), { text: "Done." }, readTool(sb), { text: "Done again." }];
      const t = await task(sb, "Make the release script nicer, please.");
      expect(t.turns.length).toBe(2);
      expect(textOf(t.turns[0])).not.toContain("via Coffer");
      const hook = conversationTexts(t.last).find((x) => x.text.includes(BUNDLE_HEADING))!;
      // Cline puts hook context in a user message after the tool result.
      expect(hook.role).toBe("user");
      expect(hook.text).toStartWith('<hook_context source="PostToolUse" tool_name="read__files"');
      expect(hook.text).toContain(`- ${PROJECT_RULE}`);
      expect(hook.text).toContain(`- ${GLOBAL_RULE}`);
      expect(hook.text).toContain(`[${id.slice(-8)}]`);
      expect(count(textOf(t.last), DEPLOY_BODY)).toBe(1);
      // Coffer's MCP tools are offered (Cline names them <server>__<tool>).
      expect(JSON.stringify(t.last?.body?.tools ?? [])).toContain("coffer__coffer__recall");

      // A second task is a new session: the bundle again, with the entry.
      const t2 = await task(sb, "Look at the release script once more.");
      expect(count(textOf(t2.last), BUNDLE_HEADING)).toBe(1);
      expect(count(textOf(t2.last), DEPLOY_BODY)).toBe(1);

      coffer(sb, ["unlink", "cline"]);
      expect(existsSync(join(sb.home, ".cline", "hooks", "PostToolUse.sh"))).toBe(false);
      expect(existsSync(join(sb.home, ".cline", "hooks", "UserPromptSubmit.sh"))).toBe(false);
      expect(existsSync(mcpFile) ? JSON.stringify(JSON.parse(readFileSync(mcpFile, "utf8"))) : "").not.toContain(
        "coffer",
      );
      script = [readTool(sb), { text: "Done." }];
      const t3 = await task(sb, "And one last look at the release script.");
      for (const r of t3.turns) expectNoCoffer(r);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a finished Cline session is distilled (whole-file JSON transcript, Coffer's context left out)",
    async () => {
      const sb = await clineSandbox();
      seedStore(sb);
      await Bun.write(join(sb.project, "deploy", "release.sh"), "#!/bin/sh\necho release\n");
      coffer(sb, ["link", "cline"]);
      script = [readTool(sb), { text: "The deploy script must stay POSIX sh: CI runs it under dash." }];
      await task(sb, "Why does the deploy script avoid bash arrays?");
      const sessions = coffer(sb, ["distill", "list", "--agent", "cline", "--json"]).json().sessions as {
        session_id: string;
      }[];
      expect(sessions.length).toBe(1);
      // A configured OpenAI-compatible model (Cline has no headless mode without tools to offer).
      writeFileSync(
        join(sb.cofferHome, "config.toml"),
        `[model]\nprovider = "openai"\nmodel = "gpt-fake"\nbase_url = "${server.url}/v1"\napi_key_env = "FAKE_MODEL_API_KEY"\n`,
      );
      server.clear();
      const out = (
        await cofferAsync(sb, ["distill", "run", sessions[0]!.session_id, "--agent", "cline", "--json"], {
          env: sb.agentEnv,
        })
      ).json();
      expect(out.results[0].outcome).toBe("distilled");
      const sent = server.requests.map((r) => r.raw).join("\n");
      expect(sent).toContain("Transcript of a cline session in project proj");
      expect(sent).toContain("Why does the deploy script avoid bash arrays?");
      expect(sent).toContain("CI runs it under dash");
      expect(sent).not.toContain(BUNDLE_HEADING);
      expect(sent).not.toContain("hook_context");
      const list = coffer(sb, ["list", "--json"]).json();
      const entries: any[] = Array.isArray(list) ? list : (list.entries ?? []);
      expect(entries.some((e) => e.title === INSIGHT.title)).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "why Cline is no summariser: with its system prompt replaced and approval off, its tools and MCP tools are still offered",
    async () => {
      const sb = await clineSandbox();
      seedStore(sb);
      coffer(sb, ["link", "cline"]);
      server.clear();
      script = [];
      await cline(sb, [
        "Summarise this conversation, please.",
        "--json",
        "-s",
        "SUMMARISER-SYSTEM-MARK",
        "--auto-approve",
        "false",
      ]);
      const turn = agentTurns(server.requests)[0]!;
      expect(conversationTexts(turn)[0]!.text).toContain("SUMMARISER-SYSTEM-MARK");
      const tools = offeredTools(turn);
      for (const tool of ["read_files", "run_commands", "apply_patch"]) expect(tools).toContain(tool);
      expect(tools.some((t) => t.includes("coffer__"))).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );
});
