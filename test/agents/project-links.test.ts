/**
 * `coffer link <host> --project` alone (no user-level link), with the pinned real CLIs, offline:
 * the files land in the repository, the CLI loads them, and the rules bundle (and a routed entry
 * where the host injects on prompts) reaches the model. Copilot CLI loads a repository's hooks
 * only in a folder the user trusted (`trustedFolders`); the test trusts it as a user would. A
 * repository's files run `coffer` from PATH (they are shared with teammates): the binary is put there.
 * What these pin down is in docs/hosts-observed.md.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { BIN, offeredTools } from "../kit";
import { BUNDLE_HEADING, coffer, count, ENTRY_BODY, expectBundle, PROMPT_1, seedStore, textOf } from "./coffer";
import {
  type AgentSandbox,
  agentSandbox,
  cacheRoot,
  ensureAgent,
  lastTurn,
  runCli,
  scriptedModel,
  TEST_TIMEOUT_MS,
  writeJson,
} from "./harness";

const model = scriptedModel();

function run(sb: AgentSandbox, exe: string, args: string[], env: Record<string, string> = {}) {
  return runCli(sb, [exe, ...args], { env });
}

/** A project's hooks run `coffer` from PATH, as a teammate's machine would. */
function projectSandbox(prefix: string): AgentSandbox {
  const sb = agentSandbox(model.server, { prefix });
  const bin = join(sb.root, "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(BIN, join(bin, "coffer"));
  sb.agentEnv.PATH = `${bin}:${sb.agentEnv.PATH ?? ""}`;
  return sb;
}

const COPILOT_ENV = () => ({
  COPILOT_OFFLINE: "true",
  COPILOT_PROVIDER_BASE_URL: model.server.url,
  COPILOT_PROVIDER_TYPE: "anthropic",
  COPILOT_PROVIDER_API_KEY: "test-not-a-real-key",
  COPILOT_MODEL: "claude-sonnet-4.6",
  COPILOT_AUTO_UPDATE: "false",
  COPILOT_CACHE_HOME: join(cacheRoot(), "copilot-cache"),
});

describe("coffer link <host> --project alone", () => {
  test(
    "Copilot CLI: .github/hooks/coffer.json in a trusted folder",
    async () => {
      const sb = projectSandbox("coffer-proj-copilot-");
      seedStore(sb);
      const link = coffer(sb, ["link", "copilot", "--project"]);
      expect(existsSync(join(sb.project, ".github", "hooks", "coffer.json"))).toBe(true);
      expect(existsSync(join(sb.home, ".copilot", "hooks"))).toBe(false);
      expect(link.stdout).toContain("Copilot CLI runs this repository's hooks only in a folder you trust");
      const trustProblem = () =>
        // (doctor exits 1 on any problem; coffer is not on the PATH of this process either)
        JSON.parse(sb.run(["doctor", "--json"], { cwd: sb.project }).stdout)
          .hosts.filter((h: any) => h.host === "copilot" && h.scope === "project")
          .flatMap((h: any) => h.problems.map((p: any) => p.message))
          .filter((m: string) => m.includes("not a trusted folder"));
      expect(trustProblem().length).toBe(1);
      // Copilot keeps the folders a user trusted in its own config.json ("remember" on its trust prompt).
      writeJson(join(sb.home, ".copilot", "config.json"), { trustedFolders: [sb.project] });
      expect(trustProblem()).toEqual([]);
      model.server.clear();
      await run(sb, await ensureAgent("copilot"), ["-p", PROMPT_1, "--output-format", "json"], COPILOT_ENV());
      const last = lastTurn(sb, model.server);
      expectBundle(last);
      expect(count(textOf(last), ENTRY_BODY)).toBe(1);
      // The project's .github/mcp.json started Coffer's server too.
      expect(offeredTools(last)).toContain("coffer-coffer__recall");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Qwen Code: .qwen/settings.json",
    async () => {
      const sb = projectSandbox("coffer-proj-qwen-");
      seedStore(sb);
      const link = coffer(sb, ["link", "qwen", "--project"]);
      expect(link.stdout).toContain("run `qwen mcp approve coffer`");
      expect(await Bun.file(join(sb.project, ".qwen", "settings.json")).text()).toContain("--agent qwen");
      expect(await Bun.file(join(sb.home, ".qwen", "settings.json")).text()).not.toContain("coffer");
      // Qwen gates a repository's MCP servers until the user approves them; the hooks run regardless.
      await run(sb, await ensureAgent("qwen"), ["mcp", "approve", "coffer"]);
      model.server.clear();
      await run(sb, await ensureAgent("qwen"), ["-p", PROMPT_1, "-o", "json"]);
      const last = lastTurn(sb, model.server);
      expectBundle(last);
      expect(count(textOf(last), ENTRY_BODY)).toBe(1);
      expect(textOf(last)).toContain('"mcp__coffer__coffer__recall"');
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Pi: .pi/extensions/coffer.ts",
    async () => {
      const sb = projectSandbox("coffer-proj-pi-");
      seedStore(sb);
      const dir = join(sb.home, ".pi", "agent");
      writeJson(join(dir, "models.json"), {
        providers: {
          fake: {
            baseUrl: `${model.server.url}/v1`,
            api: "openai-completions",
            apiKey: "test-not-a-real-key",
            compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
            models: [{ id: "fake-model" }],
          },
        },
      });
      writeJson(join(dir, "settings.json"), { defaultProvider: "fake", defaultModel: "fake-model" });
      coffer(sb, ["link", "pi", "--project"]);
      expect(existsSync(join(sb.project, ".pi", "extensions", "coffer.ts"))).toBe(true);
      expect(existsSync(join(dir, "extensions"))).toBe(false);
      model.server.clear();
      await run(sb, await ensureAgent("pi"), ["--offline", "-p", "--mode", "json", PROMPT_1]);
      const last = lastTurn(sb, model.server);
      expectBundle(last);
      expect(count(textOf(last), ENTRY_BODY)).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Cline: .cline/hooks/",
    async () => {
      const sb = projectSandbox("coffer-proj-cline-");
      seedStore(sb);
      const exe = await ensureAgent("cline");
      const key = ["-k", "test-not-a-real-key", "-m", "gpt-5.5", "-b", `${model.server.url}/v1`];
      await run(sb, exe, ["auth", "-p", "openai", ...key]);
      coffer(sb, ["link", "cline", "--project"]);
      expect(existsSync(join(sb.project, ".cline", "hooks", "PostToolUse.sh"))).toBe(true);
      expect(existsSync(join(sb.home, ".cline", "hooks"))).toBe(false);
      await Bun.write(join(sb.project, "notes.txt"), "notes\n");
      model.script = [
        { toolCall: { name: "read_files", input: { files: [{ path: join(sb.project, "notes.txt") }] } } },
        { text: "Done." },
      ];
      model.server.clear();
      await run(sb, exe, ["Read the notes file, please.", "--json"]);
      const last = lastTurn(sb, model.server);
      expectBundle(last);
      expect(count(textOf(last), BUNDLE_HEADING)).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );
});
