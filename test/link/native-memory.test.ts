/**
 * native_memory on -> off -> unlink: Claude `autoMemoryEnabled` and Codex `[features] memories`
 * + `[memories] generate_memories` go off on link and come back to the original bytes on
 * unlink — whether the keys were there (any value, any spelling) or absent.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { BIN, type Sandbox, sandbox, writeFile } from "../kit";
import { fixture, read } from "./util";

let sb: Sandbox;
beforeEach(() => (sb = sandbox("coffer-native-")));
afterEach(() => sb.cleanup());

const claudeSettings = () => join(sb.home, ".claude", "settings.json");
const codexConfig = () => join(sb.home, ".codex", "config.toml");

function setOff(host: string) {
  const r = sb.run(["config", "set", `native_memory.${host}`, "off"]);
  expect(r.code).toBe(0);
}

describe("Claude autoMemoryEnabled", () => {
  test("key present (true): off on link, the original bytes back on unlink", () => {
    const original = fixture("claude-settings-memory.json");
    writeFile(claudeSettings(), original);
    setOff("claude");
    expect(sb.run(["link", "claude", "--no-mcp"]).code).toBe(0);
    const linked = read(claudeSettings())!;
    expect(JSON.parse(linked).autoMemoryEnabled).toBe(false);
    expect(linked).toContain(`"autoMemoryEnabled": false,`);
    expect(sb.run(["unlink", "claude"]).code).toBe(0);
    expect(read(claudeSettings())).toBe(original);
  });

  test("key absent: added on link, removed (not set to true) on unlink", () => {
    const original = fixture("claude-settings.json");
    writeFile(claudeSettings(), original);
    setOff("claude");
    expect(sb.run(["link", "claude", "--no-mcp"]).code).toBe(0);
    expect(JSON.parse(read(claudeSettings())!).autoMemoryEnabled).toBe(false);
    expect(sb.run(["unlink", "claude"]).code).toBe(0);
    expect(read(claudeSettings())).toBe(original);
  });

  test("no settings file at all: created on link, gone after unlink", () => {
    setOff("claude");
    expect(sb.run(["link", "claude", "--no-mcp"]).code).toBe(0);
    expect(JSON.parse(read(claudeSettings())!).autoMemoryEnabled).toBe(false);
    expect(sb.run(["unlink", "claude"]).code).toBe(0);
    expect(read(claudeSettings())).toBeNull();
  });

  test("switching the setting back to keep and re-linking restores it too", () => {
    const original = fixture("claude-settings-memory.json");
    writeFile(claudeSettings(), original);
    setOff("claude");
    sb.run(["link", "claude", "--no-mcp"]);
    expect(sb.run(["config", "set", "native_memory.claude", "keep"]).code).toBe(0);
    const r = sb.run(["link", "claude", "--no-mcp"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("autoMemoryEnabled restored");
    expect(JSON.parse(read(claudeSettings())!).autoMemoryEnabled).toBe(true);
    sb.run(["unlink", "claude"]);
    expect(read(claudeSettings())).toBe(original);
  });

  test("a value the user changed after link is theirs: unlink leaves it", () => {
    writeFile(claudeSettings(), fixture("claude-settings-memory.json"));
    setOff("claude");
    sb.run(["link", "claude", "--no-mcp"]);
    const edited = read(claudeSettings())!.replace(`"autoMemoryEnabled": false`, `"autoMemoryEnabled": true`);
    writeFile(claudeSettings(), edited);
    expect(sb.run(["unlink", "claude"]).code).toBe(0);
    expect(JSON.parse(read(claudeSettings())!).autoMemoryEnabled).toBe(true);
    expect(read(claudeSettings())).toBe(fixture("claude-settings-memory.json"));
  });

  test("native memory is audited", () => {
    writeFile(claudeSettings(), fixture("claude-settings-memory.json"));
    setOff("claude");
    sb.run(["link", "claude", "--no-mcp"]);
    sb.run(["unlink", "claude"]);
    const audit = read(join(sb.cofferHome, "state", "audit.jsonl"))!;
    expect(audit).toContain(`"event":"native_memory_off"`);
    expect(audit).toContain(`"event":"native_memory_restored"`);
  });
});

describe("Codex [features] memories / [memories] generate_memories", () => {
  test("commented config: both keys absent -> off -> unlink gives the original bytes", () => {
    const original = fixture("codex-config.toml");
    writeFile(codexConfig(), original);
    setOff("codex");
    const r = sb.run(["link", "codex"]);
    expect(r.code).toBe(0);
    const linked = read(codexConfig())!;
    const doc = parseToml(linked) as any;
    expect(doc.features).toEqual({ web_search_request: true, memories: false });
    expect(doc.memories).toEqual({ generate_memories: false });
    expect(doc.mcp_servers.coffer.args).toEqual(["serve", "--stdio"]);
    expect(linked).toContain(
      "web_search_request = true   # I want search, don't drop this comment\nmemories = false\n",
    );
    expect(sb.run(["unlink", "codex"]).code).toBe(0);
    expect(read(codexConfig())).toBe(original);
  });

  test("keys present with comments and odd spacing: restored byte-for-byte", () => {
    const original = `# mine\n[features]\nmemories   =   true   # experimental, I like it\n\n[memories]\ngenerate_memories = true\nmax_entries = 40 # ✓\n`;
    writeFile(codexConfig(), original);
    setOff("codex");
    expect(sb.run(["link", "codex", "--no-mcp"]).code).toBe(0);
    expect(read(codexConfig())).toBe(
      `# mine\n[features]\nmemories   =   false   # experimental, I like it\n\n[memories]\ngenerate_memories = false\nmax_entries = 40 # ✓\n`,
    );
    expect(sb.run(["unlink", "codex"]).code).toBe(0);
    expect(read(codexConfig())).toBe(original);
  });

  test("an empty [features] table the user wrote stays after unlink", () => {
    const original = `model = "o3"\n\n[features]\n\n[profiles.x]\nmodel = "y"\n`;
    writeFile(codexConfig(), original);
    setOff("codex");
    expect(sb.run(["link", "codex", "--no-mcp"]).code).toBe(0);
    expect((parseToml(read(codexConfig())!) as any).features.memories).toBe(false);
    expect(sb.run(["unlink", "codex"]).code).toBe(0);
    expect(read(codexConfig())).toBe(original);
  });

  test("no config.toml: created with MCP + switches, removed entirely by unlink", () => {
    setOff("codex");
    expect(sb.run(["link", "codex"]).code).toBe(0);
    expect(read(codexConfig())).toContain("[mcp_servers.coffer]");
    expect(sb.run(["unlink", "codex"]).code).toBe(0);
    expect(read(codexConfig())).toBeNull();
  });

  test("a broken config.toml is never touched (exit 1 with the line)", () => {
    const broken = `model = "o3"\n[features\nmemories = true\n`;
    writeFile(codexConfig(), broken);
    setOff("codex");
    const r = sb.run(["link", "codex"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("~/.codex/config.toml:2");
    expect(read(codexConfig())).toBe(broken);
    expect(read(join(sb.home, ".codex", "hooks.json"))).toBeNull();
  });

  test("an inline features table cannot be edited line-wise: clear error, nothing written", () => {
    const inline = `features = { web_search_request = true }\n`;
    writeFile(codexConfig(), inline);
    setOff("codex");
    const r = sb.run(["link", "codex", "--no-mcp"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("inline value");
    expect(read(codexConfig())).toBe(inline);
  });
});

test("both hosts in one round trip: on -> off -> unlink restores both configs' bytes", () => {
  const claudeOriginal = fixture("claude-settings-memory.json");
  const codexOriginal = fixture("codex-config.toml");
  writeFile(claudeSettings(), claudeOriginal);
  writeFile(codexConfig(), codexOriginal);
  // "on": linked with native memory kept.
  expect(sb.run(["link", "claude"]).code).toBe(0);
  expect(sb.run(["link", "codex"]).code).toBe(0);
  expect(JSON.parse(read(claudeSettings())!).autoMemoryEnabled).toBe(true);
  expect((parseToml(read(codexConfig())!) as any).features.memories).toBeUndefined();
  // "off".
  setOff("claude");
  setOff("codex");
  expect(sb.run(["link", "claude"]).code).toBe(0);
  expect(sb.run(["link", "codex"]).code).toBe(0);
  expect(JSON.parse(read(claudeSettings())!).autoMemoryEnabled).toBe(false);
  expect((parseToml(read(codexConfig())!) as any).memories.generate_memories).toBe(false);
  // unlink.
  expect(sb.run(["unlink", "claude"]).code).toBe(0);
  expect(sb.run(["unlink", "codex"]).code).toBe(0);
  expect(read(claudeSettings())).toBe(claudeOriginal);
  expect(read(codexConfig())).toBe(codexOriginal);
});

test("Codex: a moved binary updates only command in [mcp_servers.coffer]; env and timeouts stay", () => {
  // Coffer wrote the entry (link state records it); the user then added to it and the binary moved.
  expect(sb.run(["link", "codex"]).code).toBe(0);
  const original = `[mcp_servers.coffer]\ncommand = "/old/place/coffer" # where it used to live\nargs = ["serve", "--stdio"]\nstartup_timeout_sec = 20\n\n[mcp_servers.coffer.env]\nCOFFER_HOME = "/data/coffer"\n`;
  writeFile(codexConfig(), original);
  const r = sb.run(["link", "codex"]);
  expect(r.code).toBe(0);
  expect(read(codexConfig())).toBe(original.replace("/old/place/coffer", BIN));
  expect(sb.run(["link", "codex"]).stdout).toContain("already linked");
  expect(sb.run(["unlink", "codex"]).code).toBe(0);
  expect(read(codexConfig())).toBeNull(); // Coffer created the file, and nothing else is in it
});
