/**
 * A hook must print exactly one complete answer (issue 12). On a 20,000-entry store with
 * hook.deadline_ms = 100, some of 400 parallel Codex session-starts printed nothing: when the
 * watchdog won the race for the answer, the main thread still ended the process before the
 * watchdog had written it. Every run here must exit 0 with exactly one line of Codex's
 * SessionStart shape (Codex rejects anything else), whichever side answered.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox, writeEntries } from "../kit";

const ENTRIES = 20_000;
const RUNS = 400;
const PARALLEL = 16;

let sb: Sandbox;
let repo: string;
beforeAll(() => {
  sb = sandbox("coffer-rel-race-");
  repo = sb.repo("race");
  const words = "alpha beta gamma delta release deploy cache server client module".split(" ");
  writeEntries(
    sb,
    "global",
    Array.from({ length: ENTRIES }, (_, i) => ({
      id: `01RACE${String(i).padStart(20, "0")}`,
      title: `${words[i % 10]} ${words[(i * 7) % 10]} note ${i}`,
      body: `${words[(i * 3) % 10]} body of note ${i} ${"filler ".repeat(20)}`,
      tags: [words[i % 10]!],
    })),
  );
  expect(sb.run(["reindex"]).code).toBe(0);
  writeFileSync(join(sb.cofferHome, "config.toml"), "[hook]\ndeadline_ms = 100\n");
}, 300_000);
afterAll(() => sb.cleanup());

test(`${RUNS} parallel Codex session-starts at a 100 ms deadline: each prints exactly one valid answer`, async () => {
  const bad: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < RUNS) {
      const i = next++;
      const p = Bun.spawn([BIN, "hook", "session-start", "--agent", "codex"], {
        cwd: repo,
        env: sb.env,
        stdin: new Blob([
          JSON.stringify({
            session_id: `race-${i}`,
            transcript_path: null,
            cwd: repo,
            hook_event_name: "SessionStart",
            model: "gpt-5.5",
            source: "startup",
          }),
        ]),
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
      const lines = out.split("\n").filter((l) => l !== "");
      let ok = code === 0 && lines.length === 1 && out.endsWith("\n");
      if (ok) {
        try {
          const j = JSON.parse(lines[0]!);
          ok = j?.hookSpecificOutput?.hookEventName === "SessionStart";
        } catch {
          ok = false;
        }
      }
      if (!ok) bad.push(`run ${i}: exit ${code}, stdout ${JSON.stringify(out.slice(0, 200))}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  expect(bad).toEqual([]);
}, 300_000);
