/**
 * Copilot CLI reads Claude Code's hooks too (its changelog: ".claude/settings.json and
 * .claude/settings.local.json as additional repo config sources"). A person who linked both Claude
 * Code and Copilot CLI has Coffer's hooks twice in a Copilot session: the pinned real Copilot,
 * offline, shows what each one does and that the model gets Coffer's context once.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { agentTurns, BIN, offeredTools } from "../kit";
import { BUNDLE_HEADING, coffer, count, ENTRY_BODY, expectBundle, PROMPT_1, seedStore, textOf } from "./coffer";
import {
  type AgentSandbox,
  agentSandbox,
  cacheRoot,
  ensureAgent,
  runCli,
  scriptedModel,
  TEST_TIMEOUT_MS,
  writeJson,
} from "./harness";

const model = scriptedModel();

function copilotSandbox(): AgentSandbox {
  const sb = agentSandbox(model.server, { prefix: "coffer-copilot-claude-" });
  const bin = join(sb.root, "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(BIN, join(bin, "coffer"));
  Object.assign(sb.agentEnv, {
    PATH: `${bin}:${sb.agentEnv.PATH ?? ""}`,
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: model.server.url,
    COPILOT_PROVIDER_TYPE: "anthropic",
    COPILOT_PROVIDER_API_KEY: "test-not-a-real-key",
    COPILOT_MODEL: "claude-sonnet-4.6",
    COPILOT_AUTO_UPDATE: "false",
    COPILOT_CACHE_HOME: join(cacheRoot(), "copilot-cache"),
  });
  writeJson(join(sb.home, ".copilot", "config.json"), { trustedFolders: [sb.project] });
  return sb;
}

/** One `copilot -p`; the hooks it ran (command and output) from its own events.jsonl. */
async function copilot(sb: AgentSandbox, prompt: string) {
  const { stdout } = await runCli(sb, [
    await ensureAgent("copilot"),
    "-p",
    prompt,
    "--output-format",
    "json",
    "--allow-all-tools",
    "--no-ask-user",
  ]);
  const sessionId = stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l))
    .find((e) => e.type === "result")?.sessionId;
  const file = join(sb.home, ".copilot", "session-state", sessionId, "events.jsonl");
  const events = existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
  return { sessionId, events };
}

describe("Copilot CLI with Claude Code linked too", () => {
  test(
    "Copilot runs the repository's Claude hooks; Coffer's answers there once, through Copilot's own link",
    async () => {
      const sb = copilotSandbox();
      seedStore(sb);
      coffer(sb, ["link", "claude", "--project"]);
      coffer(sb, ["link", "copilot"]);
      // Someone's own hook beside Coffer's in .claude/settings.json: it shows that Copilot runs that file.
      const spyLog = join(sb.root, "spy.log");
      const settings = join(sb.project, ".claude", "settings.json");
      const doc = JSON.parse(readFileSync(settings, "utf8"));
      doc.hooks.UserPromptSubmit.push({ hooks: [{ type: "command", command: `echo "$COPILOT_CLI" >> '${spyLog}'` }] });
      writeJson(settings, doc);

      model.server.clear();
      await copilot(sb, PROMPT_1);
      expect(readFileSync(spyLog, "utf8")).toBe("1\n");
      const last = agentTurns(model.server.requests).at(-1);
      expectBundle(last);
      expect(count(textOf(last), BUNDLE_HEADING)).toBe(1);
      expect(count(textOf(last), ENTRY_BODY)).toBe(1);
      // Claude's project .mcp.json and Copilot's mcp-config.json both name a "coffer" server: offered once.
      expect(offeredTools(last).filter((t) => t === "coffer-coffer__recall")).toEqual(["coffer-coffer__recall"]);
      // The delivery log has Copilot's deliveries alone: the Claude hook under Copilot did nothing.
      const hooks = JSON.parse(sb.run(["stats", "--json"]).stdout).hooks;
      expect(hooks.by_host.map((h: { host: string }) => h.host)).toEqual(["copilot"]);
      expect(hooks.deliveries).toBe(1);
      expect(existsSync(join(sb.cofferHome, "state", "hook.log"))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});
