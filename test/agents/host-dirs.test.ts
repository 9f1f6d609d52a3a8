/**
 * The folder variables of Copilot CLI (`COPILOT_HOME`), Cline (`CLINE_DIR`), Qwen Code
 * (`QWEN_HOME`) and Pi (`PI_CODING_AGENT_DIR`), each with the pinned real CLI, offline: `coffer
 * link` writes where the CLI reads, `link --all` finds the host by its moved folder, the bundle
 * reaches the model, the CLI keeps its session in the moved folder where `coffer distill list`
 * finds it, and `coffer unlink` leaves nothing there. Nothing is written to the folder the variable replaces.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BUNDLE_HEADING, coffer, count, ENTRY_BODY, expectBundle, PROMPT_1, seedStore, textOf } from "./coffer";
import {
  type AgentSandbox,
  agentSandbox,
  cacheRoot,
  ensureAgent,
  lastTurn,
  listFiles,
  runCli,
  scriptedModel,
  TEST_TIMEOUT_MS,
  writeJson,
} from "./harness";

const model = scriptedModel();

/** Run a CLI in the project with extra environment; fails with its output unless it exits 0. */
function run(sb: AgentSandbox, exe: string, args: string[], env: Record<string, string>) {
  return runCli(sb, [exe, ...args], { env });
}

/** The session ids `coffer distill list` finds for the host (with the variable set). */
function sessionsSeen(sb: AgentSandbox, host: string, env: Record<string, string>): string {
  return coffer(sb, ["distill", "list", "--agent", host, "--json"], { env }).stdout;
}

/** `coffer link --all --dry-run --json`: how it found the host. */
function detected(sb: AgentSandbox, host: string, env: Record<string, string>): unknown {
  const out = coffer(sb, ["link", "--all", "--dry-run", "--json"], { env }).json();
  const results: any[] = Array.isArray(out) ? out : (out.results ?? out.hosts ?? []);
  return results.find((r) => r.host === host)?.installed;
}

describe("config folders moved by an environment variable", () => {
  test(
    "Copilot CLI: COPILOT_HOME",
    async () => {
      const sb = agentSandbox(model.server, { prefix: "coffer-dirs-copilot-" });
      seedStore(sb);
      const dir = join(sb.root, "copilot-home");
      mkdirSync(dir, { recursive: true });
      const env = {
        COPILOT_HOME: dir,
        COPILOT_OFFLINE: "true",
        COPILOT_PROVIDER_BASE_URL: model.server.url,
        COPILOT_PROVIDER_TYPE: "anthropic",
        COPILOT_PROVIDER_API_KEY: "test-not-a-real-key",
        COPILOT_MODEL: "claude-sonnet-4.6",
        COPILOT_AUTO_UPDATE: "false",
        COPILOT_CACHE_HOME: join(cacheRoot(), "copilot-cache"),
      };
      expect(detected(sb, "copilot", env)).toBe("$COPILOT_HOME");
      coffer(sb, ["link", "copilot"], { env });
      expect(existsSync(join(dir, "hooks", "coffer.json"))).toBe(true);
      expect(existsSync(join(dir, "mcp-config.json"))).toBe(true);
      expect(existsSync(join(sb.home, ".copilot"))).toBe(false);
      expect(coffer(sb, ["doctor", "--json"], { env }).stdout).toContain(join(dir, "hooks", "coffer.json"));

      model.server.clear();
      const exe = await ensureAgent("copilot");
      const out = await run(sb, exe, ["-p", PROMPT_1, "--output-format", "json", "--allow-all-tools"], env);
      const last = lastTurn(sb, model.server);
      expectBundle(last);
      expect(count(textOf(last), ENTRY_BODY)).toBe(1);
      const sessionId = out.stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l))
        .find((e) => e.type === "result")?.sessionId;
      expect(existsSync(join(dir, "session-state", sessionId, "events.jsonl"))).toBe(true);
      expect(sessionsSeen(sb, "copilot", env)).toContain(sessionId);

      coffer(sb, ["unlink", "copilot"], { env });
      expect(existsSync(join(dir, "hooks", "coffer.json"))).toBe(false);
      expect(existsSync(join(sb.home, ".copilot"))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Qwen Code: QWEN_HOME",
    async () => {
      const sb = agentSandbox(model.server, { prefix: "coffer-dirs-qwen-" });
      seedStore(sb);
      const dir = join(sb.root, "qwen-home");
      writeJson(join(dir, "settings.json"), {
        security: { auth: { selectedType: "openai" } },
        model: { name: "fake-model" },
        memory: { enableManagedAutoMemory: false },
      });
      // The harness's ~/.qwen goes: Qwen must find its settings (and Coffer's hooks) in QWEN_HOME alone.
      rmSync(join(sb.home, ".qwen"), { recursive: true, force: true });
      const env = { QWEN_HOME: dir };
      expect(detected(sb, "qwen", env)).toBe("$QWEN_HOME");
      coffer(sb, ["link", "qwen"], { env });
      expect(Bun.file(join(dir, "settings.json")).size).toBeGreaterThan(0);
      expect(await Bun.file(join(dir, "settings.json")).text()).toContain("hook session-start --agent qwen");
      expect(existsSync(join(sb.home, ".qwen"))).toBe(false);

      model.server.clear();
      const out = await run(sb, await ensureAgent("qwen"), ["-p", PROMPT_1, "-o", "json"], env);
      const sessionId = (JSON.parse(out.stdout) as any[]).find((e) => e?.session_id)?.session_id;
      const last = lastTurn(sb, model.server);
      expectBundle(last);
      expect(count(textOf(last), ENTRY_BODY)).toBe(1);
      expect(listFiles(join(dir, "projects")).some((f) => f.endsWith(`${sessionId}.jsonl`))).toBe(true);
      expect(sessionsSeen(sb, "qwen", env)).toContain(sessionId);

      coffer(sb, ["unlink", "qwen"], { env });
      expect(await Bun.file(join(dir, "settings.json")).text()).not.toContain("coffer");
      expect(existsSync(join(sb.home, ".qwen"))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Pi: PI_CODING_AGENT_DIR",
    async () => {
      const sb = agentSandbox(model.server, { prefix: "coffer-dirs-pi-" });
      seedStore(sb);
      const dir = join(sb.root, "pi-agent");
      mkdirSync(dir, { recursive: true });
      const provider = {
        baseUrl: `${model.server.url}/v1`,
        api: "openai-completions",
        apiKey: "test-not-a-real-key",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: "fake-model" }],
      };
      writeJson(join(dir, "models.json"), { providers: { fake: provider } });
      writeJson(join(dir, "settings.json"), { defaultProvider: "fake", defaultModel: "fake-model" });
      const env = { PI_CODING_AGENT_DIR: dir };
      expect(detected(sb, "pi", env)).toBe("$PI_CODING_AGENT_DIR");
      coffer(sb, ["link", "pi"], { env });
      expect(existsSync(join(dir, "extensions", "coffer.ts"))).toBe(true);
      expect(existsSync(join(sb.home, ".pi"))).toBe(false);
      expect(coffer(sb, ["doctor", "--json"], { env }).stdout).toContain(join(dir, "extensions", "coffer.ts"));

      model.server.clear();
      const out = await run(sb, await ensureAgent("pi"), ["--offline", "-p", "--mode", "json", PROMPT_1], env);
      const sessionId = JSON.parse(out.stdout.split("\n")[0]!).id as string;
      const last = lastTurn(sb, model.server);
      expectBundle(last);
      expect(count(textOf(last), ENTRY_BODY)).toBe(1);
      expect(listFiles(join(dir, "sessions")).some((f) => f.endsWith(`${sessionId}.jsonl`))).toBe(true);
      expect(sessionsSeen(sb, "pi", env)).toContain(sessionId);

      coffer(sb, ["unlink", "pi"], { env });
      expect(existsSync(join(dir, "extensions", "coffer.ts"))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Cline: CLINE_DIR",
    async () => {
      const sb = agentSandbox(model.server, { prefix: "coffer-dirs-cline-" });
      seedStore(sb);
      const dir = join(sb.root, "cline-home");
      const env = { CLINE_DIR: dir };
      const exe = await ensureAgent("cline");
      const key = ["-k", "test-not-a-real-key", "-m", "gpt-5.5", "-b", `${model.server.url}/v1`];
      await run(sb, exe, ["auth", "-p", "openai", ...key], env);
      expect(existsSync(join(dir, "data", "settings", "providers.json"))).toBe(true);
      expect(detected(sb, "cline", env)).toBe("$CLINE_DIR");
      coffer(sb, ["link", "cline"], { env });
      expect(existsSync(join(dir, "hooks", "PostToolUse.sh"))).toBe(true);
      expect(existsSync(join(dir, "data", "settings", "cline_mcp_settings.json"))).toBe(true);
      expect(existsSync(join(sb.home, ".cline"))).toBe(false);

      // Cline injects nothing before the first tool result: one tool call brings the bundle.
      await Bun.write(join(sb.project, "notes.txt"), "notes\n");
      model.script = [
        { toolCall: { name: "read_files", input: { files: [{ path: join(sb.project, "notes.txt") }] } } },
        { text: "Done." },
      ];
      model.server.clear();
      await run(sb, exe, ["Read the notes file, please.", "--json"], env);
      const last = lastTurn(sb, model.server);
      expect(count(textOf(last), BUNDLE_HEADING)).toBe(1);
      expectBundle(last);
      const sessions = readdirSync(join(dir, "data", "sessions"));
      expect(sessions.length).toBe(1);
      expect(sessionsSeen(sb, "cline", env)).toContain(sessions[0]!);

      coffer(sb, ["unlink", "cline"], { env });
      expect(existsSync(join(dir, "hooks", "PostToolUse.sh"))).toBe(false);
      expect(existsSync(join(sb.home, ".cline"))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});
