/**
 * A Claude session that received two entries from the prompt hook and whose transcript shows the
 * agent editing the file one of them names (A) and doing nothing about the other (B): the use
 * tests' shared setup (test/capture/use-pass.test.ts, test/web/use.test.ts).
 */
import { join } from "node:path";
import {
  age,
  bodyIds,
  claudePrompt,
  claudeStart,
  contextOf,
  hook,
  placeClaude,
  projectId,
  type Sandbox,
  writeEntries,
} from "../kit";

export const A = "01JV5EH0000000000000000A01";
export const B = "01JV5EH0000000000000000B02";
const session = "dddddddd-0000-4000-8000-0000000000d1";
const prompt = "Why does the health check hang on redis, and how do we deploy the api afterwards?";

/** Set it up in `sb`; returns the repository and the handles the prompt hook delivered. */
export function usedSession(sb: Sandbox): { repo: string; delivered: string[] } {
  const repo = sb.repo("api");
  writeEntries(sb, projectId(repo), [
    {
      id: A,
      title: "Health check and redis",
      body: "The health check lives in src/routes/health.ts and pings redis without a timeout.",
      kind: "gotcha",
    },
    {
      id: B,
      title: "Deploying the api",
      body: "Deploy the api with `fly deploy --remote-only` from the repository root.",
      kind: "convention",
    },
  ]);
  hook(sb, "claude", "session-start", claudeStart(session, repo), { cwd: repo });
  const r = hook(sb, "claude", "prompt", claudePrompt(session, repo, prompt), { cwd: repo });
  const delivered = bodyIds(contextOf(r));
  // What the agent then did: read and edited the file entry A names; nothing about deploying.
  const t = (s: number) => new Date(Date.now() + s * 1000).toISOString();
  const rec = (type: string, content: unknown, at: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ type, sessionId: session, cwd: repo, timestamp: at, message: { role: type, content }, ...extra });
  const file = placeClaude(
    sb,
    `${[
      rec("user", prompt, t(1)),
      rec("assistant", [{ type: "text", text: "Looking at the health route." }], t(3)),
      rec(
        "assistant",
        [
          {
            type: "tool_use",
            id: "tu1",
            name: "Edit",
            input: { file_path: join(repo, "src/routes/health.ts"), old_string: "ping()", new_string: "ping(500)" },
          },
        ],
        t(5),
      ),
      rec("user", [{ type: "tool_result", tool_use_id: "tu1", content: "The file has been updated." }], t(6), {
        toolUseResult: {},
      }),
      rec("assistant", [{ type: "text", text: "The ping now times out after 500 ms." }], t(7)),
    ].join("\n")}\n`,
    { id: session, cwd: repo },
  );
  age(file, 30);
  return { repo, delivered };
}
