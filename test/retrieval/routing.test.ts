/** What routes and what does not: the relevance gate, named files, path triggers on tool events. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  bodyIds,
  claudePrompt,
  contextOf,
  type EntrySpec,
  hook,
  projectId,
  type Sandbox,
  sandbox,
  writeEntries,
} from "../kit";

let sb: Sandbox;
let repo: string;
let n = 0;

beforeAll(() => {
  sb = sandbox("coffer-hook-routing-");
  repo = sb.repo("shop");
  for (const f of [
    "src/payments/charge.ts",
    "src/payments/refund.ts",
    "src/ui/button.tsx",
    "docs/README.md",
    "Makefile",
  ]) {
    mkdirSync(join(repo, f, ".."), { recursive: true });
    writeFileSync(join(repo, f), "x\n");
  }
  const pid = projectId(repo);
  const entries: EntrySpec[] = [
    {
      id: "R01CHANGELOG",
      title: "Changelog policy",
      body: "We update the changelog with every merge and fix typos as we go.",
    },
    { id: "R02CIRUNNER", title: "CI runner limits", body: "Timeouts: the CI runner kills jobs after 10 minutes." },
    {
      id: "R03PARSER",
      title: "Parser design",
      body: "Hand-written recursive descent; errors recover at statement boundaries.",
    },
    {
      id: "R04STRIPE",
      title: "Payments provider",
      body: "Charges go through Stripe; idempotency keys are mandatory for retries.",
    },
    { id: "R05DEPLOY", title: "部署流程", body: "部署流程: 先运行 make release，然后检查监控。" },
    {
      id: "R06BUTTON",
      title: "UI conventions",
      body: "Buttons use the design-system primitives only.",
      applies_to: ["src/ui/**"],
    },
    { id: "R07MAKE", title: "Make targets", body: "Only the release target may push tags.", applies_to: ["Makefile"] },
  ];
  for (let i = 0; i < 5; i++)
    entries.push({
      id: `R1${i}PAY`,
      title: `Payments rule ${i}`,
      body: `Payment module rule number ${i}.`,
      applies_to: ["src/payments/**"],
    });
  writeEntries(sb, pid, entries);
  // A busy global lane: "acme" is in every one of them.
  const global: EntrySpec[] = [];
  for (let i = 0; i < 30; i++)
    global.push({
      id: `G${String(i).padStart(2, "0")}ACME`,
      title: `Acme note ${i}`,
      body: `acme internal convention ${i}${i === 7 ? " about billing exports" : ""}`,
    });
  writeEntries(sb, "global", global);
});
afterAll(() => sb.cleanup());

const route = (prompt: string) =>
  bodyIds(contextOf(hook(sb, "claude", "prompt", claudePrompt(`route-${++n}`, repo, prompt))));

describe("relevance gate", () => {
  test("a prompt that only shares a common word with an entry routes nothing", () => {
    expect(route("please update the README and fix the typos")).toEqual([]);
    expect(route("run the tests again, something is wrong")).toEqual([]);
  });

  test("one body word shared with a long prompt is not enough", () => {
    expect(
      route("Refactor the checkout module to use the shared retry helper and add a timeout parameter"),
    ).not.toContain("R02CIRUNNER");
  });

  test("a short, specific prompt routes on one rare term", () => {
    expect(route("what are the timeouts?")).toEqual(["R02CIRUNNER"]);
  });

  test("one title word in a long prompt about other things is not enough; in a short one it is", () => {
    expect(
      route("Refactor the checkout module and make the parser helper faster, then add a timeout parameter"),
    ).not.toContain("R03PARSER");
    expect(route("how does the parser recover?")).toEqual(["R03PARSER"]);
  });

  test("Claude's background-task notifications are not prompts: nothing routes", () => {
    expect(route("what are the timeouts?")).toEqual(["R02CIRUNNER"]);
    const note =
      "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n<summary>what are the timeouts?</summary>\n</task-notification>";
    const out = hook(sb, "claude", "prompt", claudePrompt(`route-${++n}`, repo, note));
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({});
  });

  test("two distinct terms route", () => {
    expect(route("do retries need idempotency keys for the checkout flow and the admin screens?")).toContain(
      "R04STRIPE",
    );
  });

  test("a term found in more than half of a 20+ entry store carries no weight", () => {
    expect(route("acme")).toEqual([]);
    expect(route("acme billing")).toEqual(["G07ACME"]);
  });

  test("CJK prompts route through bigrams", () => {
    expect(route("部署流程是什么？")).toEqual(["R05DEPLOY"]);
  });
});

describe("files named in a prompt", () => {
  test("an existing file routes entries whose applies_to matches it", () => {
    expect(route("why is `src/ui/button.tsx:42` so slow?")).toEqual(["R06BUTTON"]);
    expect(route("look at Makefile")).toEqual(["R07MAKE"]);
  });

  test("a file that does not exist yet routes its applies_to entries; one outside cwd routes nothing", () => {
    expect(route("create src/ui/missing.tsx")).toEqual(["R06BUTTON"]);
    expect(route("look at src/elsewhere/missing.tsx")).toEqual([]);
    expect(route("look at ../../../../etc/passwd")).toEqual([]);
  });
});

describe("tool path triggers", () => {
  const read = (session: string, file: string, tool = "Read") =>
    contextOf(
      hook(sb, "claude", "tool", {
        session_id: session,
        cwd: repo,
        hook_event_name: "PreToolUse",
        tool_name: tool,
        tool_input: { file_path: file },
      }),
    );

  test("at most 3 bodies per event; the next touch brings the rest; then nothing", () => {
    const s = "tool-1";
    const first = bodyIds(read(s, join(repo, "src/payments/charge.ts")));
    expect(first.length).toBe(3);
    const second = bodyIds(read(s, join(repo, "src/payments/refund.ts"), "Edit"));
    expect(second.length).toBe(2);
    expect([...first, ...second].sort()).toEqual(["R10PAY", "R11PAY", "R12PAY", "R13PAY", "R14PAY"]);
    expect(read(s, join(repo, "src/payments/charge.ts"), "Write")).toBe("");
  });

  test("relative paths resolve against cwd; paths outside cwd are ignored", () => {
    expect(bodyIds(read("tool-2", "src/ui/button.tsx", "MultiEdit"))).toEqual(["R06BUTTON"]);
    expect(read("tool-3", "/etc/passwd")).toBe("");
    expect(read("tool-3", join(repo, "..", "other", "src", "ui", "x.tsx"))).toBe("");
  });

  test("tool events share the delivered set with prompts", () => {
    const s = "tool-4";
    expect(
      bodyIds(contextOf(hook(sb, "claude", "prompt", claudePrompt(s, repo, "src/ui/button.tsx looks odd")))),
    ).toEqual(["R06BUTTON"]);
    expect(read(s, join(repo, "src/ui/button.tsx"))).toBe("");
    const gem = (event: "prompt" | "tool", extra: Record<string, unknown>) =>
      contextOf(hook(sb, "gemini", event, { session_id: "gem-shared", cwd: repo, ...extra }));
    expect(
      bodyIds(
        gem("tool", {
          hook_event_name: "AfterTool",
          tool_name: "read_file",
          tool_input: { file_path: join(repo, "Makefile") },
        }),
      ),
    ).toEqual(["R07MAKE"]);
    // Delivered by the tool event: the prompt has nothing new to add (no lone already-loaded line).
    expect(gem("prompt", { hook_event_name: "BeforeAgent", prompt: "check the Makefile" })).toBe("");
  });

  test("a body larger than the host's cap is never cut: it arrives as a card", () => {
    writeEntries(sb, projectId(repo), [
      { id: "R20HUGE", title: "Huge generated notes", body: "x".repeat(12_000), applies_to: ["docs/**"] },
    ]);
    const ctx = read("tool-huge", join(repo, "docs/README.md"));
    expect(ctx).toContain("- [R20HUGE] Huge generated notes");
    expect(ctx).not.toContain("xxxxxxxxxx");
    expect(ctx.length).toBeLessThanOrEqual(9500);
    // Not delivered: the next touch offers it again.
    expect(read("tool-huge", join(repo, "docs/README.md"))).toContain("- [R20HUGE]");
  });

  test("a tool event inside a subagent goes to the subagent's set", () => {
    const s = "tool-5";
    const sub = contextOf(
      hook(sb, "claude", "tool", {
        session_id: s,
        cwd: repo,
        hook_event_name: "PreToolUse",
        agent_id: "sub1",
        agent_type: "Explore",
        tool_name: "Read",
        tool_input: { file_path: join(repo, "Makefile") },
      }),
    );
    expect(bodyIds(sub)).toEqual(["R07MAKE"]);
    expect(bodyIds(read(s, join(repo, "Makefile")))).toEqual(["R07MAKE"]); // the parent has not seen it
  });
});
