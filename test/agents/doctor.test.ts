/**
 * Proof that the hooks fire, against the real agents (issue 23): after a headless session of the
 * real Claude Code and Codex, `coffer doctor` names each host's last hook event; and what doctor
 * reads of Codex's hook trust (its config.toml `[hooks.state]`) agrees with the real Codex's own
 * view (`codex app-server`, JSON-RPC `hooks/list`: key, currentHash, trustStatus), before and
 * after the entries are trusted the way /hooks stores it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ModelServer, startModelServer } from "../kit";
import { coffer, seedStore } from "./coffer";
import { agentSandbox, assertRunOk, cleanupSandboxes, ensureAgent, runAgent, TEST_TIMEOUT_MS } from "./harness";

let server: ModelServer;
beforeAll(() => {
  server = startModelServer({ respond: () => ({ text: "OK." }) });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

type CodexHook = { key: string; eventName: string; command: string; currentHash: string; trustStatus: string };

/** `codex app-server`: initialize, then `hooks/list` for the project, as the real TUI's /hooks asks. */
async function codexHooks(env: Record<string, string>, cwd: string): Promise<CodexHook[]> {
  const exe = await ensureAgent("codex");
  const p = Bun.spawn([exe, "app-server"], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const send = (o: unknown) => {
    p.stdin.write(`${JSON.stringify(o)}\n`);
    p.stdin.flush();
  };
  const reader = p.stdout.getReader();
  let buf = "";
  const answer = async (id: number): Promise<any> => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const m = JSON.parse(line);
          if (m.id === id) return m;
        } catch {}
      }
      const { value, done } = await reader.read();
      if (done) break;
      buf += new TextDecoder().decode(value);
    }
    throw new Error(`codex app-server gave no answer to request ${id}`);
  };
  try {
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { clientInfo: { name: "coffer-test", version: "1" } },
    });
    await answer(1);
    send({ jsonrpc: "2.0", method: "initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "hooks/list", params: { cwds: [cwd] } });
    const res = await answer(2);
    return res.result.data[0].hooks as CodexHook[];
  } finally {
    p.kill();
    await p.exited;
  }
}

const doctorHost = (sb: ReturnType<typeof agentSandbox>, name: string) =>
  coffer(sb, ["doctor", "--json"])
    .json()
    .hosts.find((h: any) => h.host === name && h.scope === "user");

describe("coffer doctor with the real agents", () => {
  test(
    "Codex's own trust view agrees with doctor's reading of config.toml, untrusted and then trusted as /hooks stores it",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      coffer(sb, ["link", "codex"]);
      const before = await codexHooks(sb.agentEnv, sb.project);
      const ours = before.filter((h) => h.command.includes(" hook "));
      expect(ours).toHaveLength(5);
      expect(ours.every((h) => h.trustStatus === "untrusted")).toBe(true);
      expect(doctorHost(sb, "codex").hooks_seen.trust).toMatchObject({ total: 5, trusted: 0 });

      // Trust them the way Codex's /hooks does: [hooks.state."<key>"] trusted_hash = <currentHash>.
      const cfg = join(sb.home, ".codex", "config.toml");
      appendFileSync(
        cfg,
        ours.map((h) => `\n[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = "${h.currentHash}"\n`).join(""),
      );
      const after = await codexHooks(sb.agentEnv, sb.project);
      expect(after.filter((h) => h.command.includes(" hook ")).map((h) => h.trustStatus)).toEqual(
        Array(5).fill("trusted"),
      );
      const seen = doctorHost(sb, "codex");
      expect(seen.hooks_seen.trust).toMatchObject({ total: 5, trusted: 5 });
      expect(seen.warnings).toEqual([]);
      expect(readFileSync(cfg, "utf8")).toContain("trusted_hash");

      // A real session (trust bypassed, as in every agent test): the hooks fire and doctor says so.
      assertRunOk(await runAgent(sb, "codex", { prompt: "How does the release process deploy?" }));
      const last = doctorHost(sb, "codex").hooks_seen.last;
      expect(["session-start", "prompt"]).toContain(last.event);
      expect(last.project).toBe("proj");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "Claude Code: after a real session, doctor names its last hook event and this week's injections",
    async () => {
      const sb = agentSandbox(server);
      seedStore(sb);
      coffer(sb, ["link", "claude"]);
      expect(doctorHost(sb, "claude").hooks_seen).toMatchObject({ last: null, injections_7d: 0 });
      assertRunOk(await runAgent(sb, "claude", { prompt: "How does the release process deploy?" }));
      const seen = doctorHost(sb, "claude").hooks_seen;
      expect(seen.last).toMatchObject({ event: "prompt", project: "proj", cwd: sb.project });
      expect(seen.injections_7d).toBeGreaterThanOrEqual(2); // the session-start bundle and the routed entry
      const text = coffer(sb, ["doctor"]).stdout;
      expect(text).toMatch(/hooks: last prompt (just now|\d+ min ago) in proj; \d+ injections in 7 days/);
    },
    TEST_TIMEOUT_MS,
  );
});
