/**
 * Coffer inside the real Kimi Code CLI, offline. The npm package `@moonshot-ai/kimi-code` (pinned
 * below) needs Node 22.19+ (`node:zlib` zstd); this machine has Node 20, so the test runs its
 * `dist/main.mjs` with Bun, which it runs unchanged. It is installed once into the agents cache
 * (not through harness.ts, whose install check runs the CLI with Node). `config.toml` points a
 * provider of type `anthropic` at the fake server. `coffer link kimi` -> `kimi -p` -> the bundle
 * and the routed entry reach the model in UserPromptSubmit's `<hook_result>` blocks; a resumed
 * session (`-S <id>`) gets nothing twice; `coffer unlink kimi` gives config.toml back byte for
 * byte and nothing of Coffer reaches the model; the session is distilled from its wire log.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTurns, conversationTexts, type ModelServer, startModelServer } from "../kit";
import {
  BUNDLE_HEADING,
  coffer,
  cofferAsync,
  count,
  ENTRY_BODY,
  expectBundle,
  expectNoCoffer,
  PROMPT_1,
  PROMPT_2,
  seedStore,
  textOf,
} from "./coffer";
import { type AgentSandbox, agentSandbox, cacheRoot, cleanupSandboxes, TEST_TIMEOUT_MS } from "./harness";

const PKG = "@moonshot-ai/kimi-code";
const VERSION = "2.1.0";
const INSIGHT = { kind: "decision", title: "Releases deploy with make release", body: "Never push tags by hand." };
const DISTILL_MARK = "You read the transcript of one coding-agent session";
const MARKER = "[coffer headless distillation run: not a user session]";

let server: ModelServer;
beforeAll(() => {
  server = startModelServer({
    respond: (req) => (req.raw.includes(DISTILL_MARK) ? { text: JSON.stringify([INSIGHT]) } : undefined),
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

/** The pinned CLI's entry file, installed into the agents cache on first use. */
async function kimiMain(): Promise<string> {
  const dir = join(cacheRoot(), `${PKG.replace("/", "+")}@${VERSION}`);
  const main = join(dir, "node_modules", PKG, "dist", "main.mjs");
  if (existsSync(join(dir, ".coffer-verified")) && existsSync(main)) return main;
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const npm = Bun.which("npm");
  if (!npm) throw new Error(`npm is not on PATH: cannot install ${PKG}@${VERSION}`);
  const p = Bun.spawnSync([
    npm,
    "install",
    "--prefix",
    tmp,
    "--no-audit",
    "--no-fund",
    "--save-exact",
    "--loglevel=error",
    `${PKG}@${VERSION}`,
  ]);
  if (p.exitCode !== 0) throw new Error(`npm install ${PKG}@${VERSION} failed: ${p.stderr.toString().slice(-2000)}`);
  const v = Bun.spawnSync([process.execPath, join(tmp, "node_modules", PKG, "dist", "main.mjs"), "--version"]);
  if (!v.stdout.toString().includes(VERSION)) throw new Error(`kimi --version printed ${v.stdout}${v.stderr}`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  writeFileSync(join(dir, ".coffer-verified"), `${PKG}@${VERSION}\n`);
  return main;
}

function kimiSandbox(): { sb: AgentSandbox; config: string } {
  const sb = agentSandbox(server, { prefix: "coffer-kimi-" });
  mkdirSync(join(sb.home, ".kimi-code"), { recursive: true });
  const config = [
    "# written by the agent test",
    'default_model = "fake"',
    "",
    "[providers.fake]",
    'type = "anthropic"',
    `base_url = "${server.url}"`,
    'api_key = "test-not-a-real-key"',
    "",
    "[models.fake]",
    'provider = "fake"',
    'model = "claude-sonnet-4-6"',
    "max_context_size = 200000",
    "",
  ].join("\n");
  writeFileSync(join(sb.home, ".kimi-code", "config.toml"), config);
  return { sb, config };
}

async function kimi(sb: AgentSandbox, prompt: string, session?: string) {
  const main = await kimiMain();
  server.clear();
  const args = [
    process.execPath,
    main,
    ...(session ? ["-S", session] : []),
    "-p",
    prompt,
    "--output-format",
    "stream-json",
  ];
  const p = Bun.spawn(args, { cwd: sb.project, env: sb.agentEnv, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => p.kill("SIGKILL"), 120_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  clearTimeout(timer);
  if (code !== 0)
    throw new Error(`kimi exited ${code}\nstdout:\n${stdout.slice(-3000)}\nstderr:\n${stderr.slice(-3000)}`);
  const sessionId = /"session_id":"([^"]+)"/.exec(stdout)?.[1];
  const log = join(sb.cofferHome, "state", "hook.log");
  expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("");
  const turns = agentTurns(server.requests);
  expect(turns.length).toBeGreaterThan(0);
  return { stdout, sessionId, last: turns[turns.length - 1] };
}

describe("Kimi Code + coffer link kimi", () => {
  test(
    "bundle + routed entry reach the model; -S resumes with nothing twice; unlink restores config.toml; the session is distilled",
    async () => {
      const { sb, config } = kimiSandbox();
      const { entryId } = seedStore(sb);
      coffer(sb, ["link", "kimi"]);

      const t1 = await kimi(sb, PROMPT_1);
      expectBundle(t1.last);
      const first = conversationTexts(t1.last)[0]!.text;
      // Both hooks' plain stdout, in <hook_result> blocks before the prompt.
      expect(first).toStartWith(`<hook_result hook_event="UserPromptSubmit">\n${BUNDLE_HEADING}`);
      expect(first).toContain(
        `<hook_result hook_event="UserPromptSubmit">\n# Relevant memory (via Coffer)\n\n## [${entryId.slice(-8)}] Release process\n${ENTRY_BODY}\n</hook_result>`,
      );
      expect(JSON.stringify(t1.last?.body?.tools ?? [])).toContain("mcp__coffer__coffer_recall");

      const t2 = await kimi(sb, PROMPT_2, t1.sessionId);
      const all2 = textOf(t2.last);
      expect(all2).toContain(PROMPT_1);
      expect(count(all2, BUNDLE_HEADING)).toBe(1);
      expect(count(all2, ENTRY_BODY)).toBe(1);

      // Distilled from the wire log, with a configured model; none of the hook output goes along.
      writeFileSync(
        join(sb.cofferHome, "config.toml"),
        `[model]\nprovider = "openai"\nmodel = "gpt-fake"\nbase_url = "${server.url}/v1"\napi_key_env = "FAKE_MODEL_API_KEY"\n`,
      );
      server.clear();
      const out = (
        await cofferAsync(sb, ["distill", "run", t1.sessionId!, "--agent", "kimi", "--json"], { env: sb.agentEnv })
      ).json();
      expect(out.results[0].outcome).toBe("distilled");
      const sent = server.requests.map((r) => r.raw).join("\n");
      expect(sent).toContain("Transcript of a kimi session in project proj");
      expect(sent).toContain(PROMPT_2);
      expect(sent).not.toContain(BUNDLE_HEADING);
      expect(sent).not.toContain("hook_result");

      coffer(sb, ["unlink", "kimi"]);
      expect(readFileSync(join(sb.home, ".kimi-code", "config.toml"), "utf8")).toBe(config);
      const t3 = await kimi(sb, PROMPT_1);
      expectNoCoffer(t3.last);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("zero configuration: Kimi Code's own CLI distils", () => {
  test(
    "link, distil with no [model]: Coffer's system prompt, no tools, hooks silent, tokens from the wire log, own run skipped",
    async () => {
      const { sb } = kimiSandbox();
      seedStore(sb);
      // Kimi needs Node 22.19+: a `kimi` on the usual path that runs the pinned CLI with Bun.
      const wrapper = join(sb.home, ".local", "bin", "kimi");
      mkdirSync(join(sb.home, ".local", "bin"), { recursive: true });
      writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${await kimiMain()}' "$@"\n`, { mode: 0o755 });
      const link = coffer(sb, ["link", "kimi"]);
      expect(link.stdout).toContain("Distillation will use `kimi -p` (your Kimi account)");

      const session = await kimi(sb, "We moved releases to pnpm workspaces: deploy with pnpm -r publish now.");
      const eventsBefore = (await cofferAsync(sb, ["stats", "--json"])).json().hooks.events;
      server.clear();
      const out = (
        await cofferAsync(sb, ["distill", "run", session.sessionId!, "--agent", "kimi", "--json"], { env: sb.agentEnv })
      ).json();
      expect(out.results[0].outcome).toBe("distilled");
      const turns = agentTurns(server.requests);
      expect(turns.length).toBe(1);
      const req = turns[0]!;
      expect(req.body.tools ?? []).toEqual([]);
      expect(JSON.stringify(req.body.system)).toContain(DISTILL_MARK);
      const first = conversationTexts(req).find((t) => t.role === "user")!.text;
      expect(first).toStartWith(MARKER);
      expect(first).toContain("pnpm workspaces");
      expect(req.raw).not.toContain(BUNDLE_HEADING);
      // Coffer's hooks answered empty inside the run.
      expect((await cofferAsync(sb, ["stats", "--json"])).json().hooks.events).toBe(eventsBefore);

      const ledger = () =>
        readFileSync(join(sb.cofferHome, "state", "distilled.jsonl"), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
      const rec = ledger().at(-1);
      expect(rec).toMatchObject({ outcome: "distilled", session_id: session.sessionId, tokens_estimated: false });
      expect(rec.model).toStartWith("kimi-code");
      expect(rec.input_tokens).toBeGreaterThan(200);
      expect(rec.output_tokens).toBe(5);
      console.log(
        `[kimi] headless: ${rec.input_tokens} input + ${rec.output_tokens} output tokens, ${rec.duration_ms} ms`,
      );

      // Kimi kept the run as a session: recognised by its first prompt, recorded as skipped.
      const own = (
        coffer(sb, ["distill", "list", "--agent", "kimi", "--json"]).json().sessions as { session_id: string }[]
      )
        .map((s) => s.session_id)
        .filter((id) => id !== session.sessionId);
      expect(own.length).toBe(1);
      server.clear();
      const skip = (
        await cofferAsync(sb, ["distill", "run", own[0]!, "--agent", "kimi", "--json"], { env: sb.agentEnv })
      ).json();
      expect(skip.results[0].outcome).toBe("skipped");
      expect(agentTurns(server.requests)).toEqual([]);
      expect(ledger().at(-1)).toMatchObject({ outcome: "skipped", reason: "coffer_run" });
    },
    TEST_TIMEOUT_MS,
  );
});
