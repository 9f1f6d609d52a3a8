/**
 * Coffer inside the real GitHub Copilot CLI (pinned in harness.ts), offline: Copilot's own
 * "bring your own key" mode (`COPILOT_OFFLINE=true`, `COPILOT_PROVIDER_BASE_URL` on the fake
 * server, Anthropic's API) needs no GitHub sign-in and sends every model call to the loopback
 * server. `coffer link copilot` (real command, real files) -> `copilot -p` -> what reached the
 * model: the session-start bundle, the routed entry, a path trigger's entry in a tool result,
 * Coffer's MCP tools; `--resume` adds nothing already delivered; `coffer unlink copilot` leaves
 * the user's files as they were. Then zero-configuration distillation by Copilot's own CLI
 * headless: no tools, no MCP, Coffer's hooks silent inside, the tokens Copilot reports in the
 * ledger, and its own run never distilled.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentTurns,
  conversationText,
  conversationTexts,
  type ModelServer,
  offeredTools,
  type Reply,
  startModelServer,
} from "../kit";
import {
  BUNDLE_HEADING,
  coffer,
  cofferAsync,
  count,
  DEPLOY_BODY,
  ENTRY_BODY,
  expectBundle,
  expectNoCoffer,
  GLOBAL_RULE,
  PROJECT_RULE,
  PROMPT_1,
  PROMPT_2,
  rememberDeployGotcha,
  seedStore,
  textOf,
} from "./coffer";
import {
  type AgentSandbox,
  agentSandbox,
  cacheRoot,
  cleanupSandboxes,
  ensureAgent,
  readJson,
  TEST_TIMEOUT_MS,
  writeJson,
} from "./harness";

const MARKER = "[coffer headless distillation run: not a user session]";
const INSIGHT = {
  kind: "decision",
  title: "Releases publish with pnpm -r publish",
  body: "The release process moved to pnpm workspaces; deploy with pnpm -r publish.",
};

let server: ModelServer;
/** Replies for the agent's successive model calls; plain "OK." once it is empty. */
let script: Reply[] = [];
beforeAll(() => {
  server = startModelServer({
    respond: (req) => (req.raw.includes(MARKER) ? { text: JSON.stringify([INSIGHT]) } : script.shift()),
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

/** Copilot's BYOK variables: the fake server, no GitHub account, no update check. */
function copilotEnv(): Record<string, string> {
  return {
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: server.url,
    COPILOT_PROVIDER_TYPE: "anthropic",
    COPILOT_PROVIDER_API_KEY: "test-not-a-real-key",
    COPILOT_MODEL: "claude-sonnet-4.6",
    COPILOT_AUTO_UPDATE: "false",
    // The CLI unpacks ~235 MB on first run: once for all sandboxes, not once per HOME.
    COPILOT_CACHE_HOME: join(cacheRoot(), "copilot-cache"),
  };
}

function copilotSandbox(): AgentSandbox {
  const sb = agentSandbox(server, { prefix: "coffer-copilot-" });
  Object.assign(sb.agentEnv, copilotEnv());
  return sb;
}

type CopilotRun = { code: number; stdout: string; stderr: string; sessionId?: string; events: any[] };

/** `copilot -p <prompt> --output-format json` in the project (JSONL events on stdout). */
async function runCopilot(sb: AgentSandbox, prompt: string, resume?: string): Promise<CopilotRun> {
  const exe = await ensureAgent("copilot");
  const args = ["-p", prompt, "--output-format", "json", "--allow-all-tools", "--no-ask-user"];
  if (resume) args.push("--resume", resume);
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
  const events = stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  const sessionId = events.find((e) => e.type === "result")?.sessionId;
  if (code !== 0) throw new Error(`copilot exited ${code}\nstdout:\n${stdout.slice(-3000)}\nstderr:\n${stderr}`);
  return { code, stdout, stderr, sessionId, events };
}

/** Hooks that failed, from Copilot's own transcript (`hook.end` with success false) and Coffer's log. */
function hookFailures(sb: AgentSandbox, run: CopilotRun): string[] {
  const out: string[] = [];
  const file = join(sb.home, ".copilot", "session-state", run.sessionId ?? "none", "events.jsonl");
  if (existsSync(file))
    for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
      const e = JSON.parse(line);
      if (e.type === "hook.end" && e.data?.success !== true) out.push(line.slice(0, 500));
    }
  if (/hook/i.test(run.stderr)) out.push(`stderr: ${run.stderr.slice(0, 500)}`);
  const log = join(sb.cofferHome, "state", "hook.log");
  if (existsSync(log) && readFileSync(log, "utf8").trim()) out.push(`hook.log: ${readFileSync(log, "utf8")}`);
  return out;
}

async function turnsOf(sb: AgentSandbox, prompt: string, resume?: string) {
  server.clear();
  const run = await runCopilot(sb, prompt, resume);
  expect(hookFailures(sb, run)).toEqual([]);
  const turns = agentTurns(server.requests);
  expect(turns.length).toBeGreaterThan(0);
  return { run, turns, last: turns[turns.length - 1] };
}

describe("Copilot CLI + coffer link copilot", () => {
  test(
    "bundle + routed entry reach the model; --resume adds nothing already delivered; unlink restores the files",
    async () => {
      const sb = copilotSandbox();
      const { entryId } = seedStore(sb);
      // A user's own MCP config, byte for byte (odd spacing on purpose).
      const mcpFile = join(sb.home, ".copilot", "mcp-config.json");
      const userMcp = '{ "mcpServers":  {"mine": {"type": "local", "command": "true", "args": []}} }\n';
      mkdirSync(join(sb.home, ".copilot"), { recursive: true });
      writeFileSync(mcpFile, userMcp);

      coffer(sb, ["link", "copilot"]);
      const hooks = readJson(join(sb.home, ".copilot", "hooks", "coffer.json"));
      expect(Object.keys(hooks.hooks)).toEqual([
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PreCompact",
        "SubagentStart",
      ]);
      expect(readJson(mcpFile).mcpServers.mine).toEqual({ type: "local", command: "true", args: [] });

      const t1 = await turnsOf(sb, PROMPT_1);
      expectBundle(t1.last);
      const texts = conversationTexts(t1.last);
      // The bundle is a block of its own before the prompt; the routed entry a <system_reminder> after it.
      expect(texts[0]!.text).toStartWith(BUNDLE_HEADING);
      const prompt = texts.find((t) => t.text.includes(PROMPT_1))!;
      expect(prompt.text).toContain(
        `${PROMPT_1}\n\n<system_reminder>\n# Relevant memory (via Coffer)\n\n## [${entryId.slice(-8)}] Release process\n${ENTRY_BODY}\n</system_reminder>`,
      );
      // Coffer's MCP server started and its tools are offered (Copilot names them <server>-<tool>).
      expect(offeredTools(t1.last)).toContain("coffer-coffer__recall");

      // Resumed: Copilot replays the prompts (the routed entry with them) but not SessionStart's
      // context, which each run puts first anew: the resume's session start sends the bundle
      // again and keeps the delivered set, so the entry, already in the replayed prompt, is not sent again.
      const t2 = await turnsOf(sb, PROMPT_2, t1.run.sessionId);
      expect(t2.run.sessionId).toBe(t1.run.sessionId);
      const all2 = textOf(t2.last);
      expect(all2).toContain(PROMPT_1);
      expect(conversationTexts(t2.last)[0]!.text).toStartWith(BUNDLE_HEADING);
      expect(count(all2, BUNDLE_HEADING)).toBe(1);
      expect(count(all2, ENTRY_BODY)).toBe(1);

      coffer(sb, ["unlink", "copilot"]);
      expect(existsSync(join(sb.home, ".copilot", "hooks", "coffer.json"))).toBe(false);
      expect(readFileSync(mcpFile, "utf8")).toBe(userMcp);
      const t3 = await turnsOf(sb, PROMPT_1);
      for (const r of t3.turns) expectNoCoffer(r);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "path trigger: the view tool's result carries the applies_to entry once",
    async () => {
      const sb = copilotSandbox();
      seedStore(sb);
      const body = DEPLOY_BODY;
      const id = await rememberDeployGotcha(sb);
      coffer(sb, ["link", "copilot"]);
      script = [
        { text: "Let me look.", toolCall: { name: "view", input: { path: join(sb.project, "deploy", "release.sh") } } },
        { text: "Done." },
      ];
      const t = await turnsOf(sb, "Make it nicer, please.");
      expect(t.turns.length).toBe(2);
      expect(textOf(t.turns[0])).not.toContain(body);
      expect(count(textOf(t.last), body)).toBe(1);
      const hit = conversationTexts(t.last).find((x) => x.text.includes(body))!;
      // Copilot appends PostToolUse context to the tool's result.
      expect(hit.role).toBe("tool");
      expect(hit.text).toContain('Tool "view" succeeded. Additional guidance from postToolUse hooks:\n');
      expect(hit.text).toContain(`[${id.slice(-8)}]`);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("Copilot CLI subagents", () => {
  test(
    "SubagentStart puts the rules bundle before the subagent's prompt; its prompt is not routed again",
    async () => {
      const sb = copilotSandbox();
      seedStore(sb);
      coffer(sb, ["link", "copilot"]);
      const task = "Find out how the release process deploys";
      script = [
        {
          text: "Delegating.",
          toolCall: {
            name: "task",
            input: { agent_type: "general-purpose", name: "checker", description: "Check release", prompt: task },
          },
        },
        { text: "Subagent done." },
        { text: "Done." },
      ];
      const t = await turnsOf(sb, "Please delegate this");
      const sub = t.turns.find((r) => conversationTexts(r).some((x) => x.role === "user" && x.text.includes(task)));
      expect(sub).toBeDefined();
      const first = conversationTexts(sub)[0]!.text;
      // Copilot's date, Coffer's bundle, then the task the parent wrote.
      expect(first).toMatch(/^<current_datetime>[^<]*<\/current_datetime>\n\n# Project rules \(via Coffer\)/);
      expect(first).toEndWith(`\n\n${task}`);
      expectBundle(sub);
      expect(count(textOf(sub), BUNDLE_HEADING)).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("zero configuration: Copilot's own CLI distils", () => {
  test(
    "link, distil with no [model], no tools or MCP, Coffer's hooks silent inside, usage in the ledger, own run skipped",
    async () => {
      const sb = copilotSandbox();
      seedStore(sb);
      const exe = await ensureAgent("copilot");
      mkdirSync(join(sb.home, ".local", "bin"), { recursive: true });
      symlinkSync(exe, join(sb.home, ".local", "bin", "copilot"));
      const link = coffer(sb, ["link", "copilot"]);
      expect(link.stdout).toContain("Distillation will use `copilot` (your GitHub Copilot plan)");
      // Someone else's hook on the prompt event: it shows whether hooks run inside the summariser.
      const spyLog = join(sb.root, "spy.log");
      writeJson(join(sb.home, ".copilot", "hooks", "spy.json"), {
        version: 1,
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `echo run >> '${spyLog}'; echo '{}'` }] }] },
      });
      const spy = () => (existsSync(spyLog) ? readFileSync(spyLog, "utf8").trim().split("\n").length : 0);

      script = [{ text: "Understood: releases now publish with pnpm -r publish." }];
      const session = await turnsOf(sb, "We moved releases to pnpm workspaces: deploy with pnpm -r publish now.");
      expect(spy()).toBe(1);
      const eventsBefore = (await cofferAsync(sb, ["stats", "--json"])).json().hooks.events;

      server.clear();
      const out = (
        await cofferAsync(sb, ["distill", "run", session.run.sessionId!, "--agent", "copilot", "--json"], {
          env: sb.agentEnv,
        })
      ).json();
      expect(out.results[0].outcome).toBe("distilled");
      const turns = agentTurns(server.requests);
      expect(turns.length).toBe(1);
      const req = turns[0]!;
      const text = conversationText(req);
      // The marker first, Coffer's system prompt after it, then the conversation; none of Coffer's context.
      // (Copilot itself puts the date before every prompt.)
      const sent = conversationTexts(req).find((t) => t.role === "user")!.text;
      expect(sent).toMatch(/^<current_datetime>[^<]*<\/current_datetime>\n\n\[coffer headless distillation run/);
      expect(sent.indexOf(MARKER)).toBeLessThan(sent.indexOf("You read the transcript"));
      expect(text).toContain("You read the transcript of one coding-agent session");
      expect(text).toContain("pnpm workspaces");
      for (const injected of [BUNDLE_HEADING, "via Coffer", PROJECT_RULE, GLOBAL_RULE])
        expect(text).not.toContain(injected);
      expect(offeredTools(req)).toEqual([]);
      expect(req.raw).not.toContain("coffer-coffer__");
      // Coffer's hooks answered empty inside the run (COFFER_NO_HOOKS); the user's own still ran.
      expect((await cofferAsync(sb, ["stats", "--json"])).json().hooks.events).toBe(eventsBefore);
      expect(spy()).toBe(2);

      const list = coffer(sb, ["list", "--json"]).json();
      const entries: any[] = Array.isArray(list) ? list : (list.entries ?? []);
      expect(entries.some((e) => e.title === INSIGHT.title)).toBe(true);
      const ledger = readFileSync(join(sb.cofferHome, "state", "distilled.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const rec = ledger.at(-1);
      expect(rec).toMatchObject({ outcome: "distilled", session_id: session.run.sessionId, tokens_estimated: false });
      expect(rec.model).toBe("copilot-cli/claude-haiku-4.5");
      expect(rec.input_tokens).toBeGreaterThan(200);
      expect(rec.output_tokens).toBe(5); // what the fake server reports for every answer
      console.log(
        `[copilot] headless: ${rec.input_tokens} input + ${rec.output_tokens} output tokens, ${rec.duration_ms} ms`,
      );

      // A sweep sends nothing: the session is done, and Coffer's own run is never distilled.
      writeFileSync(join(sb.cofferHome, "config.toml"), "[distill]\nsettle_minutes = 0\n");
      server.clear();
      await cofferAsync(sb, ["distill", "sweep", "--json"], { env: sb.agentEnv });
      expect(agentTurns(server.requests)).toEqual([]);
      // Copilot kept the run as a session: recognised by its first prompt, recorded as skipped.
      const state = join(sb.home, ".copilot", "session-state");
      const own = readdirSync(state).filter((id) => {
        const file = join(state, id, "events.jsonl");
        return existsSync(file) && readFileSync(file, "utf8").includes(MARKER);
      });
      expect(own.length).toBe(1);
      const skip = (
        await cofferAsync(sb, ["distill", "run", own[0]!, "--agent", "copilot", "--json"], { env: sb.agentEnv })
      ).json();
      expect(skip.results[0].outcome).toBe("skipped");
      expect(agentTurns(server.requests)).toEqual([]);
      const last = JSON.parse(
        readFileSync(join(sb.cofferHome, "state", "distilled.jsonl"), "utf8")
          .trim()
          .split("\n")
          .at(-1)!,
      );
      expect(last).toMatchObject({ outcome: "skipped", reason: "coffer_run" });
    },
    TEST_TIMEOUT_MS,
  );
});
