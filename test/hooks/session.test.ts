/** A scripted session through the compiled binary: delta injection, compaction, subagents, session sources. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  alreadyLoaded,
  bodyIds,
  claudePrompt,
  claudeStart,
  contextOf,
  hook,
  projectId,
  type Sandbox,
  sandbox,
  writeEntries,
  writeRules,
} from "../kit";

let sb: Sandbox;
let repo: string;
let pid: string;

const A = "A01QUOKKADEPLOY";
const B = "B01QUOKKAROLLBACK";
const C = "C01WOMBATCACHE";
const MEMORY = "# Relevant memory (via Coffer)";

beforeAll(() => {
  sb = sandbox("coffer-hook-session-");
  repo = sb.repo("svc");
  pid = projectId(repo);
  writeRules(sb, pid, "- Keep commits small\n");
  writeEntries(sb, pid, [
    { id: A, title: "Quokka deployment", body: "Quokka deploys go through the blue/green pipeline." },
    { id: B, title: "Quokka rollback", body: "Roll quokka back with `make rollback`." },
    { id: C, title: "Wombat cache", body: "The wombat cache is warmed at boot." },
    { id: "D01UNRELATED", title: "Lint settings", body: "We lint with biome." },
  ]);
});
afterAll(() => sb.cleanup());

const prompt = (session: string, text: string, extra: Record<string, unknown> = {}) =>
  contextOf(hook(sb, "claude", "prompt", claudePrompt(session, repo, text, extra)));
/** The context a Claude subagent of `session` gets at its start. */
const subagent = (session: string, agentId: string, agentType: string) =>
  contextOf(
    hook(sb, "claude", "subagent-start", {
      session_id: session,
      cwd: repo,
      hook_event_name: "SubagentStart",
      agent_id: agentId,
      agent_type: agentType,
    }),
  );

describe("delta injection in one session", () => {
  const S = "scripted-1";

  test("session start delivers the rules bundle", () => {
    const ctx = contextOf(hook(sb, "claude", "session-start", claudeStart(S, repo)));
    expect(ctx).toStartWith("# Project rules (via Coffer)\n\n## Project\n- Keep commits small");
  });

  test("prompt 1 routes A,B -> bodies A,B, nothing already loaded", () => {
    const ctx = prompt(S, "how does the quokka service work?");
    expect(ctx).toStartWith(`${MEMORY}\n`);
    expect(bodyIds(ctx)).toEqual([A, B]);
    expect(alreadyLoaded(ctx)).toBeUndefined();
  });

  test("prompt 2 routes A,B,C -> body C + `already loaded: A, B`", () => {
    const ctx = prompt(S, "quokka and wombat together");
    expect(bodyIds(ctx)).toEqual([C]);
    expect(alreadyLoaded(ctx)).toEqual([A, B]); // hand-named ids are their own handles
    expect(ctx).toContain("The wombat cache is warmed at boot.");
  });

  test("prompt 3 routes A,B,C, all delivered -> nothing (no lone already-loaded line)", () => {
    const ctx = prompt(S, "again: quokka wombat");
    expect(ctx).toBe("");
  });

  test("a prompt that routes nothing injects nothing", () => {
    const r = hook(sb, "claude", "prompt", claudePrompt(S, repo, "what time is it?"));
    expect(JSON.parse(r.stdout)).toEqual({});
  });

  test("compact resets: the next prompt gets the bodies again", () => {
    const r = hook(sb, "claude", "compact", {
      session_id: S,
      cwd: repo,
      hook_event_name: "PreCompact",
      trigger: "auto",
    });
    expect(JSON.parse(r.stdout)).toEqual({});
    expect(bodyIds(prompt(S, "quokka wombat")).sort()).toEqual([A, B, C]);
  });

  test("a subagent gets its own delivered set; the parent's set is untouched", () => {
    const sub = subagent(S, "agent7", "Explore");
    expect(sub).toStartWith("# Project rules (via Coffer)");
    expect(sub).toContain(MEMORY);
    expect(bodyIds(sub).sort()).toEqual([A, B, C]);
    // Parent: still everything delivered.
    expect(prompt(S, "quokka wombat")).toBe("");
    // The same subagent again: its own set now has them.
    const again = subagent(S, "agent7", "Explore");
    // Nothing new: the rules prefix only, no lone already-loaded line.
    expect(bodyIds(again)).toEqual([]);
    expect(alreadyLoaded(again)).toBeUndefined();
    // Another subagent starts fresh.
    const other = subagent(S, "agent8", "Plan");
    expect(bodyIds(other).sort()).toEqual([A, B, C]);
  });

  test("compacting the parent does not touch a subagent's set", () => {
    hook(sb, "claude", "compact", { session_id: S, cwd: repo, hook_event_name: "PreCompact", trigger: "manual" });
    const again = subagent(S, "agent7", "Explore");
    // The parent's set is empty after its compaction, so the subagent inherits nothing new to route.
    expect(bodyIds(again)).toEqual([]);
    expect(bodyIds(prompt(S, "quokka wombat")).sort()).toEqual([A, B, C]);
  });
});

describe("session-start sources", () => {
  const S = "sources-1";
  const start = (source: string) => hook(sb, "claude", "session-start", claudeStart(S, repo, source));

  test("resume keeps the delivered set and does not repeat an unchanged bundle", () => {
    start("startup");
    expect(bodyIds(prompt(S, "quokka"))).toEqual([A, B]);
    const resumed = start("resume");
    expect(JSON.parse(resumed.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "" },
    });
    expect(prompt(S, "quokka")).toBe("");
  });

  test("resume re-sends the bundle when the rules changed since, still keeping the set", () => {
    writeRules(sb, pid, "- Keep commits small\n- Squash before merging\n");
    const resumed = contextOf(start("resume"));
    expect(resumed).toContain("- Squash before merging");
    expect(prompt(S, "quokka")).toBe("");
    expect(contextOf(start("resume"))).toBe(""); // delivered now: not again
  });

  test("clear resets the set", () => {
    expect(contextOf(start("clear"))).toStartWith("# Project rules (via Coffer)");
    expect(bodyIds(prompt(S, "quokka"))).toEqual([A, B]);
  });

  test("startup resets the set", () => {
    expect(prompt(S, "quokka")).toBe("");
    expect(contextOf(start("startup"))).toStartWith("# Project rules (via Coffer)");
    expect(bodyIds(prompt(S, "quokka"))).toEqual([A, B]);
  });

  test("compact as a SessionStart source resets too", () => {
    expect(contextOf(start("compact"))).toStartWith("# Project rules (via Coffer)");
    expect(bodyIds(prompt(S, "quokka"))).toEqual([A, B]);
  });

  test("a resumed session Coffer never saw gets the bundle", () => {
    const ctx = contextOf(hook(sb, "claude", "session-start", claudeStart("never-seen", repo, "resume")));
    expect(ctx).toStartWith("# Project rules (via Coffer)");
  });

  test("an edited body counts as new again", () => {
    const S2 = "edit-1";
    expect(bodyIds(prompt(S2, "wombat"))).toEqual([C]);
    writeEntries(sb, pid, [
      { id: C, title: "Wombat cache", body: "The wombat cache is warmed lazily now.", updated: "2026-02-01T00:00:00Z" },
    ]);
    // A hand edit in place is seen by the CLI's deep check (the hook's shallow check only sees added/removed files).
    sb.run(["list"], { cwd: repo });
    const ctx = prompt(S2, "wombat");
    expect(bodyIds(ctx)).toEqual([C]);
    expect(ctx).toContain("warmed lazily now");
  });

  test("delivered sets are per host and per cwd", () => {
    const S3 = "shared-id";
    expect(bodyIds(prompt(S3, "quokka"))).toEqual([A, B]);
    const codex = contextOf(
      hook(sb, "codex", "prompt", { session_id: S3, cwd: repo, hook_event_name: "UserPromptSubmit", prompt: "quokka" }),
    );
    expect(bodyIds(codex)).toEqual([A, B]);
  });
});
