/**
 * Antigravity CLI (not run here: closed source, a curl installer) through the compiled binary,
 * against the files its documentation shows: `coffer link antigravity` adds one named hook,
 * `coffer`, to `~/.gemini/config/hooks.json` (two PreInvocation handlers) and an MCP entry to
 * `~/.gemini/config/mcp_config.json`, keeps every other byte and the user's own named hooks,
 * `--dry-run` writes nothing, unlink gives both files back byte for byte (`.bak` holds the linked
 * version). Gemini CLI's `~/.gemini/settings.json` is never touched, and linking or unlinking
 * either host in either order leaves the other's link as it was. Coffer's named hook uses only
 * the keys agy knows (agy drops a hook with any other); doctor says when it does not.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findManaged, syncManagedHooks } from "../../src/link/hooks-json";
import { JsonDoc } from "../../src/link/json-edit";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
afterEach(() => sb?.cleanup());

/** A user's hooks.json as agy's documentation shows one: named hooks, tool events grouped, invocation events flat. */
const HOOKS = `{
  "my-linter-hook": {
    "PostToolUse": [
      {
        "matcher": "run_command",
        "hooks": [
          {
            "type": "command",
            "command": "./scripts/lint.sh",
            "timeout": 10
          }
        ]
      }
    ]
  },
  "safety-gate": {
    "enabled": false,
    "PreToolUse": [{ "matcher": "run_command", "hooks": [{ "command": "./scripts/safety-check.sh" }] }]
  },
  "reminder": {
    "PreInvocation": [
      {
        "type": "command",
        "command": "./scripts/reminder.sh"
      }
    ]
  }
}
`;

const MCP = `{
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {} }
  }
}
`;

/** Gemini CLI's settings, which share ~/.gemini with agy. */
const GEMINI = `{
  // Gemini CLI
  "theme": "GitHub",
  "mcpServers": {}
}
`;

/** The keys agy knows in a named hook, and in its handlers (antigravity.google/docs/hooks). */
const HOOK_KEYS = ["enabled", "PreToolUse", "PostToolUse", "PreInvocation", "PostInvocation", "Stop"];
const HANDLER_KEYS = ["type", "command", "timeout"];
const GROUP_KEYS = ["matcher", "hooks"];

const cfg = (s: Sandbox, name: string) => join(s.home, ".gemini", "config", name);
const settings = (s: Sandbox) => join(s.home, ".gemini", "settings.json");

function setup(): Sandbox {
  const s = sandbox("coffer-link-agy-");
  mkdirSync(join(s.home, ".gemini", "config"), { recursive: true });
  mkdirSync(join(s.home, ".gemini", "antigravity-cli"), { recursive: true });
  writeFileSync(cfg(s, "hooks.json"), HOOKS);
  writeFileSync(cfg(s, "mcp_config.json"), MCP);
  writeFileSync(settings(s), GEMINI);
  return s;
}

/** Every key of Coffer's named hook, its groups and its handlers is one agy knows. */
function expectKnownKeys(entry: Record<string, unknown>): void {
  for (const [key, list] of Object.entries(entry)) {
    expect(HOOK_KEYS).toContain(key);
    if (key === "enabled") continue;
    expect(Array.isArray(list)).toBe(true);
    for (const item of list as Record<string, unknown>[]) {
      const handlers = Array.isArray(item.hooks) ? (item.hooks as Record<string, unknown>[]) : [item];
      if (item.hooks) for (const k of Object.keys(item)) expect(GROUP_KEYS).toContain(k);
      for (const h of handlers) for (const k of Object.keys(h)) expect(HANDLER_KEYS).toContain(k);
    }
  }
}

describe("coffer link antigravity", () => {
  test("one named hook and an MCP entry; every other byte kept; unlink gives both files back", () => {
    sb = setup();
    const r = sb.run(["link", "antigravity"]);
    expect(r.code).toBe(0);
    const hooks = JSON.parse(readFileSync(cfg(sb, "hooks.json"), "utf8"));
    expect(Object.keys(hooks)).toEqual(["my-linter-hook", "safety-gate", "reminder", "coffer"]);
    expect(hooks.coffer).toEqual({
      PreInvocation: [
        { type: "command", command: `${BIN} hook session-start --agent antigravity`, timeout: 10 },
        { type: "command", command: `${BIN} hook prompt --agent antigravity`, timeout: 10 },
      ],
    });
    expectKnownKeys(hooks.coffer);
    // The user's hooks are byte for byte as they were: only Coffer's member was added.
    const linked = readFileSync(cfg(sb, "hooks.json"), "utf8");
    expect(linked.startsWith(HOOKS.slice(0, HOOKS.lastIndexOf("\n}")))).toBe(true);
    expect(JSON.parse(readFileSync(cfg(sb, "mcp_config.json"), "utf8")).mcpServers.coffer).toEqual({
      command: BIN,
      args: ["serve", "--stdio"],
    });
    expect(readFileSync(settings(sb), "utf8")).toBe(GEMINI);

    const host = sb
      .run(["doctor", "--json"])
      .json()
      .hosts.find((h: { host: string }) => h.host === "antigravity");
    expect(host.status).toBe("linked");
    expect(host.problems).toEqual([]);
    expect(host.mcp).toMatchObject({ registered: true, binary: BIN });

    expect(sb.run(["link", "antigravity"]).stdout).toContain("already linked");
    expect(readFileSync(cfg(sb, "hooks.json"), "utf8")).toBe(linked);
    expect(sb.run(["unlink", "antigravity"]).code).toBe(0);
    expect(readFileSync(cfg(sb, "hooks.json"), "utf8")).toBe(HOOKS);
    expect(readFileSync(cfg(sb, "mcp_config.json"), "utf8")).toBe(MCP);
    expect(readFileSync(`${cfg(sb, "hooks.json")}.bak`, "utf8")).toBe(linked);
    expect(readFileSync(settings(sb), "utf8")).toBe(GEMINI);
  });

  test("--dry-run prints the diff and writes nothing", () => {
    sb = setup();
    const r = sb.run(["link", "antigravity", "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('+  "coffer": {');
    expect(r.stdout).toContain("hook prompt --agent antigravity");
    expect(readFileSync(cfg(sb, "hooks.json"), "utf8")).toBe(HOOKS);
    expect(readFileSync(cfg(sb, "mcp_config.json"), "utf8")).toBe(MCP);
    expect(existsSync(`${cfg(sb, "hooks.json")}.bak`)).toBe(false);
    expect(sb.run(["link", "antigravity"]).code).toBe(0);
    const linked = readFileSync(cfg(sb, "hooks.json"), "utf8");
    expect(sb.run(["unlink", "antigravity", "--dry-run"]).stdout).toContain('-  "coffer": {');
    expect(readFileSync(cfg(sb, "hooks.json"), "utf8")).toBe(linked);
  });

  test("no files yet: link --all finds agy's folder, creates both files; unlink removes them", () => {
    sb = sandbox("coffer-link-agy-");
    mkdirSync(join(sb.home, ".gemini", "antigravity"), { recursive: true });
    const r = sb.run(["link", "--all"]);
    expect(r.stdout).toContain("Linked Antigravity CLI (~/.gemini/antigravity)");
    // Gemini CLI counts as installed too (~/.gemini): its link writes settings.json, agy's its own files.
    expect(JSON.parse(readFileSync(cfg(sb, "hooks.json"), "utf8")).coffer.PreInvocation).toHaveLength(2);
    expect(sb.run(["unlink", "antigravity"]).code).toBe(0);
    expect(existsSync(cfg(sb, "hooks.json"))).toBe(false);
    expect(existsSync(cfg(sb, "mcp_config.json"))).toBe(false);
  });

  test("--project writes .agents/hooks.json and .agents/mcp_config.json in the repository", () => {
    sb = sandbox("coffer-link-agy-");
    const repo = sb.repo("app");
    expect(sb.run(["link", "antigravity", "--project"], { cwd: repo }).code).toBe(0);
    const hooks = JSON.parse(readFileSync(join(repo, ".agents", "hooks.json"), "utf8"));
    expect(hooks.coffer.PreInvocation[1].command).toBe("coffer hook prompt --agent antigravity");
    expect(JSON.parse(readFileSync(join(repo, ".agents", "mcp_config.json"), "utf8")).mcpServers.coffer).toBeDefined();
    expect(sb.run(["unlink", "antigravity", "--project"], { cwd: repo }).code).toBe(0);
    expect(existsSync(join(repo, ".agents", "hooks.json"))).toBe(false);
  });

  for (const order of [
    ["antigravity", "gemini"],
    ["gemini", "antigravity"],
  ]) {
    test(`Gemini CLI and Antigravity side by side: link ${order.join(" then ")}, unlink in either order`, () => {
      sb = setup();
      for (const h of order) expect(sb.run(["link", h]).code).toBe(0);
      const geminiLinked = readFileSync(settings(sb), "utf8");
      const agyHooks = readFileSync(cfg(sb, "hooks.json"), "utf8");
      const agyMcp = readFileSync(cfg(sb, "mcp_config.json"), "utf8");
      // Each host's entries live in its own files only.
      expect(geminiLinked).toContain("--agent gemini");
      expect(geminiLinked).not.toContain("antigravity");
      expect(agyHooks).not.toContain("--agent gemini");
      const doctor = sb.run(["doctor", "--json"]).json();
      for (const h of ["gemini", "antigravity"])
        expect(doctor.hosts.find((x: { host: string }) => x.host === h).status).toBe("linked");

      // Unlinking one leaves the other's files exactly as its link wrote them.
      const [first, second] = order[0] === "gemini" ? ["gemini", "antigravity"] : ["antigravity", "gemini"];
      expect(sb.run(["unlink", first!]).code).toBe(0);
      if (first === "gemini") {
        expect(readFileSync(settings(sb), "utf8")).toBe(GEMINI);
        expect(readFileSync(cfg(sb, "hooks.json"), "utf8")).toBe(agyHooks);
        expect(readFileSync(cfg(sb, "mcp_config.json"), "utf8")).toBe(agyMcp);
      } else {
        expect(readFileSync(settings(sb), "utf8")).toBe(geminiLinked);
        expect(readFileSync(cfg(sb, "hooks.json"), "utf8")).toBe(HOOKS);
      }
      expect(sb.run(["unlink", second!]).code).toBe(0);
      expect(readFileSync(settings(sb), "utf8")).toBe(GEMINI);
      expect(readFileSync(cfg(sb, "hooks.json"), "utf8")).toBe(HOOKS);
      expect(readFileSync(cfg(sb, "mcp_config.json"), "utf8")).toBe(MCP);
    });
  }

  test("a hooks.json agy could not parse is left alone; a key agy does not know in Coffer's hook is a doctor problem", () => {
    sb = setup();
    const broken = `{\n  "reminder": {\n    "PreInvocation": [\n  }\n}\n`;
    writeFileSync(cfg(sb, "hooks.json"), broken);
    const r = sb.run(["link", "antigravity"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("hooks.json:4");
    expect(readFileSync(cfg(sb, "hooks.json"), "utf8")).toBe(broken);

    writeFileSync(cfg(sb, "hooks.json"), HOOKS);
    expect(sb.run(["link", "antigravity"]).code).toBe(0);
    const hooks = JSON.parse(readFileSync(cfg(sb, "hooks.json"), "utf8"));
    hooks.coffer.description = "my note";
    hooks.coffer.enabled = false;
    writeFileSync(cfg(sb, "hooks.json"), `${JSON.stringify(hooks, null, 2)}\n`);
    const host = sb
      .run(["doctor", "--json"])
      .json()
      .hosts.find((h: { host: string }) => h.host === "antigravity");
    const messages = host.problems.map((p: { message: string }) => p.message).join("\n");
    expect(messages).toContain("keys agy does not know (description)");
    expect(messages).toContain("switched off");
  });
});

describe("the named-hook map (hooks-json, mixed layout)", () => {
  const bin = "/opt/coffer/bin/coffer";
  const want = new Map<string, Record<string, unknown>[]>([
    [
      "PreInvocation",
      [
        { type: "command", command: `${bin} hook session-start --agent antigravity`, timeout: 10 },
        { type: "command", command: `${bin} hook prompt --agent antigravity`, timeout: 10 },
      ],
    ],
    [
      "PostToolUse",
      [{ matcher: "view_file", hooks: [{ type: "command", command: `${bin} hook tool --agent antigravity` }] }],
    ],
  ]);

  test("flat and grouped events side by side under one name: added, kept, removed byte-exact", () => {
    const doc = new JsonDoc(HOOKS, "hooks.json", "json");
    const added = syncManagedHooks(doc, "mixed", want, undefined, ["coffer"]);
    expect(added.added.sort()).toEqual(["PostToolUse", "PreInvocation"]);
    const linked = doc.text;
    expect(JSON.parse(linked).coffer).toEqual(Object.fromEntries(want));
    expect(
      findManaged(doc, "mixed", ["coffer"])
        .map((m) => `${m.event}:${m.path.join(".")}`)
        .sort(),
    ).toEqual([
      "PostToolUse:coffer.PostToolUse.0.hooks.0",
      "PreInvocation:coffer.PreInvocation.0",
      "PreInvocation:coffer.PreInvocation.1",
    ]);
    // The user's hooks named otherwise are never Coffer's, whatever their commands.
    expect(findManaged(doc, "mixed", ["reminder"])).toEqual([]);
    expect(syncManagedHooks(doc, "mixed", want, undefined, ["coffer"]).kept.sort()).toEqual([
      "PostToolUse",
      "PreInvocation",
    ]);
    expect(doc.text).toBe(linked);
    // One handler changed: the event is rewritten, the other kept.
    const changed = new Map(want);
    changed.set("PreInvocation", [want.get("PreInvocation")![1]!]);
    const res = syncManagedHooks(doc, "mixed", changed, undefined, ["coffer"]);
    expect(res.kept).toEqual(["PostToolUse"]);
    expect(JSON.parse(doc.text).coffer.PreInvocation).toHaveLength(1);
    syncManagedHooks(doc, "mixed", new Map(), undefined, ["coffer"]);
    expect(doc.text).toBe(HOOKS);
  });
});
