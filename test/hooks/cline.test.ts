/**
 * Cline through the compiled binary: the hook scripts `coffer link cline` writes, run by sh as
 * Cline 3.0.65 runs them (the payload on stdin, one JSON answer on stdout), on payloads captured
 * from the real CLI; and the transcript reader on a real session. The real CLI end to end:
 * test/agents/cline.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clineToolPaths } from "../../src/hosts/cline/hook";
import { clineActivity, clineHead, parseCline } from "../../src/transcripts/cline";
import { BIN, projectId, type Sandbox, sandbox, writeEntries, writeRules } from "../kit";

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-hook-cline-");
  repo = sb.repo("app");
  mkdirSync(join(repo, "deploy"), { recursive: true });
  writeFileSync(join(repo, "deploy", "run.sh"), "make release\n");
  const pid = projectId(repo);
  writeRules(sb, pid, "- Run bun test before committing\n");
  writeEntries(sb, pid, [
    {
      id: "E1RELEASE",
      title: "Release process",
      body: "This repo deploys via make release, never git push --tags.",
      tags: ["release"],
      applies_to: ["deploy/**"],
    },
  ]);
  const r = sb.run(["link", "cline"], { cwd: repo });
  if (r.code !== 0) throw new Error(r.stderr);
});
afterAll(() => sb.cleanup());

/** What Cline 3.0.65 sends every hook (captured), for one session. */
const base = (session: string, hookName: string) => ({
  clineVersion: "",
  timestamp: "2026-12-03T18:43:21.519Z",
  taskId: `conv_${session}`,
  sessionContext: { rootSessionId: session },
  workspaceRoots: [repo],
  workspaceInfo: { rootPath: repo, hint: "app" },
  userId: "unknown",
  agent_id: "agent_1",
  parent_agent_id: null,
  hookName,
});

const toolResult = (session: string, name: string, input: unknown) => ({
  ...base(session, "tool_result"),
  iteration: 1,
  tool_result: { id: "call_1", name, input, output: [], durationMs: 16 },
  postToolUse: { toolName: name, parameters: {}, result: "", success: true, executionTimeMs: 16 },
});

/** Run one of the scripts link wrote, as Cline does (`bash <file>`, payload on stdin). */
function runScript(name: string, payload: unknown): Record<string, unknown> {
  const file = join(sb.home, ".cline", "hooks", name);
  const p = Bun.spawnSync(["sh", file], {
    cwd: repo,
    env: { ...sb.env },
    stdin: Buffer.from(JSON.stringify(payload)),
  });
  expect(p.exitCode).toBe(0);
  return JSON.parse(p.stdout.toString());
}

describe("the hook scripts of coffer link cline", () => {
  test("they are Coffer's (marker line) and run this binary", () => {
    for (const name of ["UserPromptSubmit.sh", "PostToolUse.sh"]) {
      const text = readFileSync(join(sb.home, ".cline", "hooks", name), "utf8");
      expect(text).toStartWith("# coffer: written by `coffer link cline`");
      expect(text).toContain(`'${BIN}' hook session-start --agent cline`);
    }
  });

  test("first file tool of a session: the bundle and the path-triggered entry in one contextModification", () => {
    const out = runScript(
      "PostToolUse.sh",
      toolResult("s1", "read_files", { files: [{ path: join(repo, "deploy", "run.sh") }] }),
    );
    expect(Object.keys(out)).toEqual(["contextModification"]);
    const ctx = String(out.contextModification);
    expect(ctx).toStartWith("# Project rules (via Coffer)");
    expect(ctx).toContain("- Run bun test before committing");
    expect(ctx).toContain("\n\n# Relevant memory (via Coffer)");
    expect(ctx).toContain("This repo deploys via make release");
    // The same file again: nothing new, the bundle already given.
    expect(
      runScript(
        "PostToolUse.sh",
        toolResult("s1", "read_files", { files: [{ path: join(repo, "deploy", "run.sh") }] }),
      ),
    ).toEqual({});
  });

  test("another tool first: the bundle alone; then a prompt routes the entry without the bundle", () => {
    const first = runScript("PostToolUse.sh", toolResult("s2", "run_commands", { commands: ["ls"] }));
    expect(String(first.contextModification)).toStartWith("# Project rules (via Coffer)");
    expect(String(first.contextModification)).not.toContain("Relevant memory");
    const prompt = runScript("UserPromptSubmit.sh", {
      ...base("s2", "prompt_submit"),
      userPromptSubmit: { prompt: "how does the release process work?", attachments: [] },
    });
    expect(String(prompt.contextModification)).toStartWith("# Relevant memory (via Coffer)");
    expect(String(prompt.contextModification)).not.toContain("Project rules");
  });

  test("apply_patch paths are path triggers; garbage on stdin gives {}", () => {
    expect(
      clineToolPaths("apply_patch", {
        input: "*** Begin Patch\n*** Update File: deploy/run.sh\n@@\n-a\n+b\n*** End Patch",
      }),
    ).toEqual(["deploy/run.sh"]);
    expect(clineToolPaths("read_files", { files: [{ path: "/a" }, { path: "/b" }] })).toEqual(["/a", "/b"]);
    expect(clineToolPaths("run_commands", { commands: ["ls"] })).toBeUndefined();
    const p = Bun.spawnSync(["sh", join(sb.home, ".cline", "hooks", "UserPromptSubmit.sh")], {
      cwd: repo,
      env: { ...sb.env },
      stdin: Buffer.from("not json"),
    });
    expect(p.exitCode).toBe(0);
    expect(p.stdout.toString().trim()).toBe("{}");
  });

  test("unlink removes both scripts and the MCP entry", () => {
    const r = sb.run(["unlink", "cline"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(() => readFileSync(join(sb.home, ".cline", "hooks", "PostToolUse.sh"))).toThrow();
    expect(() => readFileSync(join(sb.home, ".cline", "hooks", "UserPromptSubmit.sh"))).toThrow();
    sb.run(["link", "cline"], { cwd: repo });
  });
});

const DIR = join(import.meta.dir, "..", "fixtures", "transcripts", "cline", "1796323768041_27txd");

describe("Cline transcripts (sessions/<id>/<id>.messages.json)", () => {
  test("a real session: the typed prompt unwrapped, the answer, none of Coffer's context", () => {
    const p = parseCline(readFileSync(join(DIR, "1796323768041_27txd.messages.json"), "utf8"));
    expect(p.session_id).toBe("1796323768041_27txd");
    expect(p.cwd).toBe("/home/u/proj");
    expect(p.turns.map((t) => [t.role, t.text])).toEqual([
      ["user", "make it nicer please"],
      ["assistant", "done"],
    ]);
    expect(JSON.stringify(p)).not.toContain("via Coffer");
    expect(p.title).toBe("make it nicer please");
  });

  test("activity (the use signal): the typed prompt, the read_files call with its path, its result", () => {
    const acts = clineActivity(readFileSync(join(DIR, "1796323768041_27txd.messages.json"), "utf8"));
    expect(acts[0]).toEqual({ kind: "prompt", text: "make it nicer please", at: 1796323768594 });
    const call = acts.find((a) => a.kind === "tool")!;
    expect(call.tool).toBe("read_files");
    expect(call.text).toContain("/home/u/proj/deploy/release.sh");
    const result = acts.find((a) => a.kind === "result")!;
    expect(result.tool).toBe("read_files");
    expect(result.text).toContain("echo release");
    // Coffer's own context (hook_context messages) is never a prompt.
    expect(acts.filter((a) => a.kind === "prompt").every((a) => !a.text.includes("via Coffer"))).toBe(true);
  });

  test("head: id, cwd and start from the metadata beside it", () => {
    expect(clineHead(join(DIR, "1796323768041_27txd.messages.json"))).toEqual({
      session_id: "1796323768041_27txd",
      cwd: "/home/u/proj",
      first_activity: "2026-12-03T18:49:28.051Z",
    });
  });
});
