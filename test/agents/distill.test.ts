/**
 * Session end and distillation on real transcripts: the real CLIs write them (with Coffer's hooks
 * injecting context), then `coffer observe --queue` and `coffer distill run` process them, with the
 * fake model server acting as the OpenAI-compatible distill model. Coffer's own injected context
 * (Claude keeps it as hook attachments, Codex as developer messages, Gemini inside the user's turn)
 * must never reach the distill model or the inbox.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { conversationText, type ModelServer, type RecordedRequest, startModelServer } from "../kit";
import {
  BUNDLE_HEADING,
  coffer,
  cofferAsync,
  ENTRY_BODY,
  GLOBAL_RULE,
  hookErrors,
  PROJECT_RULE,
  seedStore,
  useFakeDistillModel,
} from "./coffer";
import {
  type AgentName,
  type AgentSandbox,
  agentSandbox,
  assertRunOk,
  cleanupSandboxes,
  listFiles,
  runAgent,
  TEST_TIMEOUT_MS,
} from "./harness";

/** A conversation with something worth distilling, that also routes the seeded release entry. */
const PROMPT = "We decided to move the release process to pnpm workspaces: deploy with pnpm -r publish from now on.";
const AGENT_REPLY = "Understood: releases now publish every workspace package with pnpm -r publish.";
const INSIGHT = {
  kind: "decision",
  title: "Releases publish with pnpm -r publish",
  body: "The release process moved to pnpm workspaces; deploy with pnpm -r publish.",
};

let server: ModelServer;
beforeAll(() => {
  server = startModelServer({
    respond: (req) => (req.api === "chat" ? { text: JSON.stringify([INSIGHT]) } : { text: AGENT_REPLY }),
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

function setup(): AgentSandbox {
  const sb = agentSandbox(server);
  seedStore(sb);
  // Proof lines are Coffer context too: they must be dropped with the rest.
  coffer(sb, ["set-proof", "compact"]);
  useFakeDistillModel(sb, server);
  return sb;
}

/**
 * The transcript part of a distill request. Since issue 19 the request also lists existing entries the
 * model may supersede, on purpose and after the transcript; what the hooks injected must not be in the
 * transcript part.
 */
function transcriptPart(request: RecordedRequest | undefined): string {
  const text = conversationText(request);
  const cut = text.indexOf("\nExisting entries of this project that may be related");
  return cut < 0 ? text : text.slice(0, cut);
}

/** What the distill model must never see: Coffer's injected rules, bundle, routed bodies, proofs. */
function expectNoCofferContext(text: string): void {
  expect(text).not.toContain("via Coffer");
  expect(text).not.toContain(BUNDLE_HEADING);
  expect(text).not.toContain(PROJECT_RULE);
  expect(text).not.toContain(GLOBAL_RULE);
  expect(text).not.toContain(ENTRY_BODY);
  expect(text).not.toContain("Coffer proof");
  expect(text).not.toContain("coffer__resume");
  expect(text).not.toContain("hook_context");
  expect(text).not.toContain("hook additional context");
}

/** Run the agent once with Coffer linked, and check the injected context was really there. */
async function agentSession(sb: AgentSandbox, agent: AgentName) {
  server.clear();
  const run = assertRunOk(await runAgent(sb, agent, { prompt: PROMPT }));
  expect(hookErrors(sb, run)).toEqual([]);
  expect(run.sessionId).toBeDefined();
  const seen = server.requests.map((r) => r.raw).join("\n");
  expect(seen).toContain(BUNDLE_HEADING);
  expect(seen).toContain(ENTRY_BODY);
  expect(seen).toContain("Coffer proof");
  return run;
}

/** Distill one session and return the single request the distill model received. */
async function distill(sb: AgentSandbox, session: string): Promise<{ request: RecordedRequest; out: any }> {
  server.clear();
  const r = await cofferAsync(sb, ["distill", "run", session, "--json"]);
  const calls = server.requests.filter((q) => q.api === "chat");
  if (calls.length !== 1)
    throw new Error(`expected one distill model call, got ${calls.length}\n${r.stdout}\n${r.stderr}`);
  return { request: calls[0]!, out: r.json() };
}

function expectDistilledEntry(sb: AgentSandbox, agent: AgentName, session: string): void {
  const list = coffer(sb, ["list", "--json"]).json();
  const entries: any[] = Array.isArray(list) ? list : (list.entries ?? list.items ?? []);
  const hit = entries.find((e) => e.title === INSIGHT.title);
  expect(hit).toBeDefined();
  const shown = coffer(sb, ["show", hit.id, "--json"]).json();
  expect(JSON.stringify(shown)).toContain(session);
  expect(JSON.stringify(shown)).toContain(`agent:${agent}`);
}

describe("session end + distillation on real transcripts", () => {
  test(
    "Claude Code: link --session-end queues the finished session; observe --queue and distill run see no Coffer context",
    async () => {
      const sb = setup();
      coffer(sb, ["link", "claude", "--session-end"]);
      expect(readFileSync(join(sb.home, ".claude", "settings.json"), "utf8")).toContain(
        "hook session-end --agent claude",
      );
      const run = await agentSession(sb, "claude");
      const transcript = join(
        sb.home,
        ".claude",
        "projects",
        sb.project.replace(/[^A-Za-z0-9]/g, "-"),
        `${run.sessionId}.jsonl`,
      );
      // The real transcript holds Coffer's context as hook attachments (and api-request-blob copies).
      const raw = readFileSync(transcript, "utf8");
      expect(raw).toContain('"hook_additional_context"');
      expect(raw).toContain(ENTRY_BODY);

      // SessionEnd queued it.
      const queuePath = join(sb.cofferHome, "queue", "session-queue.json");
      expect(existsSync(queuePath)).toBe(true);
      const queued = JSON.stringify(JSON.parse(readFileSync(queuePath, "utf8")));
      expect(queued).toContain(run.sessionId!);
      expect(queued).toContain(transcript);

      // observe --queue: the trace lands in the inbox without Coffer's context, and leaves the queue.
      coffer(sb, ["observe", "--queue", "--json"]);
      expect(readFileSync(queuePath, "utf8")).not.toContain(run.sessionId!);
      const inbox = listFiles(join(sb.cofferHome, "inbox"));
      expect(inbox.length).toBeGreaterThan(0);
      const traces = inbox.map((f) => readFileSync(f, "utf8")).join("\n");
      expect(traces).toContain("pnpm workspaces");
      expectNoCofferContext(traces);
      expect(traces).not.toContain(sb.root); // no absolute paths in the wrapper

      // distill run on the real transcript: the model sees the conversation, not Coffer's context.
      const { request } = await distill(sb, run.sessionId!);
      const text = transcriptPart(request);
      expect(text).toContain("pnpm workspaces");
      expect(text).toContain(AGENT_REPLY);
      expect(text.split("move the release process to pnpm workspaces").length - 1).toBe(1); // user text once
      expectNoCofferContext(text);
      expectDistilledEntry(sb, "claude", run.sessionId!);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Codex: distill run on the real rollout sees no Coffer context (developer messages) and counts user text once",
    async () => {
      const sb = setup();
      coffer(sb, ["link", "codex", "--session-end"]);
      const run = await agentSession(sb, "codex");
      const rollout = listFiles(join(sb.home, ".codex", "sessions")).find((f) =>
        f.endsWith(`-${run.sessionId}.jsonl`),
      )!;
      expect(readFileSync(rollout, "utf8")).toContain(ENTRY_BODY);
      const { request } = await distill(sb, run.sessionId!);
      const text = transcriptPart(request);
      expect(text).toContain("pnpm workspaces");
      expect(text).toContain(AGENT_REPLY);
      expect(text.split("move the release process to pnpm workspaces").length - 1).toBe(1);
      expect(text).not.toContain("<environment_context>");
      expectNoCofferContext(text);
      expectDistilledEntry(sb, "codex", run.sessionId!);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Gemini CLI: distill run on the real chat file sees no Coffer context (<hook_context> parts)",
    async () => {
      const sb = setup();
      coffer(sb, ["link", "gemini"]);
      const run = await agentSession(sb, "gemini");
      const chat = listFiles(join(sb.home, ".gemini", "tmp")).find(
        (f) => f.includes(`${run.sessionId!.slice(0, 8)}`) && /chats\/session-/.test(f),
      )!;
      expect(readFileSync(chat, "utf8")).toContain("<hook_context>");
      const { request } = await distill(sb, run.sessionId!);
      const text = transcriptPart(request);
      expect(text).toContain("pnpm workspaces");
      expect(text).toContain(AGENT_REPLY);
      expect(text).not.toContain("<session_context>");
      expectNoCofferContext(text);
      expectDistilledEntry(sb, "gemini", run.sessionId!);
    },
    TEST_TIMEOUT_MS,
  );
});
