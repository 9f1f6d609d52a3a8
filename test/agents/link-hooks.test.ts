/**
 * Coffer inside the real agents: `coffer link <host>` (real command, real config files) -> the real
 * CLI, headless and offline against the fake model server -> assertions on what reached the model.
 * Per host: the session-start bundle and a prompt-routed entry arrive; a resumed second turn gets
 * delta injection; no hook error shows up anywhere; `coffer unlink` leaves no Coffer context.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentTurns,
  BIN,
  conversationTexts,
  type ModelServer,
  type RecordedRequest,
  type Reply,
  startModelServer,
} from "../kit";
import {
  BUNDLE_HEADING,
  coffer,
  count,
  DEPLOY_BODY,
  ENTRY_BODY,
  expectBundle,
  expectNoCoffer,
  hookErrors,
  PROMPT_1,
  PROMPT_2,
  rememberDeployGotcha,
  seedStore,
  textOf,
} from "./coffer";
import {
  type AgentName,
  type AgentSandbox,
  agentSandbox,
  assertRunOk,
  cleanupSandboxes,
  runAgent,
  TEST_TIMEOUT_MS,
} from "./harness";

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

/** The agent's conversation requests made by one run. */
async function turnsOf(sb: AgentSandbox, agent: AgentName, prompt: string, resume?: string) {
  server.clear();
  const run = assertRunOk(await runAgent(sb, agent, { prompt, resume }));
  expect(hookErrors(sb, run)).toEqual([]);
  const turns = agentTurns(server.requests);
  expect(turns.length).toBeGreaterThan(0);
  return { run, turns, last: turns[turns.length - 1] };
}

/** The texts the hooks added around the newest user prompt (after it, for delta checks). */
function afterLastPrompt(req: RecordedRequest | undefined, prompt: string): string {
  const texts = conversationTexts(req);
  let i = -1;
  texts.forEach((t, k) => {
    if (t.text.includes(prompt)) i = k;
  });
  expect(i).toBeGreaterThanOrEqual(0);
  return texts
    .slice(i)
    .map((t) => t.text)
    .join("\n\n");
}

describe("Claude Code + coffer link claude", () => {
  test(
    "bundle + routed entry reach the model; --resume adds nothing already delivered; unlink removes it all",
    async () => {
      const sb = agentSandbox(server);
      const { entryId } = seedStore(sb);
      coffer(sb, ["link", "claude"]);
      const settings = readFileSync(join(sb.home, ".claude", "settings.json"), "utf8");
      expect(settings).toContain(`"${BIN} hook session-start --agent claude"`);

      const t1 = await turnsOf(sb, "claude", PROMPT_1);
      expectBundle(t1.last);
      // Claude wraps it: a role "system" entry in `messages` that starts with the hook event.
      const sys = conversationTexts(t1.last).find((t) => t.text.includes(BUNDLE_HEADING))!;
      expect(sys.role).toBe("system");
      expect(sys.text.startsWith(`SessionStart hook additional context: ${BUNDLE_HEADING}`)).toBe(true);
      expect(sys.text).toContain(`- [${entryId.slice(-8)}] Release process`);
      expect(sys.text).toContain(
        `UserPromptSubmit hook additional context: # Relevant memory (via Coffer)\n\n## [${entryId.slice(-8)}] Release process\n${ENTRY_BODY}`,
      );
      expect(count(textOf(t1.last), ENTRY_BODY)).toBe(1);

      // Turn 2, same session: the replayed history has the body once; the new turn adds nothing
      // (no lone `already loaded:` line when nothing new follows).
      const t2 = await turnsOf(sb, "claude", PROMPT_2, t1.run.sessionId);
      expect(t2.run.sessionId).toBe(t1.run.sessionId);
      const all2 = textOf(t2.last);
      expect(count(all2, ENTRY_BODY)).toBe(1);
      expect(count(all2, BUNDLE_HEADING)).toBe(1); // the unchanged bundle is not re-sent on resume
      const delta = afterLastPrompt(t2.last, PROMPT_2);
      expect(delta).not.toContain("already loaded:");
      expect(delta).not.toContain(ENTRY_BODY);

      coffer(sb, ["unlink", "claude"]);
      expect(readFileSync(join(sb.home, ".claude", "settings.json"), "utf8")).not.toContain("coffer");
      const t3 = await turnsOf(sb, "claude", PROMPT_1);
      for (const r of t3.turns) expectNoCoffer(r);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("Codex + coffer link codex", () => {
  test(
    "bundle + routed entry reach the model; exec resume adds nothing already delivered; unlink removes it all",
    async () => {
      const sb = agentSandbox(server);
      const { entryId } = seedStore(sb);
      coffer(sb, ["link", "codex"]);

      const t1 = await turnsOf(sb, "codex", PROMPT_1);
      expect(t1.run.stderr).toContain("hook: SessionStart Completed");
      expect(t1.run.stderr).toContain("hook: UserPromptSubmit Completed");
      expectBundle(t1.last);
      // Codex: the bundle is a developer message right before the prompt, the routed entry right after.
      const texts = conversationTexts(t1.last);
      const p = texts.findIndex((t) => t.text === PROMPT_1);
      expect(texts[p - 1]?.role).toBe("developer");
      expect(texts[p - 1]!.text.startsWith(BUNDLE_HEADING)).toBe(true);
      expect(texts[p + 1]).toEqual({
        role: "developer",
        text: `# Relevant memory (via Coffer)\n\n## [${entryId.slice(-8)}] Release process\n${ENTRY_BODY}`,
      });

      const t2 = await turnsOf(sb, "codex", PROMPT_2, t1.run.sessionId);
      expect(t2.run.sessionId).toBe(t1.run.sessionId);
      const all2 = textOf(t2.last);
      expect(count(all2, ENTRY_BODY)).toBe(1);
      expect(count(all2, BUNDLE_HEADING)).toBe(1);
      const delta = afterLastPrompt(t2.last, PROMPT_2);
      expect(delta).not.toContain("already loaded:");
      expect(delta).not.toContain(ENTRY_BODY);

      coffer(sb, ["unlink", "codex"]);
      const t3 = await turnsOf(sb, "codex", PROMPT_1);
      expect(t3.run.stderr).not.toContain("hook:");
      for (const r of t3.turns) expectNoCoffer(r);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("Gemini CLI + coffer link gemini", () => {
  test(
    "bundle + routed entry reach the model on the first prompt; unlink removes it all",
    async () => {
      const sb = agentSandbox(server);
      const { entryId } = seedStore(sb);
      coffer(sb, ["link", "gemini"]);

      const t1 = await turnsOf(sb, "gemini", PROMPT_1);
      expectBundle(t1.last);
      const texts = conversationTexts(t1.last);
      // Gemini: the bundle is prepended to the prompt; the routed entry is a second part of that turn.
      expect(texts.find((t) => t.text.includes(BUNDLE_HEADING))!.text).toEndWith(`</hook_context>\n\n${PROMPT_1}`);
      expect(texts).toContainEqual({
        role: "user",
        text: `<hook_context># Relevant memory (via Coffer)\n\n## [${entryId.slice(-8)}] Release process\n${ENTRY_BODY}</hook_context>`,
      });

      coffer(sb, ["unlink", "gemini"]);
      const t3 = await turnsOf(sb, "gemini", PROMPT_1);
      for (const r of t3.turns) expectNoCoffer(r);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "--resume: the model still has the rules and the entry (Gemini drops hook-injected turns on resume)",
    async () => {
      const sb = agentSandbox(server);
      const { entryId } = seedStore(sb);
      coffer(sb, ["link", "gemini"]);
      const t1 = await turnsOf(sb, "gemini", PROMPT_1);
      const t2 = await turnsOf(sb, "gemini", PROMPT_2, t1.run.sessionId);
      expect(t2.run.sessionId).toBe(t1.run.sessionId);
      const all2 = textOf(t2.last);
      // Gemini 0.61.0 replays none of turn 1's hook context, so nothing may point at it as loaded:
      // the bundle and the body must be sent again.
      expect(all2).not.toContain(PROMPT_1);
      expectBundle(t2.last);
      expect(count(all2, ENTRY_BODY)).toBe(1);
      expect(all2).not.toContain(`already loaded: ${entryId.slice(-8)}`);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("path trigger: a file the agent touches delivers the entries that apply to it", () => {
  // Where each host puts a tool hook's context (docs/hosts-observed.md).
  const cases: { agent: AgentName; tool: (project: string) => Reply["toolCall"]; role: string; prefix: string }[] = [
    {
      agent: "claude",
      tool: (p) => ({ name: "Read", input: { file_path: join(p, "deploy", "release.sh") } }),
      role: "system",
      prefix: "PreToolUse:Read hook additional context: ",
    },
    {
      agent: "codex",
      tool: () => ({
        name: "apply_patch",
        input:
          "*** Begin Patch\n*** Update File: deploy/release.sh\n@@\n-echo release\n+echo release now\n*** End Patch\n",
      }),
      role: "developer",
      prefix: "",
    },
    // Gemini passes the model's relative path; the context is appended to the tool result.
    {
      agent: "gemini",
      tool: () => ({ name: "read_file", input: { file_path: "deploy/release.sh" } }),
      role: "tool",
      prefix: "",
    },
  ];
  for (const c of cases) {
    test(
      `${c.agent}: the tool hook injects the applies_to entry once`,
      async () => {
        const sb = agentSandbox(server);
        seedStore(sb);
        const id = await rememberDeployGotcha(sb);
        coffer(sb, ["link", c.agent]);
        script = [{ text: "Let me look.", toolCall: c.tool(sb.project) }, { text: "Done." }];
        // A prompt that routes nothing: the body can only come from the tool hook.
        const t = await turnsOf(sb, c.agent, "Make it nicer, please.");
        expect(t.turns.length).toBe(2);
        expect(textOf(t.turns[0])).not.toContain(DEPLOY_BODY);
        expect(count(textOf(t.last), DEPLOY_BODY)).toBe(1);
        const hit = conversationTexts(t.last).find((x) => x.text.includes(DEPLOY_BODY))!;
        expect(hit.role).toBe(c.role);
        expect(hit.text).toContain(`${c.prefix}# Relevant memory (via Coffer)`);
        expect(hit.text).toContain(`[${id.slice(-8)}]`); // the handle
      },
      TEST_TIMEOUT_MS,
    );
  }
});

describe("Claude Code subagents", () => {
  test(
    "SubagentStart gives the subagent's first request the rules bundle",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      coffer(sb, ["link", "claude"]);
      // Main turn delegates with the Agent tool; the subagent answers; the main turn finishes.
      script = [
        {
          text: "Delegating.",
          toolCall: {
            name: "Agent",
            input: {
              description: "Check release",
              prompt: "Find out how the release process deploys",
              subagent_type: "general-purpose",
            },
          },
        },
        { text: "Subagent done." },
        { text: "Done." },
      ];
      const t = await turnsOf(sb, "claude", "Please delegate this");
      const sub = t.turns.find((r) =>
        conversationTexts(r).some((x) => x.role === "user" && x.text === "Find out how the release process deploys"),
      );
      expect(sub).toBeDefined();
      const ctx = conversationTexts(sub).find((x) => x.text.startsWith("SubagentStart hook additional context: "));
      expect(ctx?.role).toBe("system");
      expectBundle(sub);
    },
    TEST_TIMEOUT_MS,
  );
});
