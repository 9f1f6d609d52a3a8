/**
 * Data loss in link (issue 12): what an attack on `coffer link` / `unlink` found, each through
 * the binary on real files. A user's own MCP entry is never taken over or deleted; bytes that
 * are not UTF-8 are never rewritten; a backup the user made is never overwritten; a plugin
 * file with a similar first line is not Coffer's; read-only configs, duplicate keys and a BOM
 * are refused with messages that name them.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { BIN, type Sandbox, sandbox, writeFile } from "../kit";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox("coffer-rel-link-");
});
afterEach(() => sb.cleanup());

const read = (p: string) => (existsSync(p) ? readFileSync(p, "utf8") : null);
const bytes = (p: string) => readFileSync(p);
const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe("an MCP entry named coffer that the user wrote", () => {
  const claudeJson = () => join(sb.home, ".claude.json");
  const userEntry = `{
  "numStartups": 3,
  "mcpServers": {
    "coffer": {
      "type": "stdio",
      "command": "/opt/coffer/bin/coffer",
      "args": ["serve", "--stdio"],
      "env": { "COFFER_HOME": "/data/team-coffer" }
    },
    "other": { "command": "npx", "args": ["x"] }
  }
}
`;

  test("Claude: link leaves it alone and says how to replace it; unlink leaves it too", () => {
    writeFile(claudeJson(), userEntry);
    const r = sb.run(["link", "claude"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Coffer did not write it");
    expect(r.stdout).toContain("--force");
    expect(read(claudeJson())).toBe(userEntry);
    const u = sb.run(["unlink", "claude"]);
    expect(u.code).toBe(0);
    expect(read(claudeJson())).toBe(userEntry);
  });

  test("Claude: link --force replaces it, unlink puts the user's entry back byte for byte", () => {
    writeFile(claudeJson(), userEntry);
    const r = sb.run(["link", "claude", "--force"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(read(claudeJson())!).mcpServers.coffer).toEqual({
      type: "stdio",
      command: BIN,
      args: ["serve", "--stdio"],
      env: {},
    });
    // A re-link changes nothing, and does not lose what it must restore.
    expect(sb.run(["link", "claude"]).stdout).toContain("already linked");
    const u = sb.run(["unlink", "claude"]);
    expect(u.code).toBe(0);
    expect(u.stdout).toContain("restored");
    expect(read(claudeJson())).toBe(userEntry);
    expect(sb.run(["unlink", "claude"]).stdout).toContain("nothing changed");
    expect(read(claudeJson())).toBe(userEntry);
  });

  test("Codex: [mcp_servers.coffer] the user wrote is left alone; --force and unlink give it back", () => {
    const toml = join(sb.home, ".codex", "config.toml");
    const mine = `model = "o3"\n\n[mcp_servers.coffer]\ncommand = "/usr/local/bin/coffer"\nargs = ["serve", "--stdio"]\nenv = { COFFER_HOME = "/data/coffer" }\n`;
    writeFile(toml, mine);
    const r = sb.run(["link", "codex"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Coffer did not write it");
    expect(read(toml)).toBe(mine);
    expect(sb.run(["unlink", "codex"]).code).toBe(0);
    expect(read(toml)).toBe(mine);

    expect(sb.run(["link", "codex", "--force"]).code).toBe(0);
    expect((parseToml(read(toml)!) as any).mcp_servers.coffer).toEqual({ command: BIN, args: ["serve", "--stdio"] });
    expect(sb.run(["unlink", "codex"]).code).toBe(0);
    expect(parseToml(read(toml)!)).toEqual(parseToml(mine));
    expect(read(toml)).toBe(mine);
  });

  test("an entry Coffer wrote stays Coffer's: the user's env survives a re-link, unlink removes it", () => {
    writeFile(claudeJson(), `{ "numStartups": 3 }\n`);
    expect(sb.run(["link", "claude"]).code).toBe(0);
    const doc = JSON.parse(read(claudeJson())!);
    doc.mcpServers.coffer.env = { COFFER_HOME: "/x" };
    doc.mcpServers.coffer.command = "/old/coffer";
    writeFile(claudeJson(), JSON.stringify(doc));
    const r = sb.run(["link", "claude"]);
    expect(r.stdout).toContain("updated (command)");
    expect(JSON.parse(read(claudeJson())!).mcpServers.coffer.env).toEqual({ COFFER_HOME: "/x" });
    expect(sb.run(["unlink", "claude"]).code).toBe(0);
    expect(JSON.parse(read(claudeJson())!)).toEqual({ numStartups: 3 });
  });
});

describe("bytes and backups", () => {
  test("a config with bytes that are not UTF-8 is refused, not rewritten to U+FFFD", () => {
    const file = join(sb.home, ".claude", "settings.json");
    const raw = Buffer.concat([Buffer.from('{\n  "greeting": "caf'), Buffer.from([0xe9]), Buffer.from('"\n}\n')]);
    writeFile(file, "");
    writeFileSync(file, raw);
    const r = sb.run(["link", "claude", "--no-mcp"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("~/.claude/settings.json:2: not valid UTF-8 (byte 0xe9");
    expect(r.stderr).not.toContain("bug in Coffer");
    expect(bytes(file).equals(raw)).toBe(true);
    expect(existsSync(`${file}.bak`)).toBe(false);

    const toml = join(sb.home, ".codex", "config.toml");
    const t = Buffer.concat([Buffer.from("# caf"), Buffer.from([0xe9]), Buffer.from('\nmodel = "o3"\n')]);
    writeFile(toml, "");
    writeFileSync(toml, t);
    const c = sb.run(["link", "codex"]);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain("not valid UTF-8");
    expect(bytes(toml).equals(t)).toBe(true);
  });

  test("a settings.json.bak the user made is never overwritten; Coffer's backup gets its own name", () => {
    const file = join(sb.home, ".claude", "settings.json");
    const original = `{\n  "model": "opus"\n}\n`;
    const userBak = "my own backup, hands off\n";
    writeFile(file, original);
    writeFile(`${file}.bak`, userBak);
    const r = sb.run(["link", "claude", "--no-mcp"]);
    expect(r.code).toBe(0);
    expect(read(`${file}.bak`)).toBe(userBak);
    expect(read(`${file}.bak.1`)).toBe(original);
    expect(r.stdout).toContain("(previous version: ~/.claude/settings.json.bak.1)");
    const linked = read(file);
    expect(sb.run(["unlink", "claude"]).code).toBe(0);
    expect(read(file)).toBe(original);
    expect(read(`${file}.bak`)).toBe(userBak);
    // Coffer's own backup is reused, not multiplied.
    expect(read(`${file}.bak.1`)).toBe(linked);
    expect(readdirSync(join(sb.home, ".claude")).sort()).toEqual([
      "settings.json",
      "settings.json.bak",
      "settings.json.bak.1",
    ]);
  });

  test("--json names the backup actually written", () => {
    const file = join(sb.home, ".gemini", "settings.json");
    writeFile(file, `{}\n`);
    writeFile(`${file}.bak`, "mine\n");
    const j = sb.run(["link", "gemini", "--json"]).json();
    expect(j.files.find((f: any) => f.path === file).backup).toBe(`${file}.bak.1`);
  });
});

describe("OpenCode plugin ownership", () => {
  test("a first line that merely contains the marker is not Coffer's: never overwritten or removed", () => {
    const file = join(sb.home, ".config", "opencode", "plugins", "coffer.js");
    const mine = `// coffer-managed? no: my own plugin, based on Coffer's\nexport const Mine = async () => ({});\n`;
    writeFile(file, mine);
    const r = sb.run(["link", "opencode"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("was not written by Coffer");
    expect(read(file)).toBe(mine);
    const u = sb.run(["unlink", "opencode"]);
    expect(u.code).toBe(0);
    expect(read(file)).toBe(mine);
  });

  test("the generated plugin is still recognised (link, re-link, unlink)", () => {
    const file = join(sb.home, ".config", "opencode", "plugins", "coffer.js");
    expect(sb.run(["link", "opencode", "--no-mcp"]).code).toBe(0);
    expect(sb.run(["link", "opencode", "--no-mcp"]).stdout).toContain("already linked");
    expect(sb.run(["unlink", "opencode"]).code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});

describe("configs Coffer must not edit as they are", () => {
  test("a read-only config is refused without --force; with it, written and left read-only", () => {
    const file = join(sb.home, ".claude", "settings.json");
    const original = `{\n  "model": "opus"\n}\n`;
    writeFile(file, original);
    chmodSync(file, 0o444);
    const r = sb.run(["link", "claude", "--no-mcp"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("~/.claude/settings.json is read-only (mode 444)");
    expect(r.stderr).toContain("--force");
    expect(read(file)).toBe(original);
    expect(existsSync(`${file}.bak`)).toBe(false);
    const f = sb.run(["link", "claude", "--no-mcp", "--force"]);
    expect(f.code).toBe(0);
    expect(read(file)).toContain(`${BIN} hook`);
    expect(mode(file)).toBe("444");
    expect(sb.run(["unlink", "claude"]).code).toBe(1);
    expect(read(file)).toContain(`${BIN} hook`);
    expect(sb.run(["unlink", "claude", "--force"]).code).toBe(0);
    expect(read(file)).toBe(original);
    expect(mode(file)).toBe("444");
  });

  test("duplicate keys are named (file, line, key), not reported as a bug in Coffer", () => {
    const file = join(sb.home, ".claude", "settings.json");
    const text = `{\n  "model": "opus",\n  "hooks": {},\n  "model": "sonnet"\n}\n`;
    writeFile(file, text);
    const r = sb.run(["link", "claude", "--no-mcp"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`~/.claude/settings.json:4:3: duplicate key "model" (also on line 2)`);
    expect(r.stderr).not.toContain("bug in Coffer");
    expect(read(file)).toBe(text);
  });

  test("a UTF-8 BOM is named, not 'InvalidSymbol 1:1'", () => {
    const file = join(sb.home, ".gemini", "settings.json");
    const text = `\uFEFF{\n  "theme": "dark"\n}\n`;
    writeFile(file, text);
    const r = sb.run(["link", "gemini"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("byte order mark (BOM)");
    expect(r.stderr).not.toContain("InvalidSymbol");
    expect(read(file)).toBe(text);
  });
});

describe("a big ~/.claude.json", () => {
  test("link and unlink stay within a small multiple of the file's size, and unlink restores it exactly", async () => {
    const { bigClaudeJson } = await import("../../scripts/bench/link-memory");
    const file = join(sb.home, ".claude.json");
    const text = bigClaudeJson(20 * 1024 * 1024);
    writeFileSync(file, text);
    const mb = text.length / 1024 / 1024;
    const peak = (args: string[]) => {
      const out = join(sb.root, "time.txt");
      const p = Bun.spawnSync(["/usr/bin/time", "-v", "-o", out, BIN, ...args], { env: sb.env, cwd: sb.home });
      expect(p.exitCode).toBe(0);
      return Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(out, "utf8"))![1]) / 1024;
    };
    // Before: about 20x the file to link and 35x to unlink (888 MB / 1.37 GB for 44 MB).
    const bound = 6 * mb + 60;
    expect(peak(["link", "claude"])).toBeLessThan(bound);
    expect(JSON.parse(read(file)!).mcpServers.coffer.command).toBe(BIN);
    expect(peak(["unlink", "claude"])).toBeLessThan(bound);
    expect(read(file)).toBe(text);
  }, 120_000);
});

describe("links committed in a repository (link --project)", () => {
  test("a config or folder that is a symbolic link leading outside the repository is not written through", () => {
    const repo = sb.repo("linked-configs", "https://github.com/acme/linked-configs.git");
    const outside = join(sb.root, "outside");
    const { mkdirSync, symlinkSync } = require("node:fs") as typeof import("node:fs");
    mkdirSync(join(outside, "dotclaude"), { recursive: true });
    writeFileSync(join(outside, "victim.json"), '{ "keep": "me" }\n');
    writeFileSync(join(outside, "dotclaude", "settings.json"), '{ "also": "mine" }\n');
    symlinkSync(join(outside, "victim.json"), join(repo, ".mcp.json"));
    symlinkSync(join(outside, "dotclaude"), join(repo, ".claude"));
    const r = sb.run(["link", "claude", "--project"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/outside the repository/);
    expect(r.stderr).not.toMatch(/bug in Coffer|^\s+at /m);
    expect(read(join(outside, "victim.json"))).toBe('{ "keep": "me" }\n');
    expect(read(join(outside, "dotclaude", "settings.json"))).toBe('{ "also": "mine" }\n');
    expect(readdirSync(outside).sort()).toEqual(["dotclaude", "victim.json"]);
    expect(readdirSync(join(outside, "dotclaude"))).toEqual(["settings.json"]);
  });
});

describe("one host linked twice (for the user and for the project)", () => {
  test("doctor warns that every hook then runs twice, and says how to keep one", () => {
    const repo = sb.repo("twice-linked", "https://github.com/acme/twice-linked.git");
    expect(sb.run(["link", "claude"], { cwd: repo }).code).toBe(0);
    expect(sb.run(["link", "claude", "--project"], { cwd: repo }).code).toBe(0);
    const doc = sb.run(["doctor", "--json"], { cwd: repo });
    const warnings = doc.json().warnings as { where: string; message: string; fix: string }[];
    const twice = warnings.find((w) => /twice/.test(w.message));
    expect(twice).toBeDefined();
    expect(twice!.where).toContain("claude");
    expect(twice!.fix).toContain("coffer unlink claude --project");
  });
});
