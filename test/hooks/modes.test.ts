/** `coffer set-read` and `coffer set-proof`: what each mode injects, and the proof lines. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
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
let n = 0;
const MEMORY = "# Relevant memory (via Coffer)";

beforeAll(() => {
  sb = sandbox("coffer-hook-modes-");
  repo = sb.repo("modes");
  const pid = projectId(repo);
  writeRules(sb, pid, "- Prefer small functions\n");
  writeEntries(sb, pid, [
    { id: "M1OTTER", title: "Otter service", body: "The otter service owns billing exports." },
    { id: "M2OTTERDB", title: "Otter database", body: "Otter uses Postgres 16." },
  ]);
});
afterAll(() => sb.cleanup());

const setRead = (mode: string) => sb.run(["set-read", mode]);
const setProof = (mode: string) => sb.run(["set-proof", mode]);
const start = (s: string) => hook(sb, "claude", "session-start", claudeStart(s, repo));
const ask = (s: string, p = "tell me about otter") => contextOf(hook(sb, "claude", "prompt", claudePrompt(s, repo, p)));
const sig8 = (ids: string[]) =>
  createHash("sha256")
    .update([...ids].sort().join("\n"))
    .digest("hex")
    .slice(0, 8);

describe("set-read", () => {
  test("rejects an unknown mode (exit 2, says the allowed ones) and writes hook.read", () => {
    const bad = setRead("sometimes");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("startup, auto, always, manual, off");
    expect(setRead("startup").code).toBe(0);
    expect(readFileSync(join(sb.cofferHome, "config.toml"), "utf8")).toContain('read = "startup"');
    expect(sb.run(["set-read", "--help"]).stdout).toContain("coffer set-read auto");
  });

  test("startup: rules + cards at session start, nothing on prompts", () => {
    setRead("startup");
    const s = `m-${++n}`;
    const ctx = contextOf(start(s));
    expect(ctx).toContain("## Project memory\n- [");
    expect(JSON.parse(hook(sb, "claude", "prompt", claudePrompt(s, repo, "otter?")).stdout)).toEqual({});
  });

  test("auto: delta on prompts", () => {
    setRead("auto");
    const s = `m-${++n}`;
    // which bodies, not their order (meaning orders two equal word matches)
    expect(bodyIds(ask(s)).sort()).toEqual(["M1OTTER", "M2OTTERDB"]);
    expect(bodyIds(ask(s))).toEqual([]);
  });

  test("always: every routed body on every prompt", () => {
    setRead("always");
    const s = `m-${++n}`;
    expect(bodyIds(ask(s)).sort()).toEqual(["M1OTTER", "M2OTTERDB"]);
    expect(bodyIds(ask(s)).sort()).toEqual(["M1OTTER", "M2OTTERDB"]);
  });

  test("manual: the rules bundle only (no cards), nothing on prompts, tools or subagents", () => {
    setRead("manual");
    const s = `m-${++n}`;
    const ctx = contextOf(start(s));
    expect(ctx).toContain("- Prefer small functions");
    expect(ctx).not.toContain("## Project memory");
    expect(JSON.parse(hook(sb, "claude", "prompt", claudePrompt(s, repo, "otter?")).stdout)).toEqual({});
    expect(
      JSON.parse(
        hook(sb, "claude", "subagent-start", {
          session_id: s,
          cwd: repo,
          hook_event_name: "SubagentStart",
          agent_id: "a",
        }).stdout,
      ),
    ).toEqual({});
  });

  test("off: nothing, not even at session start", () => {
    setRead("off");
    const s = `m-${++n}`;
    expect(JSON.parse(start(s).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "" },
    });
    expect(JSON.parse(hook(sb, "claude", "prompt", claudePrompt(s, repo, "otter?")).stdout)).toEqual({});
    setRead("auto");
  });
});

describe("set-proof compact", () => {
  test("rejects an unknown mode; writes hook.proof", () => {
    expect(setProof("loud").code).toBe(2);
    expect(setProof("compact").code).toBe(0);
    expect(readFileSync(join(sb.cofferHome, "config.toml"), "utf8")).toContain('proof = "compact"');
  });

  test("loaded, reused and no-load lines, with sig = 8 hex of sha256 of the sorted routed ids", () => {
    setProof("compact");
    const s = `p-${++n}`;
    const sig = sig8(["M1OTTER", "M2OTTERDB"]);
    const first = ask(s);
    expect(first.split("\n").at(-1)).toBe(`Coffer proof: loaded 2/2 via hook auto (sig ${sig}).`);
    const second = ask(s);
    expect(second).toBe(`${MEMORY}\n\nCoffer proof: reused 2/2, nothing new (sig ${sig}).`);
    // Nothing routed: nothing injected at all, proof or not (issue 29).
    expect(ask(s, "what time is it")).toBe("");
    setRead("manual");
    expect(ask(s)).toBe(`${MEMORY}\nCoffer proof: no load this turn (read mode manual).`);
    setRead("auto");
    expect(
      contextOf(start(`p-${++n}`))
        .split("\n")
        .at(-1),
    ).toMatch(
      /^Coffer proof: loaded rules \+ 2\/2 memory cards via session start \(read mode auto, sig [0-9a-f]{8}\)\.$/,
    );
  });

  test("off again: no proof lines", () => {
    setProof("off");
    expect(ask(`p-${++n}`)).not.toContain("Coffer proof:");
  });
});
