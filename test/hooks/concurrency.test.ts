/** 50 hook processes at once on a store whose index does not exist yet: all answer, none fails. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Event, projectId, type Sandbox, sandbox, writeEntries, writeRules } from "../kit";

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-hook-conc-");
  repo = sb.repo("c");
  // 50 processes on a 2-core machine take longer than the default 1.5 s deadline to all start;
  // what this checks is the index and the delivered sets under contention, not the deadline
  // (test/hooks/robust.test.ts and test/reliability/fault-load.test.ts check that).
  mkdirSync(sb.cofferHome, { recursive: true });
  writeFileSync(join(sb.cofferHome, "config.toml"), "[hook]\ndeadline_ms = 10000\n");
  writeRules(sb, projectId(repo), "- Keep it simple\n");
  writeEntries(sb, projectId(repo), [
    ...Array.from({ length: 5 }, (_, i) => ({
      id: `C${i}`,
      title: `Heron pipeline ${i}`,
      body: `Heron stage ${i} runs after the ingest step.`,
      applies_to: ["src/**"],
    })),
    ...Array.from({ length: 25 }, (_, i) => ({
      id: `F${String(i).padStart(2, "0")}`,
      title: `Filler ${i}`,
      body: `Unrelated note ${i}.`,
    })),
  ]);
});
afterAll(() => sb.cleanup());

test("50 concurrent hooks (start, prompt, tool, compact; shared and separate sessions): exit 0, valid output, no SQLITE_BUSY", async () => {
  const events: Event[] = ["session-start", "prompt", "tool", "compact"];
  const procs = Array.from({ length: 50 }, (_, i) => {
    const event = events[i % 4]!;
    const session = i % 8 < 4 ? `own-${i}` : "shared";
    const payload = {
      session_id: session,
      cwd: repo,
      source: "startup",
      prompt: "how does the heron pipeline work?",
      tool_name: "Read",
      tool_input: { file_path: join(repo, "src", "a.ts") },
    };
    const p = sb.spawn(["hook", event, "--agent", "claude"], { cwd: repo, stdin: "" });
    p.stdin!.write(JSON.stringify(payload));
    p.stdin!.end();
    return { event, session, p };
  });
  const results = await Promise.all(
    procs.map(async ({ event, session, p }) => ({
      event,
      session,
      code: await p.exited,
      out: await new Response(p.stdout).text(),
    })),
  );
  for (const r of results) {
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    if (r.event === "compact") expect(j).toEqual({});
    else if (r.event === "session-start")
      expect(j.hookSpecificOutput.additionalContext).toStartWith("# Project rules (via Coffer)");
  }
  // Prompts on separate sessions all routed (no write lost to a busy database).
  const ownPrompts = results.filter((r) => r.event === "prompt" && r.session !== "shared");
  expect(ownPrompts.length).toBe(7);
  for (const r of ownPrompts) expect(JSON.parse(r.out).hookSpecificOutput.additionalContext).toContain("## [C");
  const log = join(sb.cofferHome, "state", "hook.log");
  const text = existsSync(log) ? readFileSync(log, "utf8") : "";
  expect(text).not.toContain("SQLITE_BUSY");
  expect(text).not.toContain("database is locked");
  expect(text).not.toContain("hook failed");
}, 60_000);
