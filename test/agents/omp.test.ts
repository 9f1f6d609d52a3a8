/**
 * oh-my-pi (npm `@oh-my-pi/pi-coding-agent`, the `omp` CLI, a Pi fork run by Bun), offline against
 * the fake model server: `coffer link pi` on a machine with `~/.omp` writes Coffer's Pi extension
 * into omp's own folder too, omp loads it, and the bundle and the routed entry reach the model
 * (omp hands extensions the system prompt as a list of parts, Pi as one string); omp's session
 * file is read as Pi's. `coffer unlink pi` removes the extension. The pinned omp is installed into the agents cache on first use, like the others.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTurns, type ModelServer, startModelServer } from "../kit";
import { BUNDLE_HEADING, coffer, count, ENTRY_BODY, expectBundle, PROMPT_1, seedStore, textOf } from "./coffer";
import {
  agentSandbox,
  cacheRoot,
  cleanupSandboxes,
  INSTALL_TIMEOUT_MS,
  RUN_TIMEOUT_MS,
  TEST_TIMEOUT_MS,
} from "./harness";

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

let server: ModelServer;
beforeAll(() => {
  server = startModelServer({ respond: () => ({ text: "OK." }) });
});
afterAll(() => {
  server.stop();
  cleanupSandboxes();
});

describe("oh-my-pi (omp) + coffer link pi", () => {
  test(
    "the extension lands in ~/.omp/agent/extensions, omp loads it, bundle and entry reach the model; unlink removes it",
    async () => {
      const cli = await ensureOmp();
      const sb = agentSandbox(server, { prefix: "coffer-omp-" });
      seedStore(sb);
      const agent = join(sb.home, ".omp", "agent");
      mkdirSync(agent, { recursive: true });
      // omp's models.yml takes Pi's provider shape (JSON is YAML).
      const provider = {
        baseUrl: `${server.url}/v1`,
        api: "openai-completions",
        apiKey: "test-not-a-real-key",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: "fake-model" }],
      };
      writeFileSync(join(agent, "models.yml"), `${JSON.stringify({ providers: { fake: provider } }, null, 2)}\n`);

      coffer(sb, ["link", "pi"]);
      const ext = join(agent, "extensions", "coffer.ts");
      expect(existsSync(ext)).toBe(true);
      expect(existsSync(join(sb.home, ".pi", "agent", "extensions", "coffer.ts"))).toBe(true);

      server.clear();
      const p = Bun.spawn([process.execPath, cli, "-p", "--model", "fake/fake-model", PROMPT_1], {
        cwd: sb.project,
        env: sb.agentEnv,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const timer = setTimeout(() => p.kill("SIGKILL"), RUN_TIMEOUT_MS);
      const [stdout, stderr, code] = await Promise.all([
        new Response(p.stdout).text(),
        new Response(p.stderr).text(),
        p.exited,
      ]);
      clearTimeout(timer);
      if (code !== 0) throw new Error(`omp exited ${code}\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`);
      const turns = agentTurns(server.requests);
      expect(turns.length).toBeGreaterThan(0);
      const last = turns.at(-1);
      expectBundle(last);
      expect(count(textOf(last), BUNDLE_HEADING)).toBe(1);
      expect(count(textOf(last), ENTRY_BODY)).toBe(1);
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
    },
    TEST_TIMEOUT_MS,
  );
});
