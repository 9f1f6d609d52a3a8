/**
 * OpenCode (the pinned real `opencode-ai`, offline against the fake model server's OpenAI Chat
 * Completions through an `@ai-sdk/openai-compatible` provider in `~/.config/opencode/opencode.json`):
 * a finished session in its `opencode.db` is found and distilled with Kilo's reader (the same
 * schema), and the database is left as it was. What this pins down is in docs/hosts-observed.md
 * ("OpenCode").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { conversationText, type ModelServer, startModelServer } from "../kit";
import {
  BUNDLE_HEADING,
  coffer,
  cofferAsync,
  DISTILL_MARKER,
  DISTILL_PROMPT,
  ENTRY_BODY,
  INSIGHT,
  PROJECT_RULE,
  seedStore,
  useFakeDistillModel,
} from "./coffer";
import { type AgentSandbox, agentSandbox, cleanupSandboxes, ensureAgent, runCli, TEST_TIMEOUT_MS } from "./harness";

let server: ModelServer;
beforeAll(() => {
  server = startModelServer({
    respond: (req) => (req.raw.includes(DISTILL_MARKER) ? { text: JSON.stringify([INSIGHT]) } : undefined),
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

/** The fake server as OpenCode's only provider and model. */
function writeOpencodeConfig(sb: AgentSandbox): void {
  const dir = join(sb.home, ".config", "opencode");
  mkdirSync(dir, { recursive: true });
  const provider = {
    npm: "@ai-sdk/openai-compatible",
    name: "Fake model server",
    options: { baseURL: `${server.url}/v1`, apiKey: "test-not-a-real-key" },
    models: { "fake-model": { name: "Fake model" } },
  };
  writeFileSync(
    join(dir, "opencode.json"),
    `${JSON.stringify({ provider: { fake: provider }, model: "fake/fake-model" }, null, 2)}\n`,
  );
}

/** `opencode run --format json <message>` in the project; the session id from its events. */
async function opencode(sb: AgentSandbox, message: string) {
  const { stdout } = await runCli(sb, [await ensureAgent("opencode"), "run", "--format", "json", message], {
    env: {
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_SHARE: "1",
    },
  });
  return /"sessionID":"([^"]+)"/.exec(stdout)?.[1];
}

describe("OpenCode sessions (opencode.db)", () => {
  test(
    "a finished session is distilled from opencode.db (read-only): the conversation, none of Coffer's context",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      writeOpencodeConfig(sb);
      useFakeDistillModel(sb, server);
      coffer(sb, ["link", "opencode"]);
      const id = await opencode(sb, DISTILL_PROMPT);
      expect(id).toBeDefined();
      const db = join(sb.home, ".local", "share", "opencode", "opencode.db");
      const listed = coffer(sb, ["distill", "list", "--agent", "opencode", "--json"]).json().sessions;
      expect(listed).toEqual([expect.objectContaining({ session_id: id, project: "proj", path: `${db}#${id}` })]);
      // opencode.db and its -wal as OpenCode left them (the -shm index is shared memory every reader marks).
      const files = () => ["", "-wal"].map((s) => [s, statSync(`${db}${s}`).mtimeMs, statSync(`${db}${s}`).size]);
      const before = files();
      server.clear();
      const out = (await cofferAsync(sb, ["distill", "run", id!, "--json"])).json();
      expect(out.results[0].outcome).toBe("distilled");
      const calls = server.requests.filter((q) => q.raw.includes(DISTILL_MARKER));
      expect(calls.length).toBe(1);
      const text = conversationText(calls[0]);
      const transcript = text.slice(0, text.indexOf("\nExisting entries of this project") >>> 0);
      expect(transcript).toContain("pnpm workspaces");
      for (const injected of ["via Coffer", BUNDLE_HEADING, PROJECT_RULE, ENTRY_BODY])
        expect(transcript).not.toContain(injected);
      expect(files()).toEqual(before);
    },
    TEST_TIMEOUT_MS,
  );
});
