/**
 * Goose (not run here: a native binary no registry ships) through the compiled binary, against
 * the config file its documentation shows: `coffer link goose` adds an entry under `extensions:`
 * in `~/.config/goose/config.yaml` (Goose's own stdio shape, not `mcpServers:`), keeps every other
 * byte, and unlink gives the file back byte for byte; doctor calls Goose linked through MCP alone;
 * `coffer serve --stdio --rules`, the command the entry runs, answers MCP's initialize with the
 * rules bundle as `instructions`, which Goose puts in its system prompt.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
afterEach(() => sb?.cleanup());

const CONFIG = `# goose settings
GOOSE_PROVIDER: anthropic
GOOSE_MODEL: claude-sonnet-4
extensions:
  developer:
    enabled: true
    type: builtin
    name: developer
    display_name: Developer   # shell and files
    timeout: 300
  github:
    enabled: false
    type: stdio
    name: github
    cmd: npx
    args:
    - -y
    - "@modelcontextprotocol/server-github"
    envs: {}

GOOSE_MODE: smart_approve
`;

const configPath = (s: Sandbox) => join(s.home, ".config", "goose", "config.yaml");

describe("coffer link goose", () => {
  test("an entry under extensions:, every other byte kept; unlink gives the file back", () => {
    sb = sandbox("coffer-link-goose-");
    mkdirSync(join(sb.home, ".config", "goose"), { recursive: true });
    writeFileSync(configPath(sb), CONFIG);
    expect(sb.run(["link", "goose"]).code).toBe(0);
    const text = readFileSync(configPath(sb), "utf8");
    const doc = Bun.YAML.parse(text) as { extensions: Record<string, unknown>; GOOSE_MODE: string };
    expect(doc.extensions.coffer).toEqual({
      enabled: true,
      type: "stdio",
      name: "coffer",
      cmd: BIN,
      args: ["serve", "--stdio", "--rules"],
      envs: {},
      timeout: 300,
    });
    expect(Object.keys(doc.extensions)).toEqual(["developer", "github", "coffer"]);
    expect(doc.GOOSE_MODE).toBe("smart_approve");
    // Coffer's entry is one block after the last extension; without it, the file is the user's.
    expect(text.replace(/^ {2}coffer:\n(?: {4}.*\n)+/m, "")).toBe(CONFIG);

    const host = sb
      .run(["doctor", "--json"])
      .json()
      .hosts.find((h: { host: string }) => h.host === "goose");
    expect(host.status).toBe("linked");
    expect(host.mcp).toMatchObject({ registered: true, binary: BIN });
    expect(host.notes[0]).toContain("the rules reach it as the MCP server's instructions");

    expect(sb.run(["link", "goose"]).stdout).toContain("already linked");
    expect(sb.run(["unlink", "goose"]).code).toBe(0);
    expect(readFileSync(configPath(sb), "utf8")).toBe(CONFIG);
  });

  test("no config yet: created with extensions:, removed again by unlink; --project is refused", () => {
    sb = sandbox("coffer-link-goose-");
    mkdirSync(join(sb.home, ".config", "goose"), { recursive: true });
    expect(sb.run(["link", "--all"]).stdout).toContain("Linked Goose (~/.config/goose)");
    expect((Bun.YAML.parse(readFileSync(configPath(sb), "utf8")) as any).extensions.coffer.cmd).toBe(BIN);
    expect(sb.run(["unlink", "goose"]).code).toBe(0);
    expect(existsSync(configPath(sb))).toBe(false);
    const repo = sb.repo("app");
    const r = sb.run(["link", "goose", "--project"], { cwd: repo });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Goose has no project-level link");
  });

  test("an extension named coffer that is the user's is left alone", () => {
    sb = sandbox("coffer-link-goose-");
    mkdirSync(join(sb.home, ".config", "goose"), { recursive: true });
    const theirs =
      "extensions:\n  coffer:\n    enabled: true\n    type: stdio\n    cmd: /opt/other/coffer-fork\n    args: []\n";
    writeFileSync(configPath(sb), theirs);
    const r = sb.run(["link", "goose"]);
    expect(r.stdout + r.stderr).toContain("coffer");
    expect(readFileSync(configPath(sb), "utf8")).toBe(theirs);
  });
});

describe("coffer serve --stdio --rules", () => {
  test("initialize answers with the rules bundle as instructions; without --rules, none", async () => {
    sb = sandbox("coffer-link-goose-");
    const repo = sb.repo("app");
    expect(
      sb.run(["rules", "add", "Always run the linter before committing", "--scope", "global"], { cwd: repo }).code,
    ).toBe(0);
    const init = `${JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "goose", version: "1.0" } },
    })}\n`;
    const ask = async (args: string[]) => {
      const p = Bun.spawn([BIN, "serve", "--stdio", ...args], {
        cwd: repo,
        env: sb.env,
        stdin: "pipe",
        stdout: "pipe",
      });
      p.stdin.write(init);
      p.stdin.end();
      const out = await new Response(p.stdout).text();
      await p.exited;
      return JSON.parse(out.split("\n")[0]!).result;
    };
    const withRules = await ask(["--rules"]);
    expect(withRules.instructions).toStartWith("# Project rules (via Coffer)");
    expect(withRules.instructions).toContain("- Always run the linter before committing");
    expect((await ask([])).instructions).toBeUndefined();
  });
});
