/**
 * The repository as a Claude Code plugin marketplace: the pinned real Claude Code validates the
 * manifests, installs the plugin from this checkout into a throwaway HOME, and a `claude -p` run
 * (offline, against the loopback model server) gets the session-start bundle through the
 * plugin's hooks and is offered Coffer's MCP tools, with `coffer` found on PATH.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { loadHostLink } from "../../src/hosts/index";
import { hookCommand } from "../../src/link/command";
import { expectBundle, hookErrors, seedStore } from "../agents/coffer";
import {
  type AgentSandbox,
  agentSandbox,
  assertRunOk,
  cleanupSandboxes,
  ensureAgent,
  runAgent,
  TEST_TIMEOUT_MS,
} from "../agents/harness";
import { agentTurns, BIN, conversationTexts, type ModelServer, startModelServer } from "../kit";
import { ROOT } from "./_release";

const PLUGIN = join(ROOT, "plugin");
const json = (p: string) => JSON.parse(readFileSync(p, "utf8"));

let server: ModelServer;
beforeAll(() => {
  server = startModelServer({ respond: () => undefined });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

async function claude(sb: AgentSandbox, args: string[], env: Record<string, string>) {
  const exe = await ensureAgent("claude");
  const p = Bun.spawn([exe, ...args], { cwd: sb.project, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, out: stdout + stderr };
}

describe("plugin manifests", () => {
  test("version matches package.json; hooks.json has link's Claude events, each calling coffer from PATH", async () => {
    const pkg = json(join(ROOT, "package.json"));
    const market = json(join(ROOT, ".claude-plugin", "marketplace.json"));
    expect(market.plugins).toHaveLength(1);
    expect(market.plugins[0]).toMatchObject({ name: "coffer", source: "./plugin", version: pkg.version });
    expect(json(join(PLUGIN, ".claude-plugin", "plugin.json"))).toMatchObject({ name: "coffer", version: pkg.version });
    // The plugin's hooks are `coffer link claude`'s default events, with `coffer` (from PATH) as the binary.
    const link = await loadHostLink("claude");
    if (link.hooks.kind !== "json") throw new Error("Claude hooks are expected in JSON");
    const expected: Record<string, unknown[]> = {};
    for (const e of link.hooks.events.filter((e) => !e.optIn)) {
      expected[e.native] = [
        {
          ...(e.matcher ? { matcher: e.matcher } : {}),
          hooks: [{ type: "command", command: hookCommand("coffer", e.event, "claude"), timeout: e.timeout }],
        },
      ];
    }
    expect(json(join(PLUGIN, "hooks", "hooks.json")).hooks).toEqual(expected);
    expect(json(join(PLUGIN, ".mcp.json"))).toEqual({
      mcpServers: { coffer: { command: "coffer", args: ["serve", "--stdio"] } },
    });
  });

  test(
    "the pinned Claude Code validates the marketplace and the plugin (--strict)",
    async () => {
      const sb = agentSandbox(server, { prefix: "coffer-plugin-" });
      for (const dir of [ROOT, PLUGIN]) {
        const r = await claude(sb, ["plugin", "validate", "--strict", dir], sb.agentEnv);
        expect({ dir, code: r.code, passed: r.out.includes("Validation passed") }).toEqual({
          dir,
          code: 0,
          passed: true,
        });
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe("plugin installed into the real Claude Code", () => {
  test(
    "claude -p gets the session-start bundle via the plugin's hooks and sees Coffer's MCP tools",
    async () => {
      const sb = agentSandbox(server, { prefix: "coffer-plugin-" });
      seedStore(sb);
      // `coffer` on PATH, as install.sh leaves it; no `coffer link` in this HOME.
      const bin = join(sb.root, "bin");
      mkdirSync(bin);
      symlinkSync(BIN, join(bin, "coffer"));
      const env = { ...sb.agentEnv, PATH: `${bin}:${sb.agentEnv.PATH}` };
      const add = await claude(sb, ["plugin", "marketplace", "add", ROOT], env);
      expect(add).toMatchObject({ code: 0 });
      const install = await claude(sb, ["plugin", "install", "coffer@coffer"], env);
      expect(install).toMatchObject({ code: 0 });
      const settings = json(join(sb.home, ".claude", "settings.json"));
      expect(settings.enabledPlugins).toEqual({ "coffer@coffer": true });
      expect(settings.hooks).toBeUndefined(); // every hook below comes from the plugin

      server.clear();
      const run = assertRunOk(await runAgent(sb, "claude", { prompt: "What are the rules here?", env }));
      expect(hookErrors(sb, run)).toEqual([]);
      const [first] = agentTurns(server.requests);
      expectBundle(first);
      // Plugin MCP servers are namespaced plugin_<plugin>_<server>; the tools are deferred (ToolSearch).
      const texts = conversationTexts(first).map((t) => t.text);
      const listing = texts.find((t) => t.includes("deferred tools are now available")) ?? "";
      for (const tool of ["coffer__recall", "coffer__remember", "coffer__resume"])
        expect(listing).toContain(`\nmcp__plugin_coffer_coffer__${tool}`);

      // doctor: the plugin is a way in (note), needs coffer on PATH (problem without), and must not
      // be combined with `coffer link claude` (problem naming what to remove).
      const doctor = (pathEnv: string) => {
        const r = sb.run(["doctor", "--json"], { cwd: sb.project, env: { PATH: pathEnv } });
        const j = r.json();
        return {
          claude: j.hosts.find((h: { host: string; scope: string }) => h.host === "claude" && h.scope === "user"),
          problems: j.problems.filter((p: { where: string }) => p.where === "claude"),
        };
      };
      const viaPlugin = doctor(env.PATH!);
      expect(viaPlugin.claude.status).toBe("not linked");
      expect(viaPlugin.claude.notes.join("\n")).toContain("gets Coffer through the Claude Code plugin coffer@coffer");
      expect(viaPlugin.problems).toEqual([]);
      const noPath = doctor("/usr/bin:/bin");
      expect(noPath.problems).toHaveLength(1);
      expect(noPath.problems[0].message).toContain("runs `coffer` from PATH, and there is no coffer on PATH");
      const linked = sb.run(["link", "claude"], { cwd: sb.project, env: { PATH: env.PATH! } });
      expect(linked.code).toBe(0);
      expect(linked.stdout).toContain("the Claude Code plugin coffer@coffer");
      expect(linked.stdout).toContain("also injects Coffer: remove one (claude plugin uninstall coffer@coffer");
      const both = doctor(env.PATH!);
      expect(both.claude.status).toBe("linked");
      const twice = both.problems.find((p: { message: string }) => p.message.includes("gets Coffer twice"));
      expect(twice?.fix).toStartWith("claude plugin uninstall coffer@coffer");
      expect(twice?.fix).toContain("coffer unlink claude");
    },
    TEST_TIMEOUT_MS,
  );
});
