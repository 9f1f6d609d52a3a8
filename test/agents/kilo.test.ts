/**
 * Kilo Code CLI (the pinned real binary, offline against the fake model server's OpenAI Chat
 * Completions through an `@ai-sdk/openai-compatible` provider in `~/.config/kilo/kilo.json`):
 * `coffer link kilo` -> Coffer's OpenCode plugin, generated for Kilo, fills the system-prompt slot
 * (the bundle and the routed entry, from a session's first message on) and Coffer's MCP tools are
 * offered; unlink leaves no Coffer context. A session's messages go through one `kilo serve`
 * (`kilo run --attach`), as in Kilo's TUI, where the plugin lives as long as the session.
 * What these pin down is in docs/hosts-observed.md ("Kilo Code").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentTurns,
  BIN,
  conversationText,
  conversationTexts,
  type ModelServer,
  offeredTools,
  type Reply,
  startModelServer,
} from "../kit";
import {
  BUNDLE_HEADING,
  coffer,
  cofferAsync,
  count,
  DEPLOY_BODY,
  DISTILL_MARKER,
  DISTILL_PROMPT,
  ENTRY_BODY,
  expectBundle,
  INSIGHT,
  PROJECT_RULE,
  PROMPT_1,
  PROMPT_2,
  rememberDeployGotcha,
  seedStore,
  textOf,
  useFakeDistillModel,
} from "./coffer";
import {
  type AgentSandbox,
  agentSandbox,
  cleanupSandboxes,
  ensureAgent,
  RUN_TIMEOUT_MS,
  runCli,
  TEST_TIMEOUT_MS,
} from "./harness";

let server: ModelServer;
/** Replies for the agent's next model calls (then plain text). */
let script: Reply[] = [];
beforeAll(() => {
  server = startModelServer({
    respond: (req) =>
      req.raw.includes(DISTILL_MARKER)
        ? { text: JSON.stringify([INSIGHT]) }
        : req.body?.tools?.length
          ? script.shift()
          : undefined,
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

const kiloDir = (sb: AgentSandbox) => join(sb.home, ".config", "kilo");

/** The fake server as Kilo's only provider and model. */
function writeKiloConfig(sb: AgentSandbox): string {
  mkdirSync(kiloDir(sb), { recursive: true });
  const text = `${JSON.stringify(
    {
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          name: "Fake model server",
          options: { baseURL: `${server.url}/v1`, apiKey: "test-not-a-real-key" },
          models: { "fake-model": { name: "Fake model" } },
        },
      },
      model: "fake/fake-model",
    },
    null,
    2,
  )}\n`;
  writeFileSync(join(kiloDir(sb), "kilo.json"), text);
  return text;
}

const kiloEnv = (sb: AgentSandbox) => ({
  ...sb.agentEnv,
  KILO_DISABLE_AUTOUPDATE: "1",
  KILO_DISABLE_MODELS_FETCH: "1",
  KILO_DISABLE_SHARE: "1",
  KILO_DISABLE_SESSION_INGEST: "1",
});

async function exec(sb: AgentSandbox, args: string[]) {
  const { stdout, stderr } = await runCli(sb, [await ensureAgent("kilo"), ...args], { env: kiloEnv(sb) });
  const events = stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  return { sessionId: events.find((e) => e.sessionID)?.sessionID as string | undefined, stdout, stderr };
}

/**
 * `kilo serve` in the project; resolves to its URL once it listens. `stop` sends SIGTERM, which
 * Kilo's launcher forwards to the server it started (a SIGKILL would leave that server running).
 */
async function serve(sb: AgentSandbox): Promise<{ url: string; stop: () => Promise<void> }> {
  const p = Bun.spawn([await ensureAgent("kilo"), "serve", "--port", "0"], {
    cwd: sb.project,
    env: kiloEnv(sb),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = p.stdout.getReader();
  let seen = "";
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
    if (m) {
      const stop = async () => {
        p.kill("SIGTERM");
        const timer = setTimeout(() => p.kill("SIGKILL"), 10_000);
        await p.exited;
        clearTimeout(timer);
      };
      return { url: m[1]!, stop };
    }
  }
  p.kill("SIGTERM");
  throw new Error(`kilo serve did not start:\n${seen}`);
}

function entries(sb: AgentSandbox): { id: string; title: string }[] {
  const l = coffer(sb, ["list", "--json"]).json();
  return Array.isArray(l) ? l : (l.entries ?? []);
}

const hookLog = (sb: AgentSandbox) => {
  const f = join(sb.cofferHome, "state", "hook.log");
  return existsSync(f) ? readFileSync(f, "utf8") : "";
};

describe("Kilo Code + coffer link kilo", () => {
  test(
    "path trigger: a read of a matching file gets the entry appended to the tool's output",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      writeKiloConfig(sb);
      const id = await rememberDeployGotcha(sb);
      coffer(sb, ["link", "kilo"]);
      script = [
        {
          text: "Let me look.",
          toolCall: { name: "read", input: { filePath: join(sb.project, "deploy", "release.sh") } },
        },
        { text: "Done." },
      ];
      server.clear();
      await exec(sb, ["run", "--format", "json", "Make it nicer, please."]);
      const turns = agentTurns(server.requests).filter((r) => JSON.stringify(r.body).includes("Make it nicer"));
      const after = turns.find((r) => conversationTexts(r).some((t) => t.role === "tool"))!;
      const hit = conversationTexts(after).find((t) => t.role === "tool")!;
      expect(hit.text).toContain("echo release");
      expect(hit.text).toContain(DEPLOY_BODY);
      expect(hit.text).toContain(`[${id.slice(-8)}]`);
      expect(count(textOf(after), DEPLOY_BODY)).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "bundle and routed entry fill the system slot from the first message, kept on the next; MCP tools offered; unlink removes it all",
    async () => {
      const sb = agentSandbox(server);
      const { entryId } = seedStore(sb);
      const before = writeKiloConfig(sb);
      coffer(sb, ["link", "kilo"]);
      const plugin = readFileSync(join(kiloDir(sb), "plugins", "coffer.js"), "utf8");
      expect(plugin.split("\n")[0]).toBe(
        "// coffer-managed: generated by `coffer link kilo`; `coffer unlink kilo` removes it. Edits are overwritten on the next link.",
      );
      expect(plugin).toContain('"--agent", "kilo"');
      expect(JSON.parse(readFileSync(join(kiloDir(sb), "kilo.json"), "utf8")).mcp.coffer).toEqual({
        type: "local",
        command: [BIN, "serve", "--stdio"],
        enabled: true,
      });

      const srv = await serve(sb);
      try {
        // First message: session-start, then the prompt routed: bundle and entry in the system slot.
        server.clear();
        const r1 = await exec(sb, ["run", "--attach", srv.url, "--format", "json", PROMPT_1]);
        const t1 = agentTurns(server.requests).find((r) => JSON.stringify(r.body).includes(PROMPT_1))!;
        expectBundle(t1);
        expect(count(textOf(t1), BUNDLE_HEADING)).toBe(1);
        expect(count(textOf(t1), ENTRY_BODY)).toBe(1);
        const slot = conversationTexts(t1).find((t) => t.text.includes(ENTRY_BODY))!;
        expect(slot.role).toBe("system");
        expect(slot.text.startsWith(BUNDLE_HEADING)).toBe(true);
        expect(slot.text).toContain(`## [${entryId.slice(-8)}] Release process\n${ENTRY_BODY}`);
        for (const tool of ["recall", "remember", "resume"])
          expect(offeredTools(t1)).toContain(`coffer_coffer__${tool}`);

        // Next message of the session: the slot is kept (the same routed set), still each once.
        server.clear();
        await exec(sb, ["run", "--attach", srv.url, "--format", "json", "-s", r1.sessionId!, PROMPT_2]);
        const t2 = agentTurns(server.requests).find((r) => JSON.stringify(r.body).includes(PROMPT_2))!;
        expect(textOf(t2)).toContain(PROMPT_1);
        expect(count(textOf(t2), BUNDLE_HEADING)).toBe(1);
        expect(count(textOf(t2), ENTRY_BODY)).toBe(1);
      } finally {
        await srv.stop();
      }
      expect(hookLog(sb)).toBe("");
      const last = JSON.parse(coffer(sb, ["stats", "--json"]).stdout);
      expect(last.hooks.events).toBeGreaterThanOrEqual(2);

      coffer(sb, ["unlink", "kilo"]);
      expect(existsSync(join(kiloDir(sb), "plugins", "coffer.js"))).toBe(false);
      // Kilo writes into the file itself (its "$schema", `permission.bash` after a `run --attach`);
      // of Coffer's nothing is left, and the user's keys are as they were.
      const after = JSON.parse(readFileSync(join(kiloDir(sb), "kilo.json"), "utf8"));
      expect(after.mcp).toBeUndefined();
      const mine = JSON.parse(before);
      for (const key of Object.keys(mine)) expect(after[key]).toEqual(mine[key]);
      server.clear();
      await exec(sb, ["run", "--format", "json", PROMPT_1]);
      const turns = agentTurns(server.requests);
      expect(turns.length).toBeGreaterThan(0);
      for (const r of turns) {
        // (The tool descriptions name the sandbox's temp folder, /tmp/coffer-agent-…: tool names are checked.)
        for (const text of ["via Coffer", PROJECT_RULE, ENTRY_BODY, "coffer__"]) expect(textOf(r)).not.toContain(text);
        expect(offeredTools(r).filter((n) => n.includes("coffer"))).toEqual([]);
      }
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a finished session is distilled from kilo.db (read-only): the conversation, none of Coffer's context",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      writeKiloConfig(sb);
      useFakeDistillModel(sb, server);
      coffer(sb, ["link", "kilo"]);
      const run = await exec(sb, ["run", "--format", "json", DISTILL_PROMPT]);
      const db = join(sb.home, ".local", "share", "kilo", "kilo.db");
      const listed = coffer(sb, ["distill", "list", "--agent", "kilo", "--json"]).json().sessions;
      expect(listed).toEqual([
        expect.objectContaining({ session_id: run.sessionId, project: "proj", path: `${db}#${run.sessionId}` }),
      ]);
      // kilo.db and its -wal as Kilo left them: reading changes neither (the -shm index is shared
      // memory every reader marks, SQLite's own).
      const files = () =>
        ["kilo.db", "kilo.db-wal"].map((n) => [
          n,
          statSync(`${db.slice(0, -7)}${n}`).mtimeMs,
          statSync(`${db.slice(0, -7)}${n}`).size,
        ]);
      const before = files();
      server.clear();
      const out = (await cofferAsync(sb, ["distill", "run", run.sessionId!, "--json"])).json();
      expect(out.results[0].outcome).toBe("distilled");
      const calls = server.requests.filter((q) => q.raw.includes(DISTILL_MARKER));
      expect(calls.length).toBe(1);
      const text = conversationText(calls[0]);
      const transcript = text.slice(0, text.indexOf("\nExisting entries of this project") >>> 0);
      expect(transcript).toContain("pnpm workspaces");
      for (const injected of ["via Coffer", BUNDLE_HEADING, PROJECT_RULE, ENTRY_BODY])
        expect(transcript).not.toContain(injected);
      const hit = entries(sb).find((e) => e.title === INSIGHT.title)!;
      expect(JSON.stringify(coffer(sb, ["show", hit.id, "--json"]).json())).toContain("agent:kilo");
      expect(files()).toEqual(before);
      // Nothing new in the session: the next run is a no-op.
      const again = (await cofferAsync(sb, ["distill", "run", run.sessionId!, "--json"])).json();
      expect(again.results[0].outcome).toBe("already_distilled");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "zero configuration: `kilo run` distils with Coffer's prompt, no tools, no MCP server, no plugin (no hook); usage in the ledger",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      writeKiloConfig(sb);
      // A server of the user's own that must not start for Coffer's run.
      const spy = join(sb.root, "spy-mcp-started");
      const cfg = JSON.parse(readFileSync(join(kiloDir(sb), "kilo.json"), "utf8"));
      cfg.mcp = { spy: { type: "local", command: ["sh", "-c", `touch ${spy}; cat`], enabled: true } };
      writeFileSync(join(kiloDir(sb), "kilo.json"), `${JSON.stringify(cfg, null, 2)}\n`);
      mkdirSync(join(sb.home, ".local", "bin"), { recursive: true });
      symlinkSync(await ensureAgent("kilo"), join(sb.home, ".local", "bin", "kilo"));
      const link = coffer(sb, ["link", "kilo"]);
      expect(link.stdout).toContain("Distillation will use `kilo run` (your Kilo Code provider)");
      const run = await exec(sb, ["run", "--format", "json", DISTILL_PROMPT]);
      rmSync(spy, { force: true }); // the user's own run started it
      const db = join(sb.home, ".local", "share", "kilo", "kilo.db");
      const sessions = () => coffer(sb, ["distill", "list", "--agent", "kilo", "--json"]).json().sessions.length;
      expect(sessions()).toBe(1);
      const events = (await cofferAsync(sb, ["stats", "--json"])).json().hooks.events;

      server.clear();
      const out = (await cofferAsync(sb, ["distill", "run", run.sessionId!, "--json"], { env: sb.agentEnv })).json();
      expect(out.results[0].outcome).toBe("distilled");
      const turns = agentTurns(server.requests);
      expect(turns.length).toBe(1);
      const req = turns[0]!;
      const system = conversationTexts(req).find((t) => t.role === "system")!;
      expect(system.text).toContain(DISTILL_MARKER); // Coffer's prompt, after Kilo's own persona
      expect(conversationText(req)).toContain("pnpm workspaces");
      for (const injected of [BUNDLE_HEADING, "via Coffer", PROJECT_RULE]) expect(textOf(req)).not.toContain(injected);
      expect(offeredTools(req)).toEqual([]);
      expect(existsSync(spy)).toBe(false);
      expect((await cofferAsync(sb, ["stats", "--json"])).json().hooks.events).toBe(events);
      expect(sessions()).toBe(1); // the run's session went to Coffer's own database, not kilo.db
      expect(existsSync(join(sb.cofferHome, "state", "headless", "kilo-runs.db"))).toBe(true);
      expect(existsSync(db)).toBe(true);

      const hit = entries(sb).find((e) => e.title === INSIGHT.title)!;
      expect(JSON.stringify(coffer(sb, ["show", hit.id, "--json"]).json())).toContain("agent:kilo");
      const ledger = readFileSync(join(sb.cofferHome, "state", "distilled.jsonl"), "utf8")
        .trim()
        .split("\n");
      const rec = JSON.parse(ledger.at(-1)!);
      expect(rec).toMatchObject({ outcome: "distilled", session_id: run.sessionId, tokens_estimated: false });
      expect(rec.input_tokens).toBeGreaterThan(200);
      expect(rec.output_tokens).toBe(5);
    },
    TEST_TIMEOUT_MS,
  );
});
