/**
 * Qwen Code (the pinned real CLI, headless and offline against the fake model server's OpenAI
 * Chat Completions): `coffer link qwen` -> the bundle in the system prompt, a routed entry beside
 * the prompt, a path trigger in a tool result, Coffer's MCP tools offered; resume; unlink restores
 * the settings byte for byte; a finished session is distilled without Coffer's own context; the
 * auto memory Qwen keeps is harvested at session start; `qwen -p` distils with no hooks inside.
 * What these pin down is recorded in docs/hosts-observed.md ("Qwen Code").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentTurns,
  BIN,
  conversationText,
  conversationTexts,
  endsWithToolResult,
  type ModelServer,
  offeredTools,
  type Reply,
  startModelServer,
} from "../kit";
import {
  AGENT_REPLY,
  BUNDLE_HEADING,
  coffer,
  cofferAsync,
  count,
  DEPLOY_BODY,
  DISTILL_MARKER,
  DISTILL_PROMPT,
  ENTRY_BODY,
  expectBundle,
  expectNoCoffer,
  GLOBAL_RULE,
  hookErrors,
  INSIGHT,
  PROJECT_RULE,
  PROMPT_1,
  PROMPT_2,
  rememberDeployGotcha,
  seedStore,
  textOf,
  useFakeDistillModel,
} from "./coffer";
import {
  type AgentSandbox,
  agentSandbox,
  assertRunOk,
  cacheRoot,
  cleanupSandboxes,
  ensureAgent,
  listFiles,
  readJson,
  runAgent,
  TEST_TIMEOUT_MS,
  writeJson,
} from "./harness";

let server: ModelServer;
/** Replies for the agent's successive model calls; then the distill answer or plain text. */
let script: Reply[] = [];
beforeAll(() => {
  server = startModelServer({
    respond: (req) => {
      if (req.raw.includes(DISTILL_MARKER)) return { text: JSON.stringify([INSIGHT]) };
      if (endsWithToolResult(req) && !script.length) return { text: "Done with the tool." };
      return script.shift() ?? { text: AGENT_REPLY };
    },
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

const settingsPath = (sb: AgentSandbox) => join(sb.home, ".qwen", "settings.json");

function entries(sb: AgentSandbox): any[] {
  const l = coffer(sb, ["list", "--json"]).json();
  return Array.isArray(l) ? l : (l.entries ?? []);
}

async function turnsOf(sb: AgentSandbox, prompt: string, resume?: string, extraArgs?: string[]) {
  server.clear();
  const run = assertRunOk(await runAgent(sb, "qwen", { prompt, resume, extraArgs }));
  expect(hookErrors(sb, run)).toEqual([]);
  const turns = agentTurns(server.requests);
  expect(turns.length).toBeGreaterThan(0);
  return { run, turns, last: turns[turns.length - 1]! };
}

describe("Qwen Code + coffer link qwen", () => {
  test(
    "bundle in the system prompt, routed entry beside the prompt, MCP offered; resume; unlink restores the bytes",
    async () => {
      const sb = agentSandbox(server);
      const { entryId } = seedStore(sb);
      const before = readFileSync(settingsPath(sb), "utf8");
      coffer(sb, ["link", "qwen"]);
      const settings = readFileSync(settingsPath(sb), "utf8");
      expect(settings).toContain(`"${BIN} hook session-start --agent qwen"`);
      expect(readJson(settingsPath(sb)).mcpServers.coffer).toEqual({ command: BIN, args: ["serve", "--stdio"] });

      const t1 = await turnsOf(sb, PROMPT_1);
      expect(t1.turns.length).toBe(1);
      expectBundle(t1.last);
      const texts = conversationTexts(t1.last);
      // The session-start bundle ends the system prompt, in Qwen's own hidden block.
      const sys = texts.find((t) => t.text.includes(BUNDLE_HEADING))!;
      expect(sys.role).toBe("system");
      expect(sys.text).toContain(
        `<qwen:session-start-context hidden="true">\nSessionStart additional context:\n${BUNDLE_HEADING}`,
      );
      // The routed entry is its own part of the user's turn, after the prompt.
      const p = texts.findIndex((t) => t.text === PROMPT_1);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(texts[p + 1]).toEqual({
        role: "user",
        text: `<qwen:user-prompt-submit-context>\n# Relevant memory (via Coffer)\n\n## [${entryId.slice(-8)}] Release process\n${ENTRY_BODY}\n</qwen:user-prompt-submit-context>`,
      });
      expect(count(textOf(t1.last), ENTRY_BODY)).toBe(1);
      // Coffer's MCP server started; Qwen defers MCP tools: listed by name, reached through tool_search/tool_call.
      expect(offeredTools(t1.last)).toContain("tool_call");
      expect(textOf(t1.last)).toMatch(/### MCP servers\s+#### coffer\s+- "mcp__coffer__coffer__/);
      for (const tool of ["recall", "remember", "resume"])
        expect(textOf(t1.last)).toContain(`"mcp__coffer__coffer__${tool}"`);

      // Resume: Qwen rebuilds the system prompt from a new SessionStart (source "resume") and drops
      // the old block, so Coffer sends the bundle again; the replayed turn 1 still carries the entry,
      // and the delivered set is kept, so it is not sent a second time.
      const t2 = await turnsOf(sb, PROMPT_2, t1.run.sessionId);
      expect(t2.run.sessionId).toBe(t1.run.sessionId);
      const all2 = textOf(t2.last);
      expect(all2).toContain(PROMPT_1);
      expectBundle(t2.last);
      expect(count(all2, BUNDLE_HEADING)).toBe(1);
      expect(count(all2, ENTRY_BODY)).toBe(1);

      // Unlink leaves the settings as they were, but for the `$version` Qwen itself adds on its first run.
      coffer(sb, ["unlink", "qwen"]);
      expect(readFileSync(settingsPath(sb), "utf8")).not.toContain("coffer");
      const after = readJson(settingsPath(sb));
      expect(after.$version).toBe(4);
      delete after.$version;
      expect(after).toEqual(JSON.parse(before));
      const t3 = await turnsOf(sb, PROMPT_1);
      for (const r of t3.turns) expectNoCoffer(r);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "path trigger: read_file of a matching path appends the entry to the tool result",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      const id = await rememberDeployGotcha(sb);
      coffer(sb, ["link", "qwen"]);
      script = [
        {
          text: "Let me look.",
          toolCall: { name: "read_file", input: { file_path: join(sb.project, "deploy", "release.sh") } },
        },
        { text: "Done." },
      ];
      const t = await turnsOf(sb, "Make it nicer, please.");
      expect(t.turns.length).toBe(2);
      expect(textOf(t.turns[0])).not.toContain(DEPLOY_BODY);
      expect(count(textOf(t.last), DEPLOY_BODY)).toBe(1);
      const hit = conversationTexts(t.last).find((x) => x.text.includes(DEPLOY_BODY))!;
      expect(hit.role).toBe("tool");
      expect(hit.text).toContain("echo release"); // the file itself, then Coffer's context
      expect(hit.text).toContain("# Relevant memory (via Coffer)");
      expect(hit.text).toContain(`[${id.slice(-8)}]`);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "no SubagentStart hook: in 0.24.4 its context never reaches the subagent's request",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      coffer(sb, ["link", "qwen"]);
      expect(readJson(settingsPath(sb)).hooks.SubagentStart).toBeUndefined();
      // Observed with a SubagentStart hook installed by hand: it ran, answered the bundle, and the
      // subagent's request held none of it (system prompt and task both). So Coffer installs none.
      const doc = readJson(settingsPath(sb));
      const start = doc.hooks.SessionStart[0].hooks[0].command.replace("session-start", "subagent-start");
      doc.hooks.SubagentStart = [{ hooks: [{ type: "command", command: start, timeout: 10 }] }];
      writeJson(settingsPath(sb), doc);
      const SUB_PROMPT = "Find out how the release process deploys";
      script = [
        {
          text: "Delegating.",
          toolCall: {
            name: "agent",
            input: { description: "Check release", prompt: SUB_PROMPT, subagent_type: "general-purpose" },
          },
        },
        { text: "Subagent done." },
        { text: "Done." },
      ];
      // yolo: no approval classifier call (a model request of its own) before the agent tool runs.
      const t = await turnsOf(sb, "Please delegate this", undefined, ["--approval-mode", "yolo"]);
      const sub = t.turns.find((r) => conversationTexts(r).some((x) => x.role === "user" && x.text === SUB_PROMPT));
      expect(sub).toBeDefined();
      expect(textOf(sub)).not.toContain(BUNDLE_HEADING);
      const events = (await cofferAsync(sb, ["stats", "--json"])).json().hooks.by_event.map((e: any) => e.event);
      expect(events).toContain("subagent-start"); // it ran and answered
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Qwen's auto memory (project and user folders) is harvested at session start; a hand edit updates the entry",
    async () => {
      const sb = agentSandbox(server);
      coffer(sb, ["link", "qwen"]);
      const slug = sb.project.replace(/[^A-Za-z0-9]/g, "-");
      const projectMem = join(sb.home, ".qwen", "projects", slug, "memory");
      const userMem = join(sb.home, ".qwen", "memories");
      mkdirSync(projectMem, { recursive: true });
      mkdirSync(userMem, { recursive: true });
      writeFileSync(join(projectMem, "MEMORY.md"), "- [Migrations](migrations.md) — how to run them\n");
      writeFileSync(
        join(projectMem, "migrations.md"),
        "---\nname: migrations\ndescription: Run migrations with make migrate, never by hand\ntype: project\n---\n\nRun database migrations with make migrate; never apply SQL by hand.\n",
      );
      writeFileSync(join(userMem, "MEMORY.md"), "- The user prefers short answers without preamble\n");
      await turnsOf(sb, PROMPT_1);
      const list = () => entries(sb);
      const mig = list().find((e) => e.title === "Run migrations with make migrate, never by hand");
      expect(mig).toBeDefined();
      expect(mig.scope).not.toBe("global");
      const pref = list().find((e) => /prefers short answers/.test(e.title));
      expect(pref?.scope).toBe("global");
      const n = list().length;
      // Idempotent: the next session adds nothing; an edited note updates its entry.
      await turnsOf(sb, PROMPT_2);
      expect(list().length).toBe(n);
      writeFileSync(
        join(projectMem, "migrations.md"),
        "---\nname: migrations\ndescription: Run migrations with make migrate, never by hand\ntype: project\n---\n\nRun database migrations with make migrate-all; never apply SQL by hand.\n",
      );
      await turnsOf(sb, PROMPT_2);
      expect(list().length).toBe(n);
      expect(JSON.stringify(coffer(sb, ["show", mig.id, "--json"]).json())).toContain("make migrate-all");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "distill run on the real chat file sees none of Coffer's context",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      coffer(sb, ["set-proof", "compact"]);
      useFakeDistillModel(sb, server);
      coffer(sb, ["link", "qwen"]);
      const run = (await turnsOf(sb, DISTILL_PROMPT)).run;
      const chat = listFiles(join(sb.home, ".qwen", "projects")).find((f) => f.endsWith(`${run.sessionId}.jsonl`))!;
      expect(readFileSync(chat, "utf8")).toContain("<qwen:user-prompt-submit-context>");
      server.clear();
      const out = (await cofferAsync(sb, ["distill", "run", run.sessionId!, "--json"])).json();
      expect(out.results[0].outcome).toBe("distilled");
      const calls = server.requests.filter((q) => q.raw.includes(DISTILL_MARKER));
      expect(calls.length).toBe(1);
      const text = conversationText(calls[0]);
      const transcript = text.slice(0, text.indexOf("\nExisting entries of this project") >>> 0);
      expect(transcript).toContain("pnpm workspaces");
      expect(transcript).toContain(AGENT_REPLY);
      for (const injected of [
        "via Coffer",
        BUNDLE_HEADING,
        PROJECT_RULE,
        GLOBAL_RULE,
        ENTRY_BODY,
        "qwen:",
        "coffer__resume",
      ])
        expect(transcript).not.toContain(injected);
      const hit = entries(sb).find((e) => e.title === INSIGHT.title);
      expect(JSON.stringify(coffer(sb, ["show", hit.id, "--json"]).json())).toContain("agent:qwen");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "zero configuration: `qwen -p` distils with no tools, no MCP, no hooks inside; usage in the ledger",
    async () => {
      // A folder only this user can write to, as for the other CLIs' system settings files.
      const parent = join(cacheRoot(), "sandboxes");
      mkdirSync(parent, { recursive: true, mode: 0o700 });
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = parent;
      let sb: AgentSandbox;
      try {
        sb = agentSandbox(server, { prefix: "coffer-headless-" });
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
      seedStore(sb);
      mkdirSync(join(sb.home, ".local", "bin"), { recursive: true });
      symlinkSync(await ensureAgent("qwen"), join(sb.home, ".local", "bin", "qwen"));
      const link = coffer(sb, ["link", "qwen"]);
      expect(link.stdout).toContain("Distillation will use `qwen -p` (your Qwen Code account)");
      // Someone else's hook beside Coffer's: it must not run inside the headless run either.
      const spyLog = join(sb.root, "spy.log");
      const doc = readJson(settingsPath(sb));
      doc.hooks.UserPromptSubmit.push({
        hooks: [{ type: "command", command: `echo run >> '${spyLog}'; echo '{}'`, timeout: 10 }],
      });
      writeJson(settingsPath(sb), doc);
      writeFileSync(join(sb.home, ".qwen", "QWEN.md"), "USER-QWEN-MD-DISTILL_MARKER: answer in French\n");
      const spy = () => (existsSync(spyLog) ? readFileSync(spyLog, "utf8").trim().split("\n").length : 0);

      const run = (await turnsOf(sb, DISTILL_PROMPT)).run;
      expect(spy()).toBe(1);
      const events = (await cofferAsync(sb, ["stats", "--json"])).json().hooks.events;

      server.clear();
      const out = (await cofferAsync(sb, ["distill", "run", run.sessionId!, "--json"], { env: sb.agentEnv })).json();
      expect(out.results[0].outcome).toBe("distilled");
      const turns = agentTurns(server.requests);
      expect(turns.length).toBe(1);
      const req = turns[0]!;
      expect(req.raw).toContain(DISTILL_MARKER); // Coffer's system prompt (QWEN_SYSTEM_MD)
      expect(conversationTexts(req)[0]).toMatchObject({ role: "system" });
      expect(conversationTexts(req)[0]!.text.startsWith(DISTILL_MARKER)).toBe(true);
      expect(conversationText(req)).toContain("pnpm workspaces");
      for (const injected of [BUNDLE_HEADING, "via Coffer", PROJECT_RULE, "coffer__", "USER-QWEN-MD-DISTILL_MARKER"])
        expect(conversationText(req)).not.toContain(injected);
      expect(offeredTools(req)).toEqual([]);
      expect(spy()).toBe(1);
      expect((await cofferAsync(sb, ["stats", "--json"])).json().hooks.events).toBe(events);
      expect(existsSync(join(sb.cofferHome, "state", "hook.log"))).toBe(false);

      const hit = entries(sb).find((e) => e.title === INSIGHT.title);
      expect(JSON.stringify(coffer(sb, ["show", hit.id, "--json"]).json())).toContain("agent:qwen");
      const ledger = readFileSync(join(sb.cofferHome, "state", "distilled.jsonl"), "utf8")
        .trim()
        .split("\n");
      const rec = JSON.parse(ledger.at(-1)!);
      expect(rec).toMatchObject({ outcome: "distilled", session_id: run.sessionId, tokens_estimated: false });
      expect(rec.model).toBe("qwen-code/fake-model");
      expect(rec.input_tokens).toBeGreaterThan(200);
      expect(rec.output_tokens).toBe(5);
      // The run kept no chat (--chat-recording false): a sweep finds nothing of its own to distil.
      expect(
        listFiles(join(sb.home, ".qwen", "projects")).filter((f) => readFileSync(f, "utf8").includes(DISTILL_MARKER)),
      ).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
