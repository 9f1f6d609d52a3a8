/**
 * Antigravity CLI's PreInvocation hook through the compiled binary (agy itself is not run here:
 * closed source, a curl installer), with the payloads its documentation and other tools' adapters
 * show: flat camelCase (`conversationId`, `workspacePaths`, `transcriptPath`, `invocationNum`) and
 * the nested protojson form (`{common, preInvocationHookArgs}`). The prompt is read from the
 * transcript's last USER_INPUT step. Checked: the bundle and a routed entry on a turn's first
 * invocation as `injectSteps`, `{}` on its later invocations and on other events' payloads, the
 * exit code always 0, stdout always one JSON value, and the delivery log counting host
 * `antigravity` apart from Gemini CLI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lastUserInput, metadataCwd, userRequestText } from "../../src/hosts/antigravity/steps";
import { projectId, runAsync, type Sandbox, sandbox, writeEntries, writeRules } from "../kit";

let sb: Sandbox;
let repo: string;
beforeAll(() => {
  sb = sandbox("coffer-hook-agy-");
  repo = sb.repo("app");
  const pid = projectId(repo);
  writeRules(sb, pid, "- Run bun test before committing\n");
  writeEntries(sb, pid, [
    {
      id: "E1RELEASE",
      title: "Release process",
      body: "This repo deploys via make release, never git push --tags.",
      tags: ["release"],
    },
  ]);
});
afterAll(() => sb.cleanup());

/** A conversation's transcript with the given typed prompts (USER_INPUT) and answers between them. */
function transcript(id: string, prompts: string[]): string {
  const dir = join(sb.home, ".gemini", "antigravity-cli", "brain", id, ".system_generated", "logs");
  mkdirSync(dir, { recursive: true });
  const lines = prompts.flatMap((p, i) => [
    {
      step_index: i * 2,
      source: "USER_EXPLICIT",
      type: "USER_INPUT",
      status: "DONE",
      created_at: `2026-12-03T10:0${i}:00Z`,
      content: `<USER_REQUEST>\n${p}\n</USER_REQUEST>\n<ADDITIONAL_METADATA>${JSON.stringify({ cwd: repo })}</ADDITIONAL_METADATA>`,
    },
    {
      step_index: i * 2 + 1,
      source: "MODEL",
      type: "PLANNER_RESPONSE",
      created_at: `2026-12-03T10:0${i}:05Z`,
      content: "On it.",
    },
  ]);
  const path = join(dir, "transcript.jsonl");
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return path;
}

const flat = (id: string, path: string, invocationNum?: number) => ({
  conversationId: id,
  workspacePaths: [repo],
  transcriptPath: path,
  ...(invocationNum === undefined ? {} : { invocationNum }),
});

function hook(event: "session-start" | "prompt", payload: unknown) {
  const r = sb.run(["hook", event, "--agent", "antigravity"], {
    stdin: typeof payload === "string" ? payload : JSON.stringify(payload),
    cwd: repo,
  });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  // One JSON value and nothing else: agy parses the answer strictly.
  const answer = JSON.parse(r.stdout);
  return answer as { injectSteps?: { systemMessage: { systemMessage: string } }[] };
}

const text = (a: { injectSteps?: { systemMessage: { systemMessage: string } }[] }) =>
  (a.injectSteps ?? []).map((s) => s.systemMessage.systemMessage).join("\n");

describe("coffer hook --agent antigravity (PreInvocation)", () => {
  test("invocation 0: the bundle once a conversation and the routed entry, as injectSteps; later invocations {}", () => {
    const path = transcript("conv-1", ["How does the release process work?"]);
    const start = hook("session-start", flat("conv-1", path, 0));
    expect(Object.keys(start)).toEqual(["injectSteps"]);
    expect(start.injectSteps).toHaveLength(1);
    expect(Object.keys(start.injectSteps![0]!)).toEqual(["systemMessage"]);
    expect(text(start)).toContain("- Run bun test before committing");
    const prompt = hook("prompt", flat("conv-1", path, 0));
    expect(text(prompt)).toContain("This repo deploys via make release");
    expect(text(prompt)).not.toContain("Run bun test before committing");

    // The same turn's later model calls: nothing.
    expect(hook("session-start", flat("conv-1", path, 1))).toEqual({});
    expect(hook("prompt", flat("conv-1", path, 3))).toEqual({});
    // The next turn: the bundle is not sent again, the entry not twice.
    const next = transcript("conv-1", ["How does the release process work?", "And the release again?"]);
    expect(hook("session-start", flat("conv-1", next, 0))).toEqual({});
    expect(text(hook("prompt", flat("conv-1", next, 0)))).not.toContain("This repo deploys via make release");
  });

  test("the nested protojson form, with invocationNum left out (protojson omits 0), and lastUserInput", () => {
    const path = transcript("conv-2", ["hello"]);
    const nested = {
      common: { conversationId: "conv-2", workspacePaths: [repo], transcriptPath: path },
      preInvocationHookArgs: {},
    };
    expect(text(hook("session-start", nested))).toContain("- Run bun test before committing");
    // The transcript says "hello"; lastUserInput, when agy sends it, wins.
    expect(hook("prompt", nested)).toEqual({});
    const withInput = { ...nested, common: { ...nested.common, lastUserInput: "release process steps?" } };
    expect(text(hook("prompt", withInput))).toContain("This repo deploys via make release");
    expect(hook("prompt", { ...nested, preInvocationHookArgs: { invocationNum: 2 } })).toEqual({});
  });

  test("other events' payloads, broken stdin, a missing transcript: {} and exit 0", () => {
    const path = transcript("conv-3", ["release process?"]);
    expect(hook("prompt", { ...flat("conv-3", path), toolCall: { name: "view_file", args: {} }, stepIdx: 4 })).toEqual(
      {},
    );
    expect(hook("prompt", { ...flat("conv-3", path), terminationReason: "DONE" })).toEqual({});
    expect(hook("prompt", { common: flat("conv-3", path), postToolHookArgs: {} })).toEqual({});
    expect(hook("prompt", "not json")).toEqual({});
    expect(hook("prompt", { workspacePaths: [repo] })).toEqual({});
    expect(hook("prompt", flat("conv-3", join(sb.root, "missing.jsonl"), 0))).toEqual({});
    expect(hook("session-start", { ...flat("conv-3", path, 0), workspacePaths: ["relative/dir"] })).toEqual({});
  });

  test("the delivery log counts antigravity as its own host", async () => {
    const path = transcript("conv-4", ["What is the release process?"]);
    const chars =
      text(hook("session-start", flat("conv-4", path, 0))).length +
      text(hook("prompt", flat("conv-4", path, 0))).length;
    expect(chars).toBeGreaterThan(0);
    const s = (await runAsync(sb, ["stats", "--json"], { cwd: repo })).json();
    const byHost = Object.fromEntries(s.hooks.by_host.map((h: { host: string; chars: number }) => [h.host, h.chars]));
    expect(byHost.antigravity).toBeGreaterThanOrEqual(chars);
    expect(byHost.gemini).toBeUndefined();
  });
});

describe("agy's steps (the hook path's transcript read)", () => {
  test("the last USER_INPUT's request, within the tail; agy's blocks are not the prompt", () => {
    const path = transcript("conv-5", ["first ask", "second ask"]);
    expect(lastUserInput(path)).toBe("second ask");
    // A tail that starts mid-line skips the cut line instead of misreading it.
    expect(lastUserInput(path, 40)).toBeUndefined();
    expect(userRequestText("<USER_SETTINGS_CHANGE>Model Selection</USER_SETTINGS_CHANGE>typed")).toBe("typed");
    expect(userRequestText([{ text: "<USER_REQUEST>a</USER_REQUEST>" }])).toBe("a");
    expect(metadataCwd(`<ADDITIONAL_METADATA>{"cwd":"${repo}"}</ADDITIONAL_METADATA>`)).toBe(repo);
    expect(metadataCwd("<ADDITIONAL_METADATA>open files: a.ts</ADDITIONAL_METADATA>")).toBeUndefined();
  });
});
