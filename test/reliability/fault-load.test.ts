/**
 * Fault-injection suite, load (issue 12): on a store of ~600 entries, 50 concurrent hooks across
 * all six hosts, two MCP writers, a distillation sweep and a full reindex at the same time. Every
 * hook exits 0 with exactly one valid answer within its deadline (plus process start-up), no write
 * is lost, nothing reports SQLITE_BUSY, and the index matches memory/ afterwards. Prints hook
 * p50/p95. (test/e2e/reliability.test.ts keeps the Claude-only version with the same writers.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  type ModelServer,
  modelServer,
  placeClaude,
  projectId,
  rng,
  type Sandbox,
  sandbox,
  simpleClaudeSession,
  stdioClient,
  writeEntries,
  writeModelConfig,
} from "../kit";
import { checkConsistent, HOSTS, percentile, record, runHook, seedFor, validAnswer } from "./_fault";

let sb: Sandbox;
let repo: string;
let server: ModelServer;
const DEADLINE_MS = 1500; // hook.deadline_ms default

beforeAll(() => {
  sb = sandbox("coffer-fault-load-");
  repo = sb.repo("busy");
  server = modelServer(
    Array.from({ length: 4 }, (_, i) => ({
      text: JSON.stringify([{ kind: "gotcha", title: `Load lesson ${i}`, body: `The osprey job ${i} needs a lock.` }]),
      delayMs: 50,
    })),
  );
  writeModelConfig(sb, "openai", server.url);
  for (let i = 0; i < 4; i++)
    placeClaude(sb, simpleClaudeSession(`How does osprey work? (${i})`, `It locks; run ${i}.`), {
      id: `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, "0")}`,
      cwd: repo,
      ageMinutes: 30 + i,
    });
  const topics = ["release", "billing", "osprey", "parser", "deploy", "tokens", "cache", "queue"];
  writeEntries(
    sb,
    projectId(repo),
    Array.from({ length: 500 }, (_, i) => ({
      id: `01L${String(i).padStart(23, "0")}`,
      title: `${topics[i % topics.length]} note ${i}`,
      body: `How the ${topics[i % topics.length]} part works, detail ${i}: ${"lorem ipsum ".repeat(20)}`,
      ...(i % 10 === 0 ? { applies_to: ["src/**"] } : {}),
    })),
  );
  writeEntries(
    sb,
    "global",
    Array.from({ length: 100 }, (_, i) => ({
      id: `01G${String(i).padStart(23, "0")}`,
      title: `global ${i}`,
      body: `g ${i}`,
    })),
  );
  expect(sb.run(["reindex"], { cwd: repo }).code).toBe(0);
  expect(sb.run(["rules", "add", "Run the tests before pushing", "--scope", "project"], { cwd: repo }).code).toBe(0);
});
afterAll(() => {
  server.stop();
  sb.cleanup();
});

function payload(host: string, event: "session-start" | "prompt", s: string, prompt: string): Record<string, unknown> {
  switch (host) {
    case "claude":
    case "codex":
    case "gemini":
      return event === "session-start"
        ? { session_id: s, cwd: repo, hook_event_name: "SessionStart", source: "startup" }
        : { session_id: s, cwd: repo, hook_event_name: host === "gemini" ? "BeforeAgent" : "UserPromptSubmit", prompt };
    case "cursor":
      return event === "session-start"
        ? { conversation_id: s, hook_event_name: "sessionStart", workspace_roots: [repo] }
        : { conversation_id: s, hook_event_name: "beforeSubmitPrompt", workspace_roots: [repo], prompt };
    case "windsurf":
      return { agent_action_name: "pre_user_prompt", trajectory_id: s, tool_info: { user_prompt: prompt } };
    default:
      return { hook_event_name: "chat.message", session_id: s, cwd: repo, prompt };
  }
}

test("50 hooks across hosts + 2 MCP writers + a sweep + a reindex: every hook answers once, in time; nothing lost", async () => {
  const rand = rng(seedFor("load"));
  const env = { COFFER_TEST_KEY: "k" };
  const a = await stdioClient(sb, repo, "writer-a");
  const b = await stdioClient(sb, repo, "writer-b");
  const t0 = performance.now();
  const hooks = Array.from({ length: 50 }, (_, i) => {
    const host = HOSTS[i % HOSTS.length]!;
    const event = rand() < 0.3 ? "session-start" : "prompt";
    const prompt = `how does the ${["osprey", "release", "billing", "parser"][i % 4]} part work? #${i}`;
    return runHook(sb, host, event, JSON.stringify(payload(host, event, `load-${i % 12}`, prompt)), repo, env).then(
      (r) => ({ ...r, host, event }),
    );
  });
  const sweep = sb.spawn(["distill", "sweep", "--json"], { cwd: repo, env });
  const reindex = sb.spawn(["reindex"], { cwd: repo, env });
  const writes = (m: typeof a, tag: string) =>
    (async () => {
      const out: string[] = [];
      for (let i = 0; i < 40; i++)
        out.push((await m.ok("remember", { text: `${tag} note ${i} on the kestrel queue` })).id);
      return out;
    })();
  const [idsA, idsB, results] = await Promise.all([writes(a, "writer-a"), writes(b, "writer-b"), Promise.all(hooks)]);
  const sweepCode = await sweep.exited;
  const sweepErr = await new Response(sweep.stderr).text();
  const reindexCode = await reindex.exited;
  const reindexErr = await new Response(reindex.stderr).text();
  const wall = performance.now() - t0;
  await a.close();
  await b.close();

  const bad = results.filter((r) => r.code !== 0 || !validAnswer(r.host, r.stdout) || r.stderr !== "");
  expect(bad.map((r) => `${r.host} ${r.event}: ${r.code} ${r.stdout.slice(0, 120)} ${r.stderr.slice(0, 120)}`)).toEqual(
    [],
  );
  // The watchdog answers at the deadline; process start-up and exit come on top (2 cores, ~55
  // processes: several seconds on a slow shared machine). What this rules out is a hook that hangs
  // on a lock (a wait with no deadline runs into tens of seconds), not a slow machine.
  const ms = results.map((r) => r.ms);
  expect(Math.max(...ms)).toBeLessThan(DEADLINE_MS + 8000);
  expect(results.some((r) => r.stdout.includes("Relevant memory (via Coffer)"))).toBe(true);
  expect(sweepCode).toBe(0);
  expect(reindexCode).toBe(0);
  for (const text of [sweepErr, reindexErr, a.stderr(), b.stderr(), ...results.map((r) => r.stdout)])
    expect(text).not.toMatch(/SQLITE_BUSY|database is locked|bug in Coffer/i);

  // Every MCP write is on disk and indexed; the index matches memory/.
  expect(new Set([...idsA, ...idsB]).size).toBe(80);
  const listed = sb.run(["list", "--json", "--limit", "1000", "--scope", "project"], { cwd: repo }).json();
  for (const id of [...idsA, ...idsB]) expect(listed.entries.some((e: { id: string }) => e.id === id)).toBe(true);
  expect(checkConsistent(sb, repo)).toEqual([]);

  record("load.hooks", results.length);
  record("load.hook_p50_ms", Math.round(percentile(ms, 50)));
  record("load.hook_p95_ms", Math.round(percentile(ms, 95)));
  record("load.hook_max_ms", Math.round(Math.max(...ms)));
  record("load.mcp_writes", idsA.length + idsB.length);
  record("load.wall_ms", Math.round(wall));
}, 120_000);

test("two prompt hooks at once for one session (a user and a --project link) never deliver a body twice", async () => {
  const fresh = sandbox("coffer-fault-twice-");
  try {
    const r2 = fresh.repo("twice");
    writeEntries(
      fresh,
      projectId(r2),
      Array.from({ length: 6 }, (_, i) => ({
        id: `01TW${String(i).padStart(22, "0")}`,
        title: `Falcon deploy step ${i}`,
        body: `Falcon deploys need step ${i}: run the falcon migration before the release.`,
        tags: ["falcon", "deploy"],
      })),
    );
    expect(fresh.run(["reindex"], { cwd: r2 }).code).toBe(0);
    const { bodyIds, claudePrompt } = await import("../kit");
    let twice = 0;
    let delivered = 0;
    for (let round = 0; round < 12; round++) {
      const payload = JSON.stringify(
        claudePrompt(`s-twice-${round}`, r2, "how do falcon deploys work? the falcon release"),
      );
      const both = await Promise.all([0, 1].map(() => runHook(fresh, "claude", "prompt", payload, r2)));
      const ids = both.map((r) => {
        expect(validAnswer("claude", r.stdout)).toBe(true);
        const j = JSON.parse(r.stdout);
        return bodyIds(j.hookSpecificOutput?.additionalContext ?? "");
      });
      delivered += ids[0]!.length + ids[1]!.length;
      twice += ids[0]!.filter((id) => ids[1]!.includes(id)).length;
    }
    expect(delivered).toBeGreaterThan(0);
    expect(twice).toBe(0);
    record("load.same_session_pairs", 12);
  } finally {
    fresh.cleanup();
  }
}, 120_000);
