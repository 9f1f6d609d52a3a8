/**
 * Shared pieces of the Coffer-in-real-agents tests: seeding a store, reading what reached the
 * model, and spotting hook errors in each CLI's own output and transcript.
 */
import { expect } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SYSTEM_PROMPT } from "../../src/distill/prompt";
import { BIN, conversationTexts, type ModelServer, type RecordedRequest } from "../kit";
import type { AgentName, AgentRun, AgentSandbox } from "./harness";

export const GLOBAL_RULE = "Always run the linter before committing";
export const PROJECT_RULE = "Use tabs in Makefiles of this project";
export const ENTRY_BODY = "The release pipeline deploys with make release; never push tags by hand";
export const ENTRY_TITLE = "Release process";
/** A prompt the seeded entry routes to, and a follow-up that routes to it again. */
export const PROMPT_1 = "How does the release process deploy?";
export const PROMPT_2 = "Remind me about the release process again";
export const BUNDLE_HEADING = "# Project rules (via Coffer)";
/** Coffer's built-in rules: always in the bundle, even with empty lanes. */
export const SEEDED_RULES = ["call `coffer__resume()` first", "Prefer `coffer__remember` / `coffer__recall`"];

/** A conversation worth distilling (it also routes the seeded release entry), the agent's answer, and the insight the fake model distils from it. */
export const DISTILL_PROMPT =
  "We decided to move the release process to pnpm workspaces: deploy with pnpm -r publish from now on.";
export const AGENT_REPLY = "Understood: releases now publish every workspace package with pnpm -r publish.";
export const INSIGHT = {
  kind: "decision",
  title: "Releases publish with pnpm -r publish",
  body: "The release process moved to pnpm workspaces; deploy with pnpm -r publish.",
};
/** The start of distillation's system prompt: how the fake model tells a distillation request from an agent's turn. */
export const DISTILL_MARKER = SYSTEM_PROMPT.slice(0, SYSTEM_PROMPT.indexOf(" and extract"));

/** Coffer distils through the fake model server (an OpenAI-compatible API) instead of an agent's CLI. */
export function useFakeDistillModel(sb: AgentSandbox, server: ModelServer): void {
  // model before provider: config set validates the [model] table after each key
  for (const [k, v] of [
    ["model.model", "fake-distill"],
    ["model.base_url", `${server.url}/v1`],
    ["model.api_key_env", "FAKE_MODEL_API_KEY"],
    ["model.provider", "openai"],
  ])
    coffer(sb, ["config", "set", k!, v!]);
  sb.env.FAKE_MODEL_API_KEY = sb.agentEnv.FAKE_MODEL_API_KEY!;
}

/** The path-trigger entry: a gotcha whose applies_to is deploy/**. */
export const DEPLOY_BODY = "Deploy scripts must stay POSIX sh: CI runs them under dash";

/** Remember the deploy gotcha (and write deploy/release.sh for the agent to read); its id. */
export async function rememberDeployGotcha(sb: AgentSandbox): Promise<string> {
  await Bun.write(join(sb.project, "deploy", "release.sh"), "#!/bin/sh\necho release\n");
  return coffer(sb, [
    "remember",
    DEPLOY_BODY,
    "--title",
    "Deploy scripts are POSIX sh",
    "--kind",
    "gotcha",
    "--applies-to",
    "deploy/**",
    "--json",
  ]).json().id;
}

export type Seeded = { entryId: string };

/** Run `coffer <args>` in the project and fail with its output unless it exits 0. */
export function coffer(sb: AgentSandbox, args: string[], opts: { env?: Record<string, string> } = {}) {
  const r = sb.run(args, { cwd: sb.project, env: opts.env });
  if (r.code !== 0)
    throw new Error(`coffer ${args.join(" ")} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}

/**
 * `coffer <args>` without blocking this process: needed whenever the command talks to the fake
 * model server, which runs in the test process (a spawnSync would deadlock until the model timeout).
 */
export async function cofferAsync(
  sb: AgentSandbox,
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number; allowFailure?: boolean } = {},
) {
  const p = Bun.spawn([BIN, ...args], {
    cwd: sb.project,
    env: { ...sb.env, ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  clearTimeout(timer);
  if (code !== 0 && !opts.allowFailure)
    throw new Error(`coffer ${args.join(" ")} exited ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

export function seedStore(sb: AgentSandbox): Seeded {
  coffer(sb, ["rules", "add", GLOBAL_RULE, "--scope", "global"]);
  coffer(sb, ["rules", "add", PROJECT_RULE, "--scope", "project"]);
  const r = coffer(sb, [
    "remember",
    ENTRY_BODY,
    "--title",
    ENTRY_TITLE,
    "--kind",
    "convention",
    "--tags",
    "release,deploy",
    "--json",
  ]);
  return { entryId: r.json().id };
}

/** All conversation text of a request, joined. */
export const textOf = (req: RecordedRequest | undefined) =>
  conversationTexts(req)
    .map((t) => t.text)
    .join("\n\n");

export const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

/** Asserts the session-start bundle (project rules before global, built-in rules) is in the request. */
export function expectBundle(req: RecordedRequest | undefined): void {
  const all = textOf(req);
  expect(all).toContain(BUNDLE_HEADING);
  expect(all).toContain(`- ${PROJECT_RULE}`);
  expect(all).toContain(`- ${GLOBAL_RULE}`);
  expect(all.indexOf(PROJECT_RULE)).toBeLessThan(all.indexOf(GLOBAL_RULE));
  expect(all).toContain("## Coffer built-in");
  for (const rule of SEEDED_RULES) expect(all).toContain(rule);
}

/** Nothing that Coffer injects or registers. */
export function expectNoCoffer(req: RecordedRequest | undefined): void {
  const all = textOf(req);
  expect(all).not.toContain("via Coffer");
  expect(all).not.toContain(PROJECT_RULE);
  expect(all).not.toContain(ENTRY_BODY);
  expect(all).not.toContain("coffer__");
  expect(all).not.toContain("mcp__coffer");
  expect(JSON.stringify(req?.body?.tools ?? [])).not.toContain("coffer");
}

/** The Claude Code transcript of a session (parsed lines). */
export function claudeTranscript(sb: AgentSandbox, sessionId: string): any[] {
  const p = join(sb.home, ".claude", "projects", sb.project.replace(/[^A-Za-z0-9]/g, "-"), `${sessionId}.jsonl`);
  return readFileSync(p, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/**
 * Every sign, in the CLI's own output (and Claude's transcript), that a hook failed, plus anything
 * Coffer's hook wrote to its own error log (it fails open, so errors would otherwise be silent).
 */
export function hookErrors(sb: AgentSandbox, run: AgentRun): string[] {
  const errors: string[] = [];
  const lines = `${run.stdout}\n${run.stderr}`.split("\n");
  const agent: AgentName = run.agent;
  if (agent === "claude") {
    errors.push(...lines.filter((l) => /hook/i.test(l)));
    if (run.sessionId) {
      for (const line of claudeTranscript(sb, run.sessionId)) {
        const a = line.attachment;
        if (line.type !== "attachment" || !a || typeof a.type !== "string" || !a.type.startsWith("hook")) continue;
        if (/error|cancel|block|timeout/i.test(a.type)) errors.push(`transcript: ${JSON.stringify(a).slice(0, 500)}`);
        if (a.type === "hook_success" && a.stdout?.trim()) {
          try {
            JSON.parse(a.stdout);
          } catch {
            errors.push(`transcript: hook stdout is not JSON: ${a.stdout.slice(0, 200)}`);
          }
        }
      }
    }
  } else if (agent === "codex") {
    errors.push(...lines.filter((l) => /^hook: \S+ (Failed|Blocked|Stopped)|hook.*(error|invalid)/i.test(l)));
  } else if (agent === "qwen") {
    // Its JSON on stdout lists a `hooks` slash command: only stderr speaks of hooks failing.
    errors.push(...run.stderr.split("\n").filter((l) => /hook/i.test(l)));
  } else {
    errors.push(...lines.filter((l) => /hook/i.test(l)));
  }
  const log = join(sb.cofferHome, "state", "hook.log");
  if (existsSync(log) && readFileSync(log, "utf8").trim())
    errors.push(`state/hook.log: ${readFileSync(log, "utf8").slice(0, 1000)}`);
  return errors;
}
