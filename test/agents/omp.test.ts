/**
 * oh-my-pi (npm `@oh-my-pi/pi-coding-agent`, the `omp` CLI, a Pi fork run by Bun), offline against
 * the fake model server: `coffer link pi` on a machine with `~/.omp` writes Coffer's Pi extension
 * into omp's own folder too, omp loads it, and the bundle and the routed entry reach the model
 * (omp hands extensions the system prompt as a list of parts, Pi as one string), and Coffer's MCP
 * server, registered in omp's `mcp.json`, is listed; omp's session
 * file is read as Pi's; a subagent of omp's `task` tool is a session of its own and gets the bundle
 * too. `coffer unlink pi` removes the extension. The pinned omp is installed into the agents cache on first use, like the others.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTurns, type ModelServer, type Reply, startModelServer } from "../kit";
import { BUNDLE_HEADING, coffer, count, ENTRY_BODY, expectBundle, PROMPT_1, seedStore, textOf } from "./coffer";
import { agentSandbox, cacheRoot, cleanupSandboxes, INSTALL_TIMEOUT_MS, runCli, TEST_TIMEOUT_MS } from "./harness";

const OMP = { pkg: "@oh-my-pi/pi-coding-agent", version: "18.2.3" };

/** The pinned omp's entry script, installed into the agents cache on first use (npm, then verified). */
async function ensureOmp(): Promise<string> {
  const dir = join(cacheRoot(), `${OMP.pkg.replace("/", "+")}@${OMP.version}`);
  const cli = join(dir, "node_modules", OMP.pkg, "dist", "cli.js");
  if (existsSync(join(dir, ".coffer-verified")) && existsSync(cli)) return cli;
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const npm = Bun.spawn(
    ["npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error", `${OMP.pkg}@${OMP.version}`],
    { stdout: "pipe", stderr: "pipe" },
  );
  const timer = setTimeout(() => npm.kill("SIGKILL"), INSTALL_TIMEOUT_MS);
  const [err, code] = await Promise.all([new Response(npm.stderr).text(), npm.exited]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`could not install ${OMP.pkg}@${OMP.version}: ${err.slice(-2000)}`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  writeFileSync(join(dir, ".coffer-verified"), `${OMP.pkg}@${OMP.version}\n`);
  return cli;
}

const SUB_TASK = "Find out how the release process deploys";
const DELEGATE = "Please delegate this";

let server: ModelServer;
/** The parent's replies, in order (then "OK."); a subagent (its task in the request, not the prompt) answers plainly. */
let script: Reply[] = [];
beforeAll(() => {
  server = startModelServer({
    respond: (req) =>
      req.raw.includes(SUB_TASK) && !req.raw.includes(DELEGATE)
        ? { text: "The release deploys with make release." }
        : (script.shift() ?? { text: "OK." }),
  });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

/** A sandbox whose omp talks to the fake server (`~/.omp/agent/models.yml`, Pi's provider shape: JSON is YAML). */
function ompSandbox() {
  const sb = agentSandbox(server, { prefix: "coffer-omp-" });
  const agent = join(sb.home, ".omp", "agent");
  mkdirSync(agent, { recursive: true });
  const provider = {
    baseUrl: `${server.url}/v1`,
    api: "openai-completions",
    apiKey: "test-not-a-real-key",
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
    models: [{ id: "fake-model" }],
  };
  writeFileSync(join(agent, "models.yml"), `${JSON.stringify({ providers: { fake: provider } }, null, 2)}\n`);
  return { sb, agent };
}

/** `omp -p <prompt>` in the project. */
async function omp(sb: ReturnType<typeof agentSandbox>, prompt: string) {
  await runCli(sb, [process.execPath, await ensureOmp(), "-p", "--model", "fake/fake-model", prompt]);
}

describe("oh-my-pi (omp) + coffer link pi", () => {
  test(
    "the extension lands in ~/.omp/agent/extensions, omp loads it, bundle and entry reach the model; unlink removes it",
    async () => {
      const { sb, agent } = ompSandbox();
      seedStore(sb);

      coffer(sb, ["link", "pi"]);
      const ext = join(agent, "extensions", "coffer.ts");
      expect(existsSync(ext)).toBe(true);
      expect(existsSync(join(sb.home, ".pi", "agent", "extensions", "coffer.ts"))).toBe(true);

      server.clear();
      await omp(sb, PROMPT_1);
      const turns = agentTurns(server.requests);
      expect(turns.length).toBeGreaterThan(0);
      const last = turns.at(-1);
      expectBundle(last);
      expect(count(textOf(last), BUNDLE_HEADING)).toBe(1);
      expect(count(textOf(last), ENTRY_BODY)).toBe(1);
      // Coffer's MCP server from omp's mcp.json: omp lists MCP tools as devices in its system prompt.
      expect(textOf(last)).toContain("xd://mcp__coffer_recall");
      // omp keeps the session as Pi does (a title record first): Coffer's capture reads it as Pi's.
      const { sessions } = JSON.parse(coffer(sb, ["distill", "list", "--agent", "pi", "--json"]).stdout);
      expect(sessions.length).toBe(1);
      const [session] = sessions;
      expect(session.path).toStartWith(join(agent, "sessions"));
      expect(session).toMatchObject({ host: "pi", cwd: sb.project, messages: 2, title: PROMPT_1 });
      const shown = coffer(sb, ["distill", "show", session.session_id]).stdout;
      expect(shown).toContain(PROMPT_1);

      coffer(sb, ["unlink", "pi"]);
      expect(existsSync(ext)).toBe(false);
      expect(existsSync(join(agent, "mcp.json"))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a subagent (omp's task tool, in-process) is a session of its own: the bundle and its task's entry reach it",
    async () => {
      const { sb } = ompSandbox();
      seedStore(sb);
      coffer(sb, ["link", "pi"]);
      // The parent delegates, then waits for the job (omp's subagents run as background jobs).
      script = [
        { text: "Delegating.", toolCall: { name: "task", input: { agent: "task", task: SUB_TASK } } },
        { text: "Waiting.", toolCall: { name: "hub", input: { op: "wait" } } },
        { text: "Done." },
      ];
      server.clear();
      await omp(sb, DELEGATE);
      const sub = agentTurns(server.requests).filter(
        (r) => textOf(r).includes(SUB_TASK) && !textOf(r).includes("Delegating."),
      );
      expect(sub.length).toBeGreaterThan(0);
      expectBundle(sub[0]);
      expect(count(textOf(sub[0]), BUNDLE_HEADING)).toBe(1);
      expect(count(textOf(sub[0]), ENTRY_BODY)).toBe(1);
      const byEvent = JSON.parse(sb.run(["stats", "--json"]).stdout).hooks.by_event;
      expect(byEvent.find((e: any) => e.event === "session-start").events).toBe(2); // the parent's and the subagent's
    },
    TEST_TIMEOUT_MS,
  );
});
