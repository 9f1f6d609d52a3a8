/**
 * Memory that stays true: the distillation request lists the project's existing entries the
 * conversation relates to; the model may answer that an insight supersedes one (the old entry is
 * kept, marked superseded, never routed or injected) or contradicts one without settling it (the
 * insight waits in the inbox for a person). Scripted model answers on a loopback server.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import {
  claudePrompt,
  claudeStart,
  contextOf,
  entryFiles,
  hook,
  type ModelServer,
  modelServer,
  placeClaude,
  runAsync,
  type Sandbox,
  sandbox,
  simpleClaudeSession,
  stdioClient,
  writeEntries,
  writeModelConfig,
} from "../kit";

const SESSION = "dddddddd-0000-4000-8000-0000000000d1";
const env = { COFFER_TEST_KEY: "test-key-not-a-secret-123" };
const OLD = "Deploys go through make release; never push tags by hand.";

let sb: Sandbox;
let repo: string;
let server: ModelServer | undefined;
let oldId: string;

beforeEach(() => {
  sb = sandbox("coffer-supersede-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  const r = sb.run(["remember", OLD, "--kind", "decision", "--json"], { cwd: repo });
  expect(r.code).toBe(0);
  oldId = r.json().id;
  placeClaude(
    sb,
    simpleClaudeSession(
      "How do we deploy now that make release is gone?",
      "We deploy with the GitHub Actions release workflow now; make release was removed.",
    ),
    { id: SESSION, cwd: repo },
  );
});
afterEach(() => {
  server?.stop();
  server = undefined;
  sb.cleanup();
});

const insight = (extra: Record<string, string> = {}) => [
  {
    kind: "decision",
    title: "Releases run in the GitHub Actions workflow",
    body: "Deploys go through the release workflow in GitHub Actions; make release was removed.",
    ...extra,
  },
];

describe("the request lists related entries", () => {
  test("distill show and the request carry the existing entry with its id; the prompt explains supersedes", async () => {
    server = modelServer([{ text: JSON.stringify(insight()) }]);
    writeModelConfig(sb, "openai", server.url);
    const shown = await runAsync(sb, ["distill", "show", SESSION]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("Existing entries of this project that may be related");
    expect(shown.stdout).toContain(`[${oldId}] (decision)`);
    expect(shown.stdout).toContain(OLD);
    expect((await runAsync(sb, ["distill", "run", SESSION], { env })).code).toBe(0);
    const body = server.requests[0]!.body;
    expect(body.messages[0].content).toContain('"supersedes"');
    expect(body.messages[1].content).toBe(shown.stdout);
  });
});

test("a related entry edited by hand with a secret in it is sent scrubbed", async () => {
  const token = `ghp_${"a1B2c3D4e5F6g7H8i9J0".repeat(2).slice(0, 36)}`;
  const pid = sb.run(["status", "--json"], { cwd: repo }).json().project.id as string;
  writeEntries(sb, pid, [
    {
      id: "01J00000000000000000000HND",
      title: "Deploy token for make release",
      body: `The release workflow deploys with token ${token} (rotate yearly).`,
    },
  ]);
  expect(sb.run(["list"], { cwd: repo }).code).toBe(0); // the next command indexes the hand-written file
  server = modelServer([{ text: "[]" }]);
  writeModelConfig(sb, "openai", server.url);
  expect((await runAsync(sb, ["distill", "run", SESSION], { env })).code).toBe(0);
  const sent = server.requests[0]!.raw;
  expect(sent).toContain("01J00000000000000000000HND");
  expect(sent).not.toContain(token);
  expect(sent).toContain("[redacted]");
});

describe("contradictions go to the inbox", () => {
  test("an insight that contradicts an entry is not written; the inbox shows both; reject keeps the entry", async () => {
    server = modelServer([{ text: JSON.stringify(insight({ contradicts: oldId })) }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION, "--json"], { env });
    expect(r.code).toBe(0);
    const [res] = r.json().results;
    expect(res.outcome).toBe("distilled");
    expect(res.entries).toMatchObject([{ status: "conflict", contradicts: oldId }]);
    expect(res.message).toContain("1 contradiction left in the inbox");
    expect(entryFiles(sb).length).toBe(1); // only the old entry

    const inbox = (await runAsync(sb, ["inbox", "list", "--json"])).json();
    expect(inbox.conflicts.length).toBe(1);
    const c = inbox.conflicts[0];
    expect(c.existing).toMatchObject({ id: oldId, body: OLD });
    expect(c.insight.title).toBe("Releases run in the GitHub Actions workflow");
    const shown = await runAsync(sb, ["inbox", "show", c.id]);
    expect(shown.stdout).toContain(`existing entry ${oldId.slice(-8)}`); // its handle
    expect(shown.stdout).toContain("new insight [decision]");

    const before = entryFiles(sb)[0]!.text;
    expect((await runAsync(sb, ["inbox", "reject", c.id])).code).toBe(0);
    expect((await runAsync(sb, ["inbox", "list", "--json"])).json().conflicts).toEqual([]);
    expect(entryFiles(sb)[0]!.text).toBe(before);
  });

  test("an id the model was not shown is ignored: the insight is written as a plain entry", async () => {
    server = modelServer([{ text: JSON.stringify(insight({ supersedes: "01ZZZZZZZZZZZZZZZZZZZZZZZZ" })) }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION, "--json"], { env });
    expect(r.code).toBe(0);
    const [e] = r.json().results[0].entries;
    expect(e.status).toBe("created");
    expect(e.supersedes).toBeUndefined();
    const old = entryFiles(sb).find((f) => f.text.includes(`id: ${oldId}`))!;
    expect(old.text).not.toContain("superseded");
    expect(readFileSync(old.path, "utf8")).toContain(OLD);
  });
});

/** What hooks inject for a prompt that names the old entry's words, and at session start. */
function injected(session: string): string {
  const start = hook(sb, "claude", "session-start", claudeStart(session, repo), { cwd: repo });
  const prompt = hook(
    sb,
    "claude",
    "prompt",
    claudePrompt(session, repo, "How do we deploy with make release? Push tags by hand?"),
    {
      cwd: repo,
    },
  );
  expect(start.code).toBe(0);
  expect(prompt.code).toBe(0);
  return `${contextOf(start)}\n${contextOf(prompt)}`;
}

function expectSuperseded(newId: string): void {
  const file = entryFiles(sb).find((f) => f.text.includes(`id: ${oldId}`))!;
  expect(file).toBeDefined(); // kept on disk
  expect(file.text).toContain("status: superseded");
  expect(file.text).toContain(`superseded_by: ${newId}`);
  expect(file.text).toContain(OLD); // the body is untouched
  // Not listed by default; listed with --all, marked.
  const listed = sb
    .run(["list", "--json"], { cwd: repo })
    .json()
    .entries.map((e: { id: string }) => e.id);
  expect(listed).toContain(newId);
  expect(listed).not.toContain(oldId);
  const all = sb.run(["list", "--all", "--json"], { cwd: repo }).json().entries;
  expect(all.find((e: { id: string }) => e.id === oldId)).toMatchObject({ status: "superseded", superseded_by: newId });
  const text = sb.run(["list", "--all"], { cwd: repo }).stdout;
  expect(text).toContain(`(superseded by ${newId.slice(-8)})`); // handles
  // Never recalled, routed or injected.
  const hits = sb.run(["recall", "make release push tags by hand", "--json"], { cwd: repo }).json();
  expect(JSON.stringify(hits)).not.toContain(oldId);
  const grepped = sb.run(["recall", "push tags by hand", "--mode", "grep", "--json"], { cwd: repo });
  expect(grepped.code).toBe(0);
  expect(grepped.stdout).not.toContain(oldId);
  const context = injected(`s-${newId.slice(-6)}`);
  expect(context).not.toContain(oldId.slice(-8)); // the handle the hooks print
  expect(context).not.toContain("never push tags by hand");
}

describe("superseded entries", () => {
  test("before: the old entry is injected, recalled and grepped (so the checks below mean something)", () => {
    expect(injected("s-before")).toContain(`[${oldId.slice(-8)}]`); // the handle the hooks print
    expect(sb.run(["recall", "make release push tags by hand", "--json"], { cwd: repo }).stdout).toContain(oldId);
    expect(sb.run(["recall", "push tags by hand", "--mode", "grep", "--json"], { cwd: repo }).stdout).toContain(oldId);
  });

  test("round trip through distillation: the model answers supersedes, the old entry is kept but never injected", async () => {
    server = modelServer([{ text: JSON.stringify(insight({ supersedes: oldId })) }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION, "--json"], { env });
    expect(r.code).toBe(0);
    const [res] = r.json().results;
    const [e] = res.entries;
    expect(e).toMatchObject({ status: "created", supersedes: oldId });
    expect(res.message).toContain("1 superseding an older entry");
    expectSuperseded(e.id);
    // The next distillation no longer offers the superseded entry to the model.
    const shown = await runAsync(sb, ["distill", "show", SESSION]);
    expect(shown.stdout).not.toContain(`[${oldId}]`);
  });

  test("coffer remember --supersedes does the same by hand; a second supersede of it is refused", () => {
    const r = sb.run(
      ["remember", "We deploy from GitHub Actions now", "--kind", "decision", "--supersedes", oldId, "--json"],
      {
        cwd: repo,
      },
    );
    expect(r.code).toBe(0);
    expect(r.json().superseded).toBe(oldId);
    expectSuperseded(r.json().id);
    const again = sb.run(["remember", "Something else", "--supersedes", oldId], { cwd: repo });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already superseded");
    const unknown = sb.run(["remember", "Something else", "--supersedes", "01ZZZZZZZZZZZZZZZZZZZZZZZZ"], { cwd: repo });
    expect(unknown.code).toBe(1);
  });

  test("the MCP remember tool takes supersedes", async () => {
    const mcp = await stdioClient(sb, repo);
    try {
      const res = await mcp.ok("remember", {
        text: "We deploy from GitHub Actions now",
        kind: "decision",
        supersedes: oldId,
      });
      expect(res.superseded).toBe(oldId);
      expectSuperseded(res.id);
    } finally {
      await mcp.close();
    }
  });

  test("approving a contradiction from the inbox supersedes the old entry", async () => {
    server = modelServer([{ text: JSON.stringify(insight({ contradicts: oldId })) }]);
    writeModelConfig(sb, "openai", server.url);
    expect((await runAsync(sb, ["distill", "run", SESSION], { env })).code).toBe(0);
    const [c] = (await runAsync(sb, ["inbox", "list", "--json"])).json().conflicts;
    const r = await runAsync(sb, ["inbox", "approve", c.id, "--yes", "--json"]);
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({ id: c.id, status: "approved", superseded: oldId });
    expect((await runAsync(sb, ["inbox", "list", "--json"])).json().conflicts).toEqual([]);
    expectSuperseded(out.entry);
  });
});

describe("near-duplicates by meaning (the entry vectors)", () => {
  test("an insight close in meaning to an entry of its kind waits in the inbox; one saying it again is not written", async () => {
    const r0 = sb.run(["remember", "Tests run with vitest", "--kind", "convention", "--json"], { cwd: repo });
    const testsId = r0.json().id as string;
    const before = entryFiles(sb).length;
    server = modelServer([
      {
        text: JSON.stringify([
          { kind: "convention", title: "Unit tests", body: "We use vitest for unit tests" },
          { kind: "decision", title: "Deploys", body: "Deploys go through make release and never push tags by hand." },
        ]),
      },
    ]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", SESSION, "--json"], { env });
    expect(r.code).toBe(0);
    const entries = r.json().results[0].entries as { id: string; status: string; contradicts?: string }[];
    expect(entries[0]).toMatchObject({ status: "conflict", contradicts: testsId });
    expect(entries[1]).toMatchObject({ id: oldId, status: "duplicate" });
    expect(entryFiles(sb).length).toBe(before);
    const [c] = (await runAsync(sb, ["inbox", "list", "--json"])).json().conflicts;
    expect(c.existing.id).toBe(testsId);
  });
});
