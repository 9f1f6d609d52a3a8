/**
 * link / unlink on realistic hand-written configs for all six hosts, through the binary:
 * every non-Coffer byte preserved, second link byte-identical, unlink restores the original
 * bytes, `.bak` holds the previous version, an unparsable config is left alone (exit 1), and
 * --dry-run prints a diff and writes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox, writeFile } from "../kit";
import { expectOnlyAdditions, fixture, parseAny, read, withoutCoffer } from "./util";

type FileCase = { rel: string; fixture: string; kind: "json" | "toml" };
type HostCase = {
  host: string;
  files: FileCase[];
  hookFile: string;
  /** native event -> [coffer event, matcher, timeout] (flat hosts: matcher undefined). */
  events: Record<string, [string, string | undefined, number | undefined]>;
  layout: "grouped" | "flat" | "plugin";
  mcp: { rel: string; path: string[] };
  /** Lines written to the hook file to make it unparsable, and the line the error must name. */
  broken: { text: string; line: number };
};

const CASES: HostCase[] = [
  {
    host: "claude",
    files: [
      { rel: ".claude/settings.json", fixture: "claude-settings.json", kind: "json" },
      { rel: ".claude.json", fixture: "claude.json", kind: "json" },
    ],
    hookFile: ".claude/settings.json",
    layout: "grouped",
    events: {
      SessionStart: ["session-start", "startup|resume|clear|compact", 10],
      UserPromptSubmit: ["prompt", undefined, 10],
      PreToolUse: ["tool", "Read|Edit|Write|MultiEdit", 10],
      PreCompact: ["compact", undefined, 10],
      SubagentStart: ["subagent-start", "*", 10],
    },
    mcp: { rel: ".claude.json", path: ["mcpServers", "coffer"] },
    broken: { text: `{\n  "model": "opus",\n  // comments are not JSON\n}\n`, line: 3 },
  },
  {
    host: "codex",
    files: [
      { rel: ".codex/hooks.json", fixture: "codex-hooks.json", kind: "json" },
      { rel: ".codex/config.toml", fixture: "codex-config.toml", kind: "toml" },
    ],
    hookFile: ".codex/hooks.json",
    layout: "grouped",
    events: {
      SessionStart: ["session-start", "startup|resume|clear|compact", 10],
      UserPromptSubmit: ["prompt", undefined, 10],
      PreToolUse: ["tool", "apply_patch", 10],
      PreCompact: ["compact", undefined, 10],
      SubagentStart: ["subagent-start", "*", 10],
    },
    mcp: { rel: ".codex/config.toml", path: ["mcp_servers", "coffer"] },
    broken: { text: `{\n  "hooks": {\n    "Stop": [\n  }\n}\n`, line: 4 },
  },
  {
    host: "gemini",
    files: [{ rel: ".gemini/settings.json", fixture: "gemini-settings.json", kind: "json" }],
    hookFile: ".gemini/settings.json",
    layout: "grouped",
    events: {
      SessionStart: ["session-start", undefined, 10000],
      BeforeAgent: ["prompt", undefined, 10000],
      AfterTool: ["tool", "read_file|write_file|replace", 10000],
      PreCompress: ["compact", undefined, 10000],
    },
    mcp: { rel: ".gemini/settings.json", path: ["mcpServers", "coffer"] },
    broken: { text: `{\n  // fine\n  "theme": "GitHub",\n}\n`, line: 4 },
  },
  {
    host: "qwen",
    files: [{ rel: ".qwen/settings.json", fixture: "qwen-settings.json", kind: "json" }],
    hookFile: ".qwen/settings.json",
    layout: "grouped",
    events: {
      SessionStart: ["session-start", undefined, 10],
      UserPromptSubmit: ["prompt", undefined, 10],
      PostToolUse: ["tool", undefined, 10],
      PreCompact: ["compact", undefined, 10],
    },
    mcp: { rel: ".qwen/settings.json", path: ["mcpServers", "coffer"] },
    broken: { text: `{\n  // fine\n  "model": {"name": "x"},,\n}\n`, line: 3 },
  },
  {
    host: "cursor",
    files: [
      { rel: ".cursor/hooks.json", fixture: "cursor-hooks.json", kind: "json" },
      { rel: ".cursor/mcp.json", fixture: "cursor-mcp.json", kind: "json" },
    ],
    hookFile: ".cursor/hooks.json",
    layout: "flat",
    events: { sessionStart: ["session-start", undefined, 10] },
    mcp: { rel: ".cursor/mcp.json", path: ["mcpServers", "coffer"] },
    broken: { text: `{\n  "version": 1,\n  "hooks": { "sessionStart": [ { "command": "x" } ] ]\n}\n`, line: 3 },
  },
  {
    host: "windsurf",
    files: [
      { rel: ".codeium/windsurf/hooks.json", fixture: "windsurf-hooks.json", kind: "json" },
      { rel: ".codeium/windsurf/mcp_config.json", fixture: "windsurf-mcp.json", kind: "json" },
    ],
    hookFile: ".codeium/windsurf/hooks.json",
    layout: "flat",
    events: { pre_user_prompt: ["prompt", undefined, undefined] },
    mcp: { rel: ".codeium/windsurf/mcp_config.json", path: ["mcpServers", "coffer"] },
    broken: { text: `{\n\t"hooks": {\n\t\t"pre_user_prompt": [,]\n\t}\n}\n`, line: 3 },
  },
  {
    host: "opencode",
    files: [{ rel: ".config/opencode/opencode.jsonc", fixture: "opencode.jsonc", kind: "json" }],
    hookFile: ".config/opencode/plugins/coffer.js",
    layout: "plugin",
    events: {},
    mcp: { rel: ".config/opencode/opencode.jsonc", path: ["mcp", "coffer"] },
    broken: { text: `{\n  "model": "x",\n  "mcp": {\n}\n`, line: 5 },
  },
  {
    host: "kilo",
    files: [{ rel: ".config/kilo/kilo.jsonc", fixture: "kilo.jsonc", kind: "json" }],
    hookFile: ".config/kilo/plugins/coffer.js",
    layout: "plugin",
    events: {},
    mcp: { rel: ".config/kilo/kilo.jsonc", path: ["mcp", "coffer"] },
    broken: { text: `{\n  "model": "x",\n  "mcp": {\n}\n`, line: 5 },
  },
];

function get(v: any, path: string[]): any {
  return path.reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), v);
}

function auditLines(sb: Sandbox): any[] {
  const file = join(sb.cofferHome, "state", "audit.jsonl");
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
    : [];
}

for (const c of CASES) {
  describe(`link ${c.host}`, () => {
    let sb: Sandbox;
    const p = (rel: string) => join(sb.home, rel);
    const originals = new Map<string, string>();

    beforeAll(() => {
      sb = sandbox(`coffer-link-${c.host}-`);
      for (const f of c.files) {
        originals.set(f.rel, fixture(f.fixture));
        writeFile(p(f.rel), fixture(f.fixture));
      }
    });
    afterAll(() => sb.cleanup());

    test("--dry-run prints a unified diff and writes nothing", () => {
      const r = sb.run(["link", c.host, "--dry-run"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`--- ~/${c.files[0]!.rel}`);
      expect(r.stdout).toMatch(/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@$/m);
      expect(r.stdout).toMatch(/^\+.*coffer/m);
      expect(r.stdout).toContain("nothing was written");
      for (const f of c.files) {
        expect(read(p(f.rel))).toBe(originals.get(f.rel)!);
        expect(existsSync(`${p(f.rel)}.bak`)).toBe(false);
      }
      expect(existsSync(p(c.hookFile)) && !originals.has(c.hookFile)).toBe(false);
      expect(auditLines(sb)).toEqual([]);
    });

    test("link keeps every byte that is not Coffer's and adds Coffer's entries", () => {
      const r = sb.run(["link", c.host]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Linked");
      for (const f of c.files) {
        const before = originals.get(f.rel)!;
        const after = read(p(f.rel))!;
        expect(after).not.toBe(before);
        const added = expectOnlyAdditions(before, after);
        expect(added.join("\n")).toContain(BIN);
        expect(withoutCoffer(parseAny(after, f.kind), parseAny(before, f.kind))).toEqual(parseAny(before, f.kind));
        expect(read(`${p(f.rel)}.bak`)).toBe(before);
      }
      // MCP registration: the absolute binary + serve --stdio.
      const mcpFile = c.files.find((f) => f.rel === c.mcp.rel)!;
      const entry = get(parseAny(read(p(c.mcp.rel))!, mcpFile.kind), c.mcp.path);
      const argv = Array.isArray(entry.command) ? entry.command : [entry.command, ...entry.args];
      expect(argv).toEqual([BIN, "serve", "--stdio"]);
    });

    test("Coffer's hook entries carry the host's events, matchers and timeouts", () => {
      if (c.layout === "plugin") {
        const plugin = read(p(c.hookFile))!;
        expect(plugin.split("\n")[0]).toContain("coffer-managed");
        expect(plugin).toContain(`const COFFER = ${JSON.stringify(BIN)};`);
        return;
      }
      const doc = parseAny(read(p(c.hookFile))!, "json");
      for (const [native, [event, matcher, timeout]] of Object.entries(c.events)) {
        const list: any[] = doc.hooks[native];
        const command = `${BIN} hook ${event} --agent ${c.host}`;
        const ours =
          c.layout === "grouped"
            ? list.filter((g) => g.hooks?.some((h: any) => h.command === command))
            : list.filter((h) => h.command === command);
        expect(ours.length).toBe(1);
        const entry = c.layout === "grouped" ? ours[0].hooks[0] : ours[0];
        if (c.layout === "grouped") {
          expect(ours[0].matcher).toBe(matcher);
          expect(ours[0].hooks.length).toBe(1);
          expect(entry.type).toBe("command");
        }
        expect(entry.timeout).toBe(timeout);
      }
      const nativeNames = Object.keys(c.events);
      const cofferEvents = Object.entries(doc.hooks)
        .filter(([, list]: any) => JSON.stringify(list).includes(`${BIN} hook`))
        .map(([e]) => e);
      expect(cofferEvents.sort()).toEqual(nativeNames.sort());
    });

    test("every change is audited (never content)", () => {
      const events = auditLines(sb).map((a) => a.event);
      expect(events).toContain("hook_installed");
      expect(events).toContain("mcp_registered");
      for (const a of auditLines(sb)) expect(a.host).toBe(c.host);
    });

    test("a second link leaves every file byte-identical", () => {
      const snapshot = new Map([...c.files.map((f) => f.rel), c.hookFile].map((rel) => [rel, read(p(rel))]));
      const bakBefore = c.files.map((f) => read(`${p(f.rel)}.bak`));
      const r = sb.run(["link", c.host]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("already linked");
      for (const [rel, text] of snapshot) expect(read(p(rel))).toBe(text);
      expect(c.files.map((f) => read(`${p(f.rel)}.bak`))).toEqual(bakBefore);
    });

    test("unlink --dry-run shows the removal and writes nothing", () => {
      const linked = new Map([...c.files.map((f) => f.rel), c.hookFile].map((rel) => [rel, read(p(rel))]));
      const r = sb.run(["unlink", c.host, "--dry-run"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^-.*coffer/m);
      expect(r.stdout).toContain("nothing was written");
      for (const [rel, text] of linked) expect(read(p(rel))).toBe(text);
    });

    test("unlink restores the original bytes; .bak holds the linked version", () => {
      const linked = new Map(c.files.map((f) => [f.rel, read(p(f.rel))]));
      const r = sb.run(["unlink", c.host]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      for (const f of c.files) {
        expect(read(p(f.rel))).toBe(originals.get(f.rel)!);
        expect(read(`${p(f.rel)}.bak`)).toBe(linked.get(f.rel)!);
      }
      if (!originals.has(c.hookFile)) expect(existsSync(p(c.hookFile))).toBe(false);
      expect(auditLines(sb).map((a) => a.event)).toContain("hook_uninstalled");
      expect(auditLines(sb).map((a) => a.event)).toContain("mcp_unregistered");
      // Nothing left behind but the .bak files.
      const again = sb.run(["unlink", c.host]);
      expect(again.stdout).toContain("nothing changed");
    });

    test("an unparsable config is left untouched: exit 1 naming the file and line", () => {
      const hookFile = c.layout === "plugin" ? c.mcp.rel : c.hookFile;
      writeFile(p(hookFile), c.broken.text);
      const others = c.files.filter((f) => f.rel !== hookFile).map((f) => [f.rel, read(p(f.rel))] as const);
      const r = sb.run(["link", c.host]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`~/${hookFile}:${c.broken.line}:`);
      expect(r.stderr).toMatch(/left it untouched/);
      expect(r.stderr).toMatch(/Fix that line by hand/);
      expect(read(p(hookFile))).toBe(c.broken.text);
      for (const [rel, text] of others) expect(read(p(rel))).toBe(text);
      if (c.layout === "plugin") expect(existsSync(p(c.hookFile))).toBe(false);
      // Restore for any later test.
      writeFile(p(hookFile), originals.get(hookFile) ?? "");
    });
  });
}

describe("link details", () => {
  let sb: Sandbox;
  beforeAll(() => (sb = sandbox("coffer-link-details-")));
  afterAll(() => sb.cleanup());

  test("re-link replaces stale Coffer entries on every event, keeps the user's neighbours", () => {
    const file = join(sb.home, ".claude", "settings.json");
    writeFile(
      file,
      `${JSON.stringify(
        {
          hooks: {
            UserPromptSubmit: [
              {
                hooks: [
                  { type: "command", command: "/old/place/coffer hook prompt --agent claude", timeout: 10 },
                  { type: "command", command: "~/bin/mine.sh" },
                ],
              },
            ],
            InstructionsLoaded: [
              { hooks: [{ type: "command", command: "'/opt/old tools/coffer' hook tool --agent claude" }] },
            ],
            SessionStart: [
              {
                matcher: "startup",
                hooks: [
                  { type: "command", command: "/usr/local/bin/coffer hook session-start --agent claude", timeout: 60 },
                ],
              },
            ],
          },
        },
        null,
        2,
      )}\n`,
    );
    const r = sb.run(["link", "claude", "--no-mcp"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(read(file)!);
    expect(doc.hooks.InstructionsLoaded).toBeUndefined();
    expect(doc.hooks.UserPromptSubmit[0].hooks).toEqual([{ type: "command", command: "~/bin/mine.sh" }]);
    expect(doc.hooks.UserPromptSubmit[1].hooks[0].command).toBe(`${BIN} hook prompt --agent claude`);
    expect(doc.hooks.SessionStart).toEqual([
      {
        matcher: "startup|resume|clear|compact",
        hooks: [{ type: "command", command: `${BIN} hook session-start --agent claude`, timeout: 10 }],
      },
    ]);
    expect(JSON.stringify(doc)).not.toContain("/old/");
    expect(existsSync(join(sb.home, ".claude.json"))).toBe(false); // --no-mcp
    // unlink leaves the user's hook and the key the user wrote.
    expect(sb.run(["unlink", "claude"]).code).toBe(0);
    const after = JSON.parse(read(file)!);
    expect(after).toEqual({
      hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "~/bin/mine.sh" }] }] },
    });
  });

  test("containers the user had empty before (mcpServers: {}, an empty event list) come back exactly", () => {
    const claudeJson = join(sb.home, ".claude.json");
    const settings = join(sb.home, ".claude", "settings.json");
    const a = `{\n  "numStartups": 3,\n  "mcpServers": {},\n  "userID": "x"\n}\n`;
    const b = `{\n  "hooks": {\n    "PreCompact": []\n  },\n  "model": "opus"\n}\n`;
    writeFile(claudeJson, a);
    const before = read(settings);
    writeFile(settings, b);
    expect(sb.run(["link", "claude"]).code).toBe(0);
    expect(JSON.parse(read(claudeJson)!).mcpServers.coffer.command).toBe(BIN);
    expect(JSON.parse(read(settings)!).hooks.PreCompact.length).toBe(1);
    expect(sb.run(["unlink", "claude"]).code).toBe(0);
    expect(read(claudeJson)).toBe(a);
    expect(read(settings)).toBe(b);
    writeFile(settings, before ?? "{}\n");
  });

  test("--session-end: Claude gets SessionEnd (timeout 5); plain re-link keeps it; --no-session-end removes it", () => {
    const file = join(sb.home, ".claude", "settings.json");
    expect(sb.run(["link", "claude", "--session-end", "--no-mcp"]).code).toBe(0);
    const se = () => JSON.parse(read(file)!).hooks.SessionEnd;
    expect(se()).toEqual([
      { hooks: [{ type: "command", command: `${BIN} hook session-end --agent claude`, timeout: 5 }] },
    ]);
    const again = sb.run(["link", "claude", "--no-mcp"]);
    expect(again.stdout).toContain("already linked");
    expect(again.stdout).toContain("Kept the SessionEnd hook");
    expect(se()).toBeDefined();
    expect(sb.run(["link", "claude", "--no-session-end", "--no-mcp"]).code).toBe(0);
    expect(se()).toBeUndefined();
    sb.run(["unlink", "claude"]);
  });

  test("--session-end for Codex turns on the sweep in Coffer's config and says so; unlink restores it", () => {
    const config = join(sb.cofferHome, "config.toml");
    writeFile(config, `# my coffer config\n[hook]\nread = "auto"\n`);
    const r = sb.run(["link", "codex", "--session-end"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/no SessionEnd event.*sweep/);
    expect(read(config)).toBe(`# my coffer config\n[hook]\nread = "auto"\n\n[distill]\nsweep = true\n`);
    expect(sb.run(["config", "get", "distill.sweep"]).stdout.trim()).toBe("true");
    const hooks = JSON.parse(read(join(sb.home, ".codex", "hooks.json"))!);
    expect(hooks.hooks.SessionEnd).toBeUndefined();
    expect(sb.run(["unlink", "codex"]).code).toBe(0);
    expect(read(config)).toBe(`# my coffer config\n[hook]\nread = "auto"\n`);
  });

  test("Codex link prints the /hooks trust step", () => {
    const r = sb.run(["link", "codex", "--no-mcp"]);
    expect(r.stdout).toContain("/hooks");
    expect(r.stdout).toMatch(/trust/);
    sb.run(["unlink", "codex"]);
  });

  test("--project writes the repository's files; outside a repository it refuses", () => {
    const repo = sb.repo("proj", "git@github.com:me/proj.git");
    const userFiles = [join(sb.home, ".claude", "settings.json"), join(sb.home, ".claude.json")].map(
      (f) => [f, read(f)] as const,
    );
    const r = sb.run(["link", "claude", "--project"], { cwd: join(repo) });
    expect(r.code).toBe(0);
    expect(JSON.parse(read(join(repo, ".claude", "settings.json"))!).hooks.SessionStart).toBeDefined();
    expect(JSON.parse(read(join(repo, ".mcp.json"))!).mcpServers.coffer.command).toBe("coffer"); // portable
    for (const [f, text] of userFiles) expect(read(f)).toBe(text);
    expect(sb.run(["unlink", "claude", "--project"], { cwd: repo }).code).toBe(0);
    expect(existsSync(join(repo, ".claude", "settings.json"))).toBe(false);
    expect(existsSync(join(repo, ".mcp.json"))).toBe(false);
    const out = sb.run(["link", "claude", "--project"], { cwd: sb.root });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("not inside one");
  });

  test("Windsurf --project: hooks in .windsurf/hooks.json, MCP stays a user-level step (said so)", () => {
    const repo = sb.repo("ws");
    const r = sb.run(["link", "windsurf", "--project"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(JSON.parse(read(join(repo, ".windsurf", "hooks.json"))!).hooks.pre_user_prompt[0]).toEqual({
      command: "coffer hook prompt --agent windsurf", // a repository's config names coffer from PATH
      show_output: false,
    });
    expect(r.stdout).toContain("mcp_config.json");
    sb.run(["unlink", "windsurf", "--project"], { cwd: repo });
  });

  test("OpenCode: a person-written coffer.js (no marker) is never overwritten or removed", () => {
    const file = join(sb.home, ".config", "opencode", "plugins", "coffer.js");
    const mine = `// my own plugin, hands off\nexport const Mine = async () => ({});\n`;
    writeFile(file, mine);
    const r = sb.run(["link", "opencode"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("was not written by Coffer");
    expect(read(file)).toBe(mine);
    expect(existsSync(join(sb.home, ".config", "opencode", "opencode.json"))).toBe(false);
    const u = sb.run(["unlink", "opencode"]);
    expect(u.code).toBe(0);
    expect(read(file)).toBe(mine);
  });

  test("a symlinked config stays a symlink; the real file is edited", () => {
    const real = join(sb.root, "dotfiles", "cursor-hooks.json");
    writeFile(real, fixture("cursor-hooks.json"));
    const link = join(sb.home, ".cursor", "hooks.json");
    Bun.spawnSync(["mkdir", "-p", join(sb.home, ".cursor")]);
    Bun.spawnSync(["ln", "-s", real, link]);
    expect(sb.run(["link", "cursor", "--no-mcp"]).code).toBe(0);
    expect(Bun.spawnSync(["test", "-L", link]).exitCode).toBe(0);
    expect(read(real)).toContain(`${BIN} hook session-start --agent cursor`);
    expect(sb.run(["unlink", "cursor"]).code).toBe(0);
    expect(read(real)).toBe(fixture("cursor-hooks.json"));
  });

  test("file mode is kept (a 0600 ~/.claude.json stays 0600)", () => {
    const file = join(sb.home, ".claude.json");
    writeFile(file, fixture("claude.json"));
    Bun.spawnSync(["chmod", "600", file]);
    expect(sb.run(["link", "claude"]).code).toBe(0);
    const mode = (p: string) => Bun.spawnSync(["stat", "-c", "%a", p]).stdout.toString().trim();
    expect(mode(file)).toBe("600");
    expect(mode(`${file}.bak`)).toBe("600");
    sb.run(["unlink", "claude"]);
    expect(read(file)).toBe(fixture("claude.json"));
  });

  test("usage errors: unknown host, no host", () => {
    const a = sb.run(["link", "vim"]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("unknown host");
    const b = sb.run(["link"]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("claude, codex, gemini, cursor, windsurf, opencode");
  });

  test("--json", () => {
    const r = sb.run(["link", "gemini", "--dry-run", "--json"]);
    expect(r.code).toBe(0);
    const j = r.json();
    expect(j.host).toBe("gemini");
    expect(j.dry_run).toBe(true);
    expect(j.files[0].status).toBe("created");
    expect(j.diff).toContain("+++ ~/.gemini/settings.json");
  });

  test("no stray temp files are left next to configs", () => {
    for (const dir of [join(sb.home, ".claude"), join(sb.home, ".cursor")]) {
      if (existsSync(dir)) expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    }
  });
});

describe("MCP entries the user adjusted", () => {
  let sb: Sandbox;
  beforeAll(() => (sb = sandbox("coffer-link-mcp-")));
  afterAll(() => sb.cleanup());

  test("a re-link updates only Coffer's keys: trust, env and timeouts the user added stay", () => {
    const file = join(sb.home, ".gemini", "settings.json");
    expect(sb.run(["link", "gemini"]).code).toBe(0);
    const doc = JSON.parse(read(file)!);
    doc.mcpServers.coffer.trust = true;
    doc.mcpServers.coffer.command = "/old/place/coffer";
    doc.mcpServers.coffer.timeout = 30000;
    writeFile(file, `${JSON.stringify(doc, null, 2)}\n`);
    const r = sb.run(["link", "gemini"]);
    expect(r.stdout).toContain(`MCP server "coffer" updated (command)`);
    expect(JSON.parse(read(file)!).mcpServers.coffer).toEqual({
      command: BIN,
      args: ["serve", "--stdio"],
      trust: true,
      timeout: 30000,
    });
    expect(sb.run(["link", "gemini"]).stdout).toContain("already linked");
  });

  test("an MCP entry named coffer that runs something else is never taken over", () => {
    const file = join(sb.home, ".cursor", "mcp.json");
    const foreign = `{\n  "mcpServers": {\n    "coffer": { "command": "npx", "args": ["-y", "coffer-mcp"] }\n  }\n}\n`;
    writeFile(file, foreign);
    const r = sb.run(["link", "cursor"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("does not run a coffer binary");
    expect(read(file)).toBe(foreign);
    const toml = join(sb.home, ".codex", "config.toml");
    const mine = `[mcp_servers.coffer]\ncommand = "uvx"\nargs = ["coffer-server"]\n`;
    writeFile(toml, mine);
    expect(sb.run(["link", "codex"]).stdout).toContain("does not run a coffer binary");
    expect(read(toml)).toBe(mine);
    sb.run(["unlink", "codex"]);
    sb.run(["unlink", "cursor"]);
    expect(read(toml)).toBe(mine);
    expect(read(file)).toBe(foreign);
  });

  test("Claude: an entry the user wrote (env filled in) is left alone; one that is not a coffer binary is left by unlink", () => {
    const file = join(sb.home, ".claude.json");
    const mine = `{\n  "mcpServers": {\n    "coffer": { "type": "stdio", "command": "/old/coffer", "args": ["serve", "--stdio"], "env": { "COFFER_HOME": "/data/coffer" } }\n  }\n}\n`;
    writeFile(file, mine);
    const l = sb.run(["link", "claude"]);
    expect(l.code).toBe(0);
    expect(l.stdout).toContain("Coffer did not write it");
    expect(read(file)).toBe(mine);
    sb.run(["unlink", "claude"]);
    expect(read(file)).toBe(mine);
    const foreign = `{\n  "mcpServers": {\n    "coffer": { "command": "npx", "args": ["coffer-mcp"] }\n  }\n}\n`;
    writeFile(file, foreign);
    const u = sb.run(["unlink", "claude"]);
    expect(u.code).toBe(0);
    expect(read(file)).toBe(foreign);
  });
});

test("Gemini settings with non-list keys under hooks (enabled, disabled) link and unlink around them", () => {
  const sb = sandbox("coffer-link-gemini-keys-");
  try {
    const file = join(sb.home, ".gemini", "settings.json");
    const original = `{\n  "hooks": {\n    "enabled": true,\n    "disabled": ["audit"]\n  }\n}\n`;
    writeFile(file, original);
    expect(sb.run(["link", "gemini", "--no-mcp"]).code).toBe(0);
    expect(JSON.parse(read(file)!).hooks.enabled).toBe(true);
    expect(sb.run(["unlink", "gemini"]).code).toBe(0);
    expect(read(file)).toBe(original);
  } finally {
    sb.cleanup();
  }
});
