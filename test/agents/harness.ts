/**
 * Harness for the agent end-to-end tests: installs the pinned Claude Code, Codex and Gemini CLIs
 * into a cache folder outside the repository on first use (so `bun install` stays light), and runs
 * them headless, offline, in throwaway HOMEs and git projects against the fake model server.
 *
 * Cache: ${COFFER_AGENTS_CACHE:-${XDG_CACHE_HOME:-~/.cache}/coffer-agents}/<pkg>@<version>, installed
 * with `npm install --prefix` under a lock file, so parallel test files never race. A pinned CLI that
 * cannot be installed throws an Error that says so: the test fails, it never skips.
 */

import { afterAll, beforeAll, expect } from "bun:test";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { agentTurns, type ModelServer, type Reply, running, type Sandbox, sandbox, startModelServer } from "../kit";

export type AgentName = "claude" | "codex" | "gemini" | "copilot" | "cline" | "qwen" | "kilo" | "opencode" | "pi";

/** The exact versions the agent tests pass against (README "Verified with" names the same). */
export const AGENTS: Record<AgentName, { pkg: string; version: string; bin: string }> = {
  claude: { pkg: "@anthropic-ai/claude-code", version: "2.1.328", bin: "claude" },
  codex: { pkg: "@openai/codex", version: "0.169.0", bin: "codex" },
  gemini: { pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  copilot: { pkg: "@github/copilot", version: "1.0.102", bin: "copilot" },
  cline: { pkg: "cline", version: "3.0.65", bin: "cline" },
  qwen: { pkg: "@qwen-code/qwen-code", version: "0.24.4", bin: "qwen" },
  kilo: { pkg: "@kilocode/cli", version: "7.7.7", bin: "kilo" },
  opencode: { pkg: "opencode-ai", version: "1.18.33", bin: "opencode" },
  pi: { pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", bin: "pi" },
};

/** Generous: a cold npm install of all three takes ~20 s here, each CLI run 1-3 s. */
export const INSTALL_TIMEOUT_MS = 10 * 60_000;
export const RUN_TIMEOUT_MS = 120_000;
/** Per-test timeout for tests that may install a CLI and run it a few times. */
export const TEST_TIMEOUT_MS = INSTALL_TIMEOUT_MS + 5 * RUN_TIMEOUT_MS;

export function cacheRoot(): string {
  if (process.env.COFFER_AGENTS_CACHE) return process.env.COFFER_AGENTS_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "coffer-agents");
}

// ---------------------------------------------------------------- install (cached, locked)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function withLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(file), { recursive: true });
  const deadline = Date.now() + INSTALL_TIMEOUT_MS;
  for (;;) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      // Break a lock whose owner died (or that is older than an install could take).
      try {
        const pid = Number(readFileSync(file, "utf8"));
        const age = Date.now() - statSync(file).mtimeMs;
        if (!pid || !pidAlive(pid) || age > INSTALL_TIMEOUT_MS) rmSync(file, { force: true });
      } catch {}
      if (Date.now() > deadline) throw new Error(`timed out waiting for the agent install lock ${file}`);
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

async function exec(cmd: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs: number }) {
  const p = Bun.spawn(cmd, {
    cwd: opts.cwd,
    env: opts.env ?? (process.env as Record<string, string>),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), opts.timeoutMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

const installed = new Map<AgentName, Promise<string>>();

/** Absolute path of the pinned CLI's executable, installing it into the cache first if needed. */
export function ensureAgent(name: AgentName): Promise<string> {
  let p = installed.get(name);
  if (!p) {
    p = install(name);
    installed.set(name, p);
    p.catch(() => installed.delete(name));
  }
  return p;
}

async function install(name: AgentName): Promise<string> {
  const { pkg, version, bin } = AGENTS[name];
  const root = cacheRoot();
  const dir = join(root, `${pkg.replace("/", "+")}@${version}`);
  const exe = join(dir, "node_modules", ".bin", bin);
  const marker = join(dir, ".coffer-verified");
  if (existsSync(marker) && existsSync(exe)) return exe;
  return withLock(join(root, `${pkg.replace("/", "+")}@${version}.lock`), async () => {
    if (existsSync(marker) && existsSync(exe)) return exe; // another process finished meanwhile
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const fail = (why: string) =>
      new Error(
        `Could not install the pinned ${name} CLI (${pkg}@${version}) into ${dir}: ${why}\n` +
          `The agent end-to-end tests need Node.js, npm and the npm registry. Fix the install, or set COFFER_AGENTS_CACHE to a folder that already has it.`,
      );
    const npm = Bun.which("npm");
    if (!npm) throw fail("npm is not on PATH");
    const r = await exec(
      [
        npm,
        "install",
        "--prefix",
        tmp,
        "--no-audit",
        "--no-fund",
        "--save-exact",
        "--loglevel=error",
        `${pkg}@${version}`,
      ],
      {
        timeoutMs: INSTALL_TIMEOUT_MS,
      },
    );
    if (r.code !== 0) {
      rmSync(tmp, { recursive: true, force: true });
      throw fail(`npm install exited ${r.code}:\n${(r.stderr || r.stdout).slice(-2000)}`);
    }
    const tmpExe = join(tmp, "node_modules", ".bin", bin);
    let v = await exec([tmpExe, "--version"], { timeoutMs: 60_000 });
    if (v.code !== 0 && name === "claude") {
      // Claude Code's postinstall copies the native binary over a stub; run it if npm skipped it.
      const pkgDir = join(tmp, "node_modules", pkg);
      await exec([Bun.which("node") ?? "node", "install.cjs"], { cwd: pkgDir, timeoutMs: 120_000 });
      v = await exec([tmpExe, "--version"], { timeoutMs: 60_000 });
    }
    if (v.code !== 0 || !(v.stdout + v.stderr).includes(version)) {
      rmSync(tmp, { recursive: true, force: true });
      throw fail(
        `\`${bin} --version\` exited ${v.code} and printed ${JSON.stringify((v.stdout + v.stderr).slice(0, 500))}, expected ${version}`,
      );
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    writeFileSync(marker, `${pkg}@${version}\n`);
    return exe;
  });
}

// ---------------------------------------------------------------- throwaway homes and projects

export type AgentSandbox = Sandbox & {
  /** A git project (git init, one commit) the agents run in. */
  project: string;
  /** Env passed to every agent run (HOME, COFFER_HOME, PATH...; never the caller's API keys). */
  agentEnv: Record<string, string>;
};

const made: AgentSandbox[] = [];

/**
 * This file's loopback model server, answering from `script` (then "OK."; assign a new script for
 * the next run): started before the file's tests, stopped after them with the file's sandboxes.
 */
export function scriptedModel(): { server: ModelServer; script: Reply[] } {
  const model = { server: undefined as unknown as ModelServer, script: [] as Reply[] };
  beforeAll(() => {
    model.server = startModelServer({ respond: () => model.script.shift() ?? { text: "OK." } });
  });
  afterAll(() => {
    model.server.stop();
    cleanupSandboxes();
  });
  return model;
}

/** The request of the agent's last turn, with no hook failure logged by Coffer. */
export function lastTurn(sb: AgentSandbox, server: ModelServer) {
  const log = join(sb.cofferHome, "state", "hook.log");
  expect(existsSync(log) ? Bun.file(log).size : 0).toBe(0);
  const turns = agentTurns(server.requests);
  expect(turns.length).toBeGreaterThan(0);
  return turns[turns.length - 1];
}

/** Remove every sandbox this file made (also those a failed test left), unless COFFER_AGENTS_KEEP is set. */
export function cleanupSandboxes(): void {
  if (process.env.COFFER_AGENTS_KEEP) {
    for (const sb of made) console.error(`[agents] kept ${sb.root}`);
    return;
  }
  for (const sb of made.splice(0)) {
    stopLeftovers(sb.root);
    sb.cleanup();
  }
}

/**
 * Stop what an agent left running in a sandbox (Cline's hub daemon outlives the CLI that started
 * it, and writes its folder again after the sandbox is removed): every process whose command line
 * or working directory is inside `root`. Linux only (/proc); elsewhere nothing is stopped.
 */
function stopLeftovers(root: string): void {
  if (process.platform !== "linux") return;
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${name}/cwd`);
      } catch {}
      if (cmdline.includes(root) || cwd === root || cwd.startsWith(`${root}/`)) pids.push(Number(name));
    } catch {}
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  // Gone before the files are removed (a dying process writes nothing more once killed).
  const until = Date.now() + 2000;
  while (pids.some(running) && Date.now() < until) Bun.sleepSync(20);
}

export function agentSandbox(server: ModelServer, opts: { prefix?: string } = {}): AgentSandbox {
  const sb = sandbox(opts.prefix ?? "coffer-agent-");
  const project = sb.repo("proj");
  writeFileSync(join(project, "README.md"), "# proj\n\nA throwaway project for agent end-to-end tests.\n");
  const git = (...a: string[]) =>
    Bun.spawnSync(
      ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false", ...a],
      {
        cwd: project,
        env: { ...sb.env, GIT_CONFIG_NOSYSTEM: "1" },
      },
    );
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  const tmp = join(sb.root, "tmp");
  mkdirSync(tmp, { recursive: true });
  const agentEnv: Record<string, string> = {
    ...sb.env,
    // The CLIs keep task output (Claude) and error reports (Gemini) in the temp dir: keep them in the sandbox.
    TMPDIR: tmp,
    // Claude Code
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    // Codex (config.toml names this variable as the provider's env_key)
    CODEX_HOME: join(sb.home, ".codex"),
    FAKE_MODEL_API_KEY: "test-not-a-real-key",
    // Qwen Code (its settings.json selects the OpenAI-compatible auth)
    OPENAI_API_KEY: "test-not-a-real-key",
    OPENAI_BASE_URL: `${server.url}/v1`,
    // Gemini CLI
    GEMINI_API_KEY: "test-not-a-real-key",
    GOOGLE_GEMINI_BASE_URL: server.url,
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    TERM: "dumb",
    CI: "true",
  };
  writeBaseConfigs(sb.home, server);
  const out = { ...sb, project, agentEnv };
  made.push(out);
  return out;
}

/**
 * The minimum each CLI needs to talk to the fake server, written before `coffer link` so that link
 * edits real, pre-existing user configs.
 */
export function writeBaseConfigs(home: string, server: ModelServer): void {
  mkdirSync(join(home, ".claude"), { recursive: true });
  if (!existsSync(join(home, ".claude", "settings.json")))
    writeFileSync(join(home, ".claude", "settings.json"), "{}\n");
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(
    join(home, ".codex", "config.toml"),
    [
      "# written by the agent test harness",
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      "",
      "[model_providers.fake]",
      'name = "Fake model server"',
      `base_url = "${server.url}/v1"`,
      'env_key = "FAKE_MODEL_API_KEY"',
      'wire_api = "responses"',
      "",
    ].join("\n"),
  );
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(
    join(home, ".gemini", "settings.json"),
    `${JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }, null, 2)}\n`,
  );
  // Qwen Code: the OpenAI-compatible endpoint (OPENAI_BASE_URL); its memory extractor off (one request per turn).
  mkdirSync(join(home, ".qwen"), { recursive: true });
  writeFileSync(
    join(home, ".qwen", "settings.json"),
    `${JSON.stringify({ security: { auth: { selectedType: "openai" } }, model: { name: "fake-model" }, memory: { enableManagedAutoMemory: false } }, null, 2)}\n`,
  );
}

// ---------------------------------------------------------------- running the CLIs

export type AgentRun = {
  agent: AgentName;
  code: number;
  stdout: string;
  stderr: string;
  /** Session id the CLI reported (Claude/Gemini JSON output; Codex "session id:" line). */
  sessionId: string | undefined;
  ms: number;
};

export type RunAgentOptions = {
  prompt: string;
  /** Resume this session (Claude --resume, Codex exec resume, Gemini --resume). */
  resume?: string;
  cwd?: string;
  env?: Record<string, string>;
  extraArgs?: string[];
  timeoutMs?: number;
};

export async function runAgent(sb: AgentSandbox, agent: AgentName, opts: RunAgentOptions): Promise<AgentRun> {
  const exe = await ensureAgent(agent);
  const args: string[] = [];
  if (agent === "claude") {
    args.push("-p", opts.prompt, "--output-format", "json");
    if (opts.resume) args.push("--resume", opts.resume);
  } else if (agent === "codex") {
    args.push("exec");
    if (opts.resume) args.push("resume");
    args.push("--dangerously-bypass-hook-trust", "--skip-git-repo-check");
    if (opts.resume) args.push(opts.resume);
  } else {
    args.push("-p", opts.prompt, "-o", "json");
    if (opts.resume) args.push("--resume", opts.resume);
  }
  args.push(...(opts.extraArgs ?? []));
  if (agent === "codex") args.push(opts.prompt);
  const started = Date.now();
  const p = Bun.spawn([exe, ...args], {
    cwd: opts.cwd ?? sb.project,
    env: { ...sb.agentEnv, ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timeoutMs = opts.timeoutMs ?? RUN_TIMEOUT_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    p.kill("SIGKILL");
  }, timeoutMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  clearTimeout(timer);
  const run: AgentRun = { agent, code, stdout, stderr, sessionId: undefined, ms: Date.now() - started };
  if (timedOut)
    throw new Error(
      `${agent} did not finish within ${timeoutMs} ms\nstdout:\n${stdout.slice(-3000)}\nstderr:\n${stderr.slice(-3000)}`,
    );
  if (agent === "codex") {
    run.sessionId = /session id: ([0-9a-f-]{36})/.exec(stderr + stdout)?.[1];
  } else {
    try {
      // Qwen prints an array of events, each with the session id.
      const doc = JSON.parse(stdout);
      run.sessionId = Array.isArray(doc) ? doc.find((e) => e?.session_id)?.session_id : doc.session_id;
    } catch {}
  }
  return run;
}

/** Throw with the CLI's output when a run failed, so a failing test shows why. */
export function assertRunOk(run: AgentRun): AgentRun {
  if (run.code !== 0) {
    throw new Error(
      `${run.agent} exited ${run.code}\nstdout:\n${run.stdout.slice(-3000)}\nstderr:\n${run.stderr.slice(-3000)}`,
    );
  }
  return run;
}

// ---------------------------------------------------------------- small file helpers for tests

/**
 * One run of a CLI in the project (or `cwd`) with the agents' environment plus `env`: its output,
 * or an error with the tail of both streams unless it exits 0 within RUN_TIMEOUT_MS.
 */
export async function runCli(
  sb: AgentSandbox,
  argv: string[],
  opts: { env?: Record<string, string>; cwd?: string } = {},
): Promise<{ stdout: string; stderr: string }> {
  const p = Bun.spawn(argv, {
    cwd: opts.cwd ?? sb.project,
    env: { ...sb.agentEnv, ...opts.env },
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
  if (code !== 0)
    throw new Error(
      `${argv.slice(0, 3).join(" ")} exited ${code}\nstdout:\n${stdout.slice(-3000)}\nstderr:\n${stderr.slice(-3000)}`,
    );
  return { stdout, stderr };
}

export function readJson(path: string): any {
  return JSON.parse(readFileSync(path, "utf8"));
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Every file under dir (recursive), for finding transcripts. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out;
}
