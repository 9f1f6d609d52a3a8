/**
 * Through the binary, without the agents: where `coffer link` writes for Copilot, Cline, Qwen and
 * Pi when their folder variables are set (`~` expanded as the CLIs do), oh-my-pi's extension beside
 * Pi's only when `~/.omp` exists (and doctor asking for a re-link once it appears), and Copilot's
 * repository trust as link and doctor read it. The real CLIs: test/agents/host-dirs.test.ts,
 * project-links.test.ts, omp.test.ts.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox, writeFile } from "../kit";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox("coffer-link-dirs-");
});
afterEach(() => sb.cleanup());

const doctorHost = (host: string, scope: string, opts: { cwd?: string; env?: Record<string, string> } = {}) =>
  JSON.parse(sb.run(["doctor", "--json"], opts).stdout).hosts.find((h: any) => h.host === host && h.scope === scope);

describe("folder variables", () => {
  test("a leading ~/ is the home for Qwen and Pi, a folder named ~ in the working directory for Copilot and Cline", () => {
    const env = {
      COPILOT_HOME: "~/cp",
      CLINE_DIR: "~/cl",
      QWEN_HOME: "~/qw",
      PI_CODING_AGENT_DIR: "~/pi-agent",
    };
    const cwd = join(sb.root, "w");
    mkdirSync(cwd, { recursive: true });
    for (const host of ["copilot", "cline", "qwen", "pi"]) expect(sb.run(["link", host], { env, cwd }).code).toBe(0);
    // Observed with Copilot CLI 1.0.102 (COPILOT_HOME=~/cp made ./~/cp); Cline's resolveClineDir joins the value as is.
    expect(existsSync(join(cwd, "~", "cp", "hooks", "coffer.json"))).toBe(true);
    expect(existsSync(join(cwd, "~", "cp", "mcp-config.json"))).toBe(true);
    expect(existsSync(join(cwd, "~", "cl", "hooks", "UserPromptSubmit.sh"))).toBe(true);
    expect(existsSync(join(cwd, "~", "cl", "data", "settings", "cline_mcp_settings.json"))).toBe(true);
    // Qwen's resolveQwenHome and Pi's getAgentDir expand ~/.
    expect(existsSync(join(sb.home, "qw", "settings.json"))).toBe(true);
    expect(existsSync(join(sb.home, "pi-agent", "extensions", "coffer.ts"))).toBe(true);
    for (const d of [".copilot", ".cline", ".qwen", ".pi"]) expect(existsSync(join(sb.home, d))).toBe(false);
    expect(doctorHost("copilot", "user", { env, cwd }).status).toBe("linked");
    for (const host of ["copilot", "cline", "qwen", "pi"]) expect(sb.run(["unlink", host], { env, cwd }).code).toBe(0);
    expect(existsSync(join(cwd, "~", "cp", "hooks", "coffer.json"))).toBe(false);
    expect(existsSync(join(sb.home, "pi-agent", "extensions", "coffer.ts"))).toBe(false);
  });

  test("Cline's MCP file follows CLINE_MCP_SETTINGS_PATH, then CLINE_DATA_DIR", () => {
    const mcp = join(sb.root, "elsewhere", "mcp.json");
    expect(sb.run(["link", "cline"], { env: { CLINE_MCP_SETTINGS_PATH: mcp } }).code).toBe(0);
    expect(existsSync(mcp)).toBe(true);
    expect(existsSync(join(sb.home, ".cline", "hooks", "PostToolUse.sh"))).toBe(true);
    const data = join(sb.root, "cline-data");
    expect(sb.run(["link", "cline"], { env: { CLINE_DATA_DIR: data } }).code).toBe(0);
    expect(existsSync(join(data, "settings", "cline_mcp_settings.json"))).toBe(true);
  });

  test("link --all names the variable that found the host", () => {
    mkdirSync(join(sb.root, "cp"), { recursive: true });
    const out = JSON.parse(
      sb.run(["link", "--all", "--dry-run", "--json"], { env: { COPILOT_HOME: join(sb.root, "cp") } }).stdout,
    );
    expect(out.hosts.find((h: any) => h.host === "copilot").installed).toBe("$COPILOT_HOME");
  });
});

describe("oh-my-pi", () => {
  const omp = () => join(sb.home, ".omp", "agent", "extensions", "coffer.ts");
  const pi = () => join(sb.home, ".pi", "agent", "extensions", "coffer.ts");

  test("no ~/.omp: Pi's extension alone, nothing made for omp", () => {
    const r = sb.run(["link", "pi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Pi has no MCP client");
    expect(existsSync(pi())).toBe(true);
    expect(existsSync(join(sb.home, ".omp"))).toBe(false);
  });

  test("with ~/.omp: the same extension in both; unlink removes both; PI_CODING_AGENT_DIR serves both with one", async () => {
    mkdirSync(join(sb.home, ".omp"), { recursive: true });
    expect(sb.run(["link", "pi"]).code).toBe(0);
    expect(await Bun.file(omp()).text()).toBe(await Bun.file(pi()).text());
    // omp has an MCP client: Coffer's server in its mcp.json.
    const mcp = join(sb.home, ".omp", "agent", "mcp.json");
    expect(JSON.parse(await Bun.file(mcp).text()).mcpServers.coffer.args).toEqual(["serve", "--stdio"]);
    expect(doctorHost("pi", "user").mcp.registered).toBe(true);
    expect(sb.run(["unlink", "pi"]).code).toBe(0);
    expect(existsSync(omp())).toBe(false);
    expect(existsSync(pi())).toBe(false);
    expect(existsSync(mcp)).toBe(false);
    const dir = join(sb.root, "agent");
    expect(sb.run(["link", "pi"], { env: { PI_CODING_AGENT_DIR: dir } }).code).toBe(0);
    expect(existsSync(join(dir, "extensions", "coffer.ts"))).toBe(true);
    expect(existsSync(omp())).toBe(false);
  });

  test("--project in a repository with .omp: the extension and the MCP entry in .omp too; unlink leaves .omp as it was", () => {
    const repo = sb.repo("app");
    mkdirSync(join(repo, ".omp"), { recursive: true });
    expect(sb.run(["link", "pi", "--project"], { cwd: repo }).code).toBe(0);
    expect(existsSync(join(repo, ".pi", "extensions", "coffer.ts"))).toBe(true);
    expect(existsSync(join(repo, ".omp", "extensions", "coffer.ts"))).toBe(true);
    expect(JSON.parse(readFileSync(join(repo, ".omp", "mcp.json"), "utf8")).mcpServers.coffer.command).toBe("coffer");
    expect(sb.run(["unlink", "pi", "--project"], { cwd: repo }).code).toBe(0);
    expect(readdirSync(join(repo, ".omp"))).toEqual([]);
    expect(existsSync(join(repo, ".pi"))).toBe(false);
  });

  test("omp installed after the link: doctor asks for a re-link, which adds omp's copy", () => {
    expect(sb.run(["link", "pi"]).code).toBe(0);
    expect(doctorHost("pi", "user").problems).toEqual([]);
    mkdirSync(join(sb.home, ".omp"), { recursive: true });
    const problems = doctorHost("pi", "user").problems.map((p: any) => p.message);
    expect(problems.some((m: string) => m.includes(".omp/agent/extensions/coffer.ts"))).toBe(true);
    expect(sb.run(["link", "pi"]).code).toBe(0);
    expect(existsSync(omp())).toBe(true);
    expect(doctorHost("pi", "user").problems).toEqual([]);
  });

  test("the extension appends its part to omp's list-shaped system prompt", async () => {
    mkdirSync(join(sb.home, ".omp"), { recursive: true });
    expect(sb.run(["link", "pi"]).code).toBe(0);
    const repo = sb.repo("app");
    expect(sb.run(["rules", "add", "Use pnpm, never npm", "--scope", "project"], { cwd: repo }).code).toBe(0);
    const saved = { HOME: process.env.HOME, COFFER_HOME: process.env.COFFER_HOME };
    Object.assign(process.env, { HOME: sb.home, COFFER_HOME: sb.cofferHome });
    try {
      const mod = await import(omp());
      const handlers: Record<string, any> = {};
      mod.default({ on: (name: string, fn: unknown) => (handlers[name] = fn) });
      const ctx = { cwd: repo, sessionManager: { getSessionId: () => "omp-session-1" } };
      const out = await handlers.before_agent_start({ prompt: "hello", systemPrompt: ["A", "B"] }, ctx);
      expect(out.systemPrompt.slice(0, 2)).toEqual(["A", "B"]);
      expect(out.systemPrompt.length).toBe(3);
      expect(out.systemPrompt[2]).toContain("Use pnpm, never npm");
    } finally {
      Object.assign(process.env, saved);
    }
  });
});

describe("Copilot: a repository's hooks need a trusted folder", () => {
  test("link --project says so; doctor reports it until the folder (or a parent) is trusted", () => {
    const repo = sb.repo("app");
    const link = sb.run(["link", "copilot", "--project"], { cwd: repo });
    expect(link.code).toBe(0);
    expect(link.stdout).toContain("runs this repository's hooks only in a folder you trust");
    const untrusted = () =>
      doctorHost("copilot", "project", { cwd: repo }).problems.filter((p: any) =>
        p.message.includes("not a trusted folder"),
      );
    expect(untrusted().length).toBe(1);
    // config.json as Copilot writes it: a comment first.
    writeFile(
      join(sb.home, ".copilot", "config.json"),
      `// User settings belong in settings.json.\n{"trustedFolders": [${JSON.stringify(join(repo, ".."))}]}\n`,
    );
    expect(untrusted()).toEqual([]);
    writeFile(join(sb.home, ".copilot", "config.json"), '{"trustedFolders": ["/somewhere/else"]}\n');
    expect(untrusted().length).toBe(1);
    expect(
      doctorHost("copilot", "project", { cwd: repo, env: { COPILOT_ALLOW_ALL: "true" } }).problems.filter((p: any) =>
        p.message.includes("not a trusted folder"),
      ),
    ).toEqual([]);
  });
});
