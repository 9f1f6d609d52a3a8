/**
 * Zero-configuration distillation with the real, pinned CLIs against the fake model server: after
 * `coffer link <host>` and with no [model] in config.toml, `coffer distill run` runs the agent's own
 * CLI headless (found in ~/.local/bin, one of the usual install places, not on PATH) and the
 * insights the server returns become entries. Inside that run no hook fires (a spy hook next to
 * Coffer's stays silent, Coffer's usage records do not move, the request carries none of Coffer's
 * context), no tool and no MCP server is offered, the system prompt is Coffer's; a second sweep
 * does not distil Coffer's own session (Gemini keeps one: it is recorded as skipped); the CLI's
 * token counts land in the ledger. The bad cases use fake CLIs: test/distill/agent-cli.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentTurns, conversationText, type ModelServer, offeredTools, startModelServer } from "../kit";
import { BUNDLE_HEADING, coffer, cofferAsync, GLOBAL_RULE, hookErrors, PROJECT_RULE, seedStore } from "./coffer";
import {
  type AgentName,
  type AgentSandbox,
  agentSandbox,
  assertRunOk,
  cleanupSandboxes,
  ensureAgent,
  listFiles,
  readJson,
  runAgent,
  TEST_TIMEOUT_MS,
  writeJson,
} from "./harness";

const MARKER = "[coffer headless distillation run: not a user session]";
const PROMPT = "We decided to move the release process to pnpm workspaces: deploy with pnpm -r publish from now on.";
const AGENT_REPLY = "Understood: releases now publish every workspace package with pnpm -r publish.";
const INSIGHT = {
  kind: "decision",
  title: "Releases publish with pnpm -r publish",
  body: "The release process moved to pnpm workspaces; deploy with pnpm -r publish.",
};
const COMMAND: Partial<Record<AgentName, string>> = { claude: "claude -p", codex: "codex exec", gemini: "gemini -p" };

let server: ModelServer;
beforeAll(() => {
  server = startModelServer({
    respond: (req) => (req.raw.includes(MARKER) ? { text: JSON.stringify([INSIGHT]) } : { text: AGENT_REPLY }),
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

/**
 * A sandbox under the temp folder, as every test's: a HOME below /tmp, which is writable by
 * others (Gemini CLI ignores a system settings file there: the hooks-off settings of its run must
 * hold anyway, issue 37 bug 8).
 */
function plainSandbox(): AgentSandbox {
  const sb = agentSandbox(server, { prefix: "coffer-headless-" });
  expect(sb.root.startsWith(tmpdir())).toBe(true);
  return sb;
}

/** A hook of someone else's beside Coffer's, on the prompt event: it logs each time it runs. */
function addSpyHook(sb: AgentSandbox, agent: AgentName): () => number {
  const log = join(sb.root, "spy.log");
  const command = `echo run >> '${log}'; echo '{}'`;
  if (agent === "claude" || agent === "codex") {
    const file = agent === "claude" ? join(sb.home, ".claude", "settings.json") : join(sb.home, ".codex", "hooks.json");
    const doc = readJson(file);
    doc.hooks.UserPromptSubmit.push({ hooks: [{ type: "command", command, timeout: 10 }] });
    writeJson(file, doc);
  } else {
    const file = join(sb.home, ".gemini", "settings.json");
    const doc = readJson(file);
    doc.hooks.BeforeAgent.push({ hooks: [{ type: "command", command, name: "spy", timeout: 10000 }] });
    writeJson(file, doc);
  }
  return () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").length : 0);
}

const ledger = (sb: AgentSandbox) =>
  readFileSync(join(sb.cofferHome, "state", "distilled.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

async function hookEvents(sb: AgentSandbox): Promise<number> {
  return (await cofferAsync(sb, ["stats", "--json"])).json().hooks.events;
}

async function zeroConfig(agent: AgentName): Promise<void> {
  const sb = plainSandbox();
  seedStore(sb); // rules and an entry: a hook that fired would inject them
  const exe = await ensureAgent(agent);
  mkdirSync(join(sb.home, ".local", "bin"), { recursive: true });
  symlinkSync(exe, join(sb.home, ".local", "bin", agent));

  const link = coffer(sb, ["link", agent]);
  expect(link.stdout).toContain(
    `Distillation will use \`${COMMAND[agent]}\` (${agent === "claude" ? "your Claude plan" : agent === "codex" ? "your ChatGPT plan or OpenAI key" : "your Gemini account"}), within 200,000 tokens a day; \`coffer config set model.provider none\` turns it off`,
  );
  expect(existsSync(join(sb.cofferHome, "config.toml"))).toBe(false);
  const spy = addSpyHook(sb, agent);

  // A real session, with Coffer's hooks (and the spy) running as usual.
  server.clear();
  const run = assertRunOk(await runAgent(sb, agent, { prompt: PROMPT }));
  expect(hookErrors(sb, run)).toEqual([]);
  expect(server.requests.map((r) => r.raw).join("\n")).toContain(BUNDLE_HEADING);
  expect(spy()).toBeGreaterThan(0);
  const spyBefore = spy();
  const eventsBefore = await hookEvents(sb);

  // Distil it with nothing configured: the agent's own CLI, headless.
  server.clear();
  // A user who distrusts folders by default: Coffer's own run folder is trusted all the same.
  const env = { ...sb.agentEnv, GEMINI_CLI_TRUST_WORKSPACE: "false" };
  const out = (await cofferAsync(sb, ["distill", "run", run.sessionId!, "--json"], { env })).json();
  expect(out.results[0].outcome).toBe("distilled");
  const turns = agentTurns(server.requests);
  expect(turns.length).toBe(1);
  const req = turns[0]!;
  const text = conversationText(req);
  expect(text).toContain(MARKER);
  expect(text).toContain("pnpm workspaces");
  expect(text).toContain(AGENT_REPLY);
  // (The seeded entry is listed after the transcript on purpose: an insight may supersede it.)
  for (const injected of [BUNDLE_HEADING, "via Coffer", PROJECT_RULE, GLOBAL_RULE, "coffer__"])
    expect(text).not.toContain(injected);
  expect(req.raw).not.toContain("MARKER-"); // no other hook's context either
  expect(req.raw).toContain("You read the transcript of one coding-agent session"); // Coffer's system prompt
  // No tools (Codex always offers apply_patch; the run's sandbox is read-only), no MCP server.
  expect(offeredTools(req)).toEqual(agent === "codex" ? ["apply_patch"] : []);
  expect(req.raw).not.toContain("mcp__coffer");

  // The hooks did not fire inside the run.
  expect(spy()).toBe(spyBefore);
  expect(await hookEvents(sb)).toBe(eventsBefore);
  expect(existsSync(join(sb.cofferHome, "state", "hook.log"))).toBe(false);
  expect(existsSync(join(sb.cofferHome, "queue", "session-queue.json"))).toBe(false);

  // Insights became entries; usage as the CLI reported it landed in the ledger.
  const list = coffer(sb, ["list", "--json"]).json();
  const entries: any[] = Array.isArray(list) ? list : (list.entries ?? []);
  const hit = entries.find((e) => e.title === INSIGHT.title);
  expect(hit).toBeDefined();
  expect(JSON.stringify(coffer(sb, ["show", hit.id, "--json"]).json())).toContain(`agent:${agent}`);
  const rec = ledger(sb).at(-1);
  expect(rec).toMatchObject({ outcome: "distilled", session_id: run.sessionId, tokens_estimated: false });
  expect(rec.model).toStartWith(
    agent === "claude" ? "claude-code/" : agent === "codex" ? "codex/" : "gemini-cli/gemini-3.5-flash-lite",
  );
  expect(rec.input_tokens).toBeGreaterThan(200);
  expect(rec.output_tokens).toBe(5); // what the fake server reports for every answer
  console.log(
    `[headless] ${agent}: ${rec.model} reported ${rec.input_tokens} input + ${rec.output_tokens} output tokens${rec.cost_usd !== undefined ? `, $${rec.cost_usd}` : ""}, ${rec.duration_ms} ms`,
  );

  // A second sweep sends nothing: the session is done, and Coffer's own run is never distilled.
  writeFileSync(join(sb.cofferHome, "config.toml"), "[distill]\nsettle_minutes = 0\n");
  server.clear();
  await cofferAsync(sb, ["distill", "sweep", "--json"], { env });
  expect(agentTurns(server.requests)).toEqual([]);
  const own = ownTranscripts(sb, agent);
  if (agent === "gemini") {
    // Gemini keeps a chat for every run: recognised by its first line, recorded as skipped.
    expect(own.length).toBe(1);
    const id = /-([0-9a-f]{8})\.jsonl?$/.exec(own[0]!)?.[1];
    expect(id).toBeDefined();
    const skip = (await cofferAsync(sb, ["distill", "run", id!, "--agent", "gemini", "--json"], { env })).json();
    expect(skip.results.length).toBe(1);
    expect(skip.results[0].outcome).toBe("skipped");
    expect(agentTurns(server.requests)).toEqual([]);
    expect(ledger(sb).at(-1)).toMatchObject({ outcome: "skipped", reason: "coffer_run" });
  } else expect(own).toEqual([]); // --no-session-persistence / --ephemeral: no transcript at all
}

/** Transcripts of the headless run (its cwd is Coffer's run folder). */
function ownTranscripts(sb: AgentSandbox, agent: AgentName): string[] {
  if (agent === "gemini") return listFiles(join(sb.home, ".gemini", "tmp", "run", "chats"));
  if (agent === "claude")
    return listFiles(join(sb.home, ".claude", "projects")).filter((f) => f.includes("-headless-run"));
  return listFiles(join(sb.home, ".codex", "sessions")).filter((f) => readFileSync(f, "utf8").includes(MARKER));
}

describe("zero configuration: the linked agent's own CLI distils", () => {
  for (const agent of ["claude", "codex", "gemini"] as const)
    test(
      `${agent}: link, distil with no [model], no hooks inside, usage in the ledger, own run never distilled`,
      () => zeroConfig(agent),
      TEST_TIMEOUT_MS,
    );
});

describe("offline: the real CLI cannot reach its model", () => {
  test(
    "claude: 'API Error: Connection refused' is a network failure that never uses up the session's tries",
    async () => {
      const sb = plainSandbox();
      const exe = await ensureAgent("claude");
      mkdirSync(join(sb.home, ".local", "bin"), { recursive: true });
      symlinkSync(exe, join(sb.home, ".local", "bin", "claude"));
      coffer(sb, ["link", "claude"]);
      const run = assertRunOk(await runAgent(sb, "claude", { prompt: PROMPT }));
      // Nothing listens on port 9: the CLI answers is_error with "API Error: Connection refused …".
      // CLAUDECODE=1 is what a sweep started from inside a session would carry: the child must not see it.
      const env = { ...sb.agentEnv, ANTHROPIC_BASE_URL: "http://127.0.0.1:9", CLAUDECODE: "1" };
      for (let i = 0; i < 4; i++) {
        const r = await cofferAsync(sb, ["distill", "run", run.sessionId!, "--json"], { env, allowFailure: true });
        expect(r.code).toBe(1);
        expect(r.json().results[0]).toMatchObject({ outcome: "failed", error: "network" });
      }
      const failed = ledger(sb).filter((r) => r.outcome === "failed");
      expect(failed.length).toBe(4);
      expect(failed.every((r) => r.error === "network")).toBe(true);
      // Still pending: not skipped for good after more than three runs.
      const rows = coffer(sb, ["distill", "list", "--json"]).json().sessions as {
        session_id: string;
        status: string;
        skipped?: unknown;
      }[];
      const row = rows.find((s) => s.session_id === run.sessionId);
      expect(row).toBeDefined();
      expect(row!.status).toBe("never");
      expect(row!.skipped).toBeUndefined();
    },
    TEST_TIMEOUT_MS,
  );
});
