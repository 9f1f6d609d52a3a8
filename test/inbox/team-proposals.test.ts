/**
 * Distillation proposes insights for the team lane through the inbox (issue 28), never writing
 * into a repository's `.coffer/`: an insight the model marks `"team": true` is written to the
 * personal project scope and named by `inbox/team-<id>.json`; `coffer inbox approve` inside the
 * repository promotes it, `reject` keeps it personal. Scripted model answers on a loopback server.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseInsights } from "../../src/distill/insights";
import {
  FIXTURES,
  modelServer,
  placeClaude,
  placeCodex,
  runAsync,
  type Sandbox,
  type ScriptedModelServer,
  sandbox,
  simpleClaudeSession,
  writeModelConfig,
} from "../kit";

const SESSION = "eeeeeeee-0000-4000-8000-0000000000e1";
const env = { COFFER_TEST_KEY: "test-key-not-a-secret-123" };
const TEAM = {
  kind: "convention",
  title: "Run the test suite with make check",
  body: "Every contributor runs make check before pushing; it runs the linter and the unit tests.",
  team: true,
};
const MINE = {
  kind: "todo",
  title: "Look at the flaky upload test on my laptop",
  body: "The upload test fails on my laptop only; look at it next week.",
};

let sb: Sandbox;
let repo: string;
let server: ScriptedModelServer | undefined;

beforeEach(() => {
  sb = sandbox("coffer-team-proposals-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  placeClaude(sb, simpleClaudeSession("How do we run the tests?", "With make check, before every push."), {
    id: SESSION,
    cwd: repo,
  });
});
afterEach(() => {
  server?.stop();
  server = undefined;
  sb.cleanup();
});

const inboxDir = () => join(sb.cofferHome, "inbox");
const proposalFiles = () =>
  (existsSync(inboxDir()) ? readdirSync(inboxDir()) : []).filter((n) => n.startsWith("team-"));
const teamFile = (id: string) => join(repo, ".coffer", "entries", `${id}.md`);

/** Distil the session with the model answering `insights`; the written entries by title. */
async function distill(insights: object[], cwd = repo): Promise<{ message: string; ids: Record<string, string> }> {
  if (server) server.replies = [{ text: JSON.stringify(insights) }];
  else {
    server = modelServer([{ text: JSON.stringify(insights) }]);
    writeModelConfig(sb, "openai", server.url);
  }
  const r = await runAsync(sb, ["distill", "run", SESSION, "--force", "--json"], { env, cwd });
  expect(r.code).toBe(0);
  const [res] = r.json().results;
  expect(res.outcome).toBe("distilled");
  return {
    message: res.message,
    ids: Object.fromEntries(res.entries.map((e: { title: string; id: string }) => [e.title, e.id])),
  };
}

/** The one queued proposal. */
async function onlyProposal(): Promise<{ id: string; entry: { id: string; title: string; kind: string } }> {
  const list = (await runAsync(sb, ["inbox", "list", "--json"])).json();
  expect(list.team.length).toBe(1);
  return list.team[0];
}

describe("distillation proposes, never writes the team lane", () => {
  test("one insight marked team, one not: both personal, exactly one proposal, nothing in .coffer/", async () => {
    const { message, ids } = await distill([TEAM, MINE]);
    expect(message).toContain("1 proposed for the team lane (coffer inbox)");
    expect(server!.requests[0]!.body.messages[0].content).toContain('"team": true');
    expect(proposalFiles().length).toBe(1);
    expect(existsSync(join(repo, ".coffer"))).toBe(false);
    for (const id of Object.values(ids))
      expect(sb.run(["show", id, "--json"], { cwd: repo }).json().scope).toBe("project");

    const p = await onlyProposal();
    expect(p).toMatchObject({ kind: "team", entry: { id: ids[TEAM.title], title: TEAM.title, kind: "convention" } });
    expect(p).toMatchObject({ project: { label: "shop" }, session: SESSION, host: "claude" });
    const file = JSON.parse(readFileSync(join(inboxDir(), proposalFiles()[0]!), "utf8"));
    expect(file).toMatchObject({ version: 1, kind: "team", id: p.id });
    expect(JSON.stringify(file)).not.toContain(repo); // no machine path

    const listed = (await runAsync(sb, ["inbox"])).stdout;
    expect(listed).toContain(`${p.id.slice(-8)}  team      shop`);
    expect(listed).toContain(`"${TEAM.title}"`);
    const shown = await runAsync(sb, ["inbox", "show", p.id.slice(-8)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(TEAM.body); // the entry's text
    expect(shown.stdout).toContain(`coffer inbox approve ${p.id.slice(-8)}`);
  });

  test("the same entry distilled again is not proposed twice", async () => {
    await distill([TEAM, MINE]);
    await distill([TEAM, MINE]);
    expect(proposalFiles().length).toBe(1);
  });

  test("a team value that is not true is false, never fatal", () => {
    for (const team of ["yes", 1, null, "true", false]) {
      const [ins] = parseInsights(JSON.stringify([{ ...TEAM, team }])).insights;
      expect(ins!.team).toBe(false);
    }
    expect(parseInsights(JSON.stringify([TEAM])).insights[0]!.team).toBe(true);
  });
});

describe("deciding a proposal", () => {
  test("approve inside the repository promotes the entry; the proposal goes, the personal copy to the trash", async () => {
    const { ids } = await distill([TEAM, MINE]);
    const p = await onlyProposal();
    const r = await runAsync(sb, ["inbox", "approve", p.id.slice(-8)], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain(`promoted to .coffer/entries/${ids[TEAM.title]}.md`);
    const id = ids[TEAM.title]!;
    expect(readFileSync(teamFile(id), "utf8")).toContain(TEAM.body);
    expect(proposalFiles()).toEqual([]);
    expect(sb.run(["show", id, "--json"], { cwd: repo }).json().scope).toBe("team");
    expect(sb.run(["trash", "--json"], { cwd: repo }).stdout).toContain(id);
    // the other insight was never proposed and stays personal
    expect(sb.run(["show", ids[MINE.title]!, "--json"], { cwd: repo }).json().scope).toBe("project");
    expect(readdirSync(join(repo, ".coffer", "entries"))).toEqual([`${id}.md`]);
  });

  test("reject removes the proposal; the entry stays personal", async () => {
    const { ids } = await distill([TEAM]);
    const p = await onlyProposal();
    const r = await runAsync(sb, ["inbox", "reject", p.id, "--json"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ id: p.id, status: "rejected", kept: ids[TEAM.title] });
    expect(proposalFiles()).toEqual([]);
    expect(sb.run(["show", ids[TEAM.title]!, "--json"], { cwd: repo }).json().scope).toBe("project");
    expect(existsSync(join(repo, ".coffer"))).toBe(false);
  });

  test("approve outside the repository: a clear error, nothing lost", async () => {
    const { ids } = await distill([TEAM]);
    const p = await onlyProposal();
    const other = sb.repo("elsewhere");
    for (const cwd of [sb.home, other]) {
      const r = await runAsync(sb, ["inbox", "approve", p.id], { cwd });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("is for repository shop");
      expect(r.stderr).toContain("cd into your checkout of shop");
    }
    expect(proposalFiles().length).toBe(1);
    expect(existsSync(join(repo, ".coffer"))).toBe(false);
    expect(existsSync(join(other, ".coffer"))).toBe(false);
    expect(sb.run(["show", ids[TEAM.title]!, "--json"], { cwd: repo }).json().scope).toBe("project");
  });

  test("approve after the entry was forgotten says so and removes the proposal", async () => {
    const { ids } = await distill([TEAM]);
    const p = await onlyProposal();
    expect(sb.run(["forget", ids[TEAM.title]!], { cwd: repo }).code).toBe(0);
    const r = await runAsync(sb, ["inbox", "approve", p.id], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no longer in your project memory");
    expect(proposalFiles()).toEqual([]);
    expect(existsSync(join(repo, ".coffer", "entries"))).toBe(false);
  });
});

describe("no team lane, no proposal", () => {
  test("team.read = off: the insight is written, nothing proposed, no error", async () => {
    const { message, ids } = await distill([TEAM]);
    expect(proposalFiles().length).toBe(1); // baseline: with the lane on it is proposed
    sb.run(["inbox", "reject", (await onlyProposal()).id]);
    expect(sb.run(["config", "set", "team.read", "off"]).code).toBe(0);
    const again = await distill([{ ...TEAM, title: "Lint with make lint", body: "make lint runs biome." }]);
    expect(message).toContain("proposed for the team lane");
    expect(again.message).not.toContain("proposed for the team lane");
    expect(Object.keys(again.ids).length + Object.keys(ids).length).toBe(2);
    expect(proposalFiles()).toEqual([]);
  });

  test("a session outside any git repository: skipped as before, no proposal, no error", async () => {
    const plain = join(sb.root, "work", "scratch");
    placeClaude(sb, simpleClaudeSession(), { id: "eeeeeeee-0000-4000-8000-0000000000e2", cwd: plain });
    server = modelServer([{ text: JSON.stringify([TEAM]) }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", "eeeeeeee-0000-4000-8000-0000000000e2", "--json"], { env });
    expect(r.code).toBe(0);
    expect(r.json().results[0].outcome).toBe("skipped");
    expect(proposalFiles()).toEqual([]);
  });

  test("a project known only by its origin (its checkout is gone): written, nothing proposed, no error", async () => {
    const rollout = readFileSync(join(FIXTURES, "codex", "preambles-and-duplicates.jsonl"), "utf8");
    const id = "01a2b3c4-0000-4000-8000-0000000000e3";
    placeCodex(sb, rollout, { id, cwd: join(sb.root, "gone", "billing"), from: "/home/dev/work/billing" });
    server = modelServer([{ text: JSON.stringify([TEAM]) }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["distill", "run", id, "--json"], { env });
    expect(r.code).toBe(0);
    const [res] = r.json().results;
    expect(res).toMatchObject({ outcome: "distilled", project: "billing" });
    expect(res.entries.length).toBe(1);
    expect(res.message).not.toContain("team");
    expect(proposalFiles()).toEqual([]);
  });
});
