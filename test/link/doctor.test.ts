/** `coffer doctor`: per-host link state, binary paths, MCP, native memory, Codex trust, store/index health. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { copyFileSync, linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox, writeFile } from "../kit";
import { read } from "./util";

let sb: Sandbox;
beforeEach(() => (sb = sandbox("coffer-doctor-")));
afterEach(() => sb.cleanup());

const doctor = (cwd?: string) => {
  const r = sb.run(["doctor", "--json"], cwd ? { cwd } : {});
  return { code: r.code, report: r.json(), stderr: r.stderr };
};
const host = (report: any, name: string, scope = "user") =>
  report.hosts.find((h: any) => h.host === name && h.scope === scope);

test("nothing linked: no problems, every host says how to link it", () => {
  const r = sb.run(["doctor"]);
  expect(r.code).toBe(0);
  for (const h of ["claude", "codex", "gemini", "cursor", "windsurf", "opencode"])
    expect(r.stdout).toContain(`${h}: not linked (coffer link ${h})`);
  expect(r.stdout).toContain("No problems found.");
  const { report } = doctor();
  expect(report.ok).toBe(true);
  expect(report.binary).toBe(BIN);
});

test("linked hosts are reported with their files, MCP and native memory; Codex's untrusted hooks are a warning", () => {
  for (const h of ["claude", "codex", "gemini", "cursor", "windsurf", "opencode"])
    expect(sb.run(["link", h]).code).toBe(0);
  const { code, report } = doctor();
  expect(code).toBe(0);
  for (const h of ["claude", "codex", "gemini", "cursor", "windsurf", "opencode"]) {
    const r = host(report, h);
    expect(r.status).toBe("linked");
    expect(r.mcp.registered).toBe(true);
    expect(r.problems).toEqual([]);
    expect(new Set(r.binaries)).toEqual(new Set([BIN]));
  }
  expect(host(report, "claude").native_memory).toEqual({ setting: "keep", host_value: "default (on)" });
  // Read from Codex's own trust records (config.toml [hooks.state]): none trusted yet, just linked.
  expect(host(report, "codex").warnings[0].message).toContain("Codex will not run 5 of Coffer's 5 hooks");
  const text = sb.run(["doctor"]).stdout;
  expect(text).toContain("✓ claude: linked");
  expect(text).toContain("fix: start codex, type /hooks, and trust (and enable) the Coffer entries");
});

test("a hook pointing at a binary that no longer exists is a problem with its fix", () => {
  sb.run(["link", "claude", "--no-mcp"]);
  const file = join(sb.home, ".claude", "settings.json");
  writeFileSync(file, read(file)!.replaceAll(BIN, "/opt/gone/coffer"));
  const { code, report } = doctor();
  expect(code).toBe(1);
  const p = report.problems.find((x: any) => x.where === "claude");
  expect(p.message).toContain("/opt/gone/coffer, which does not exist");
  expect(p.fix).toBe("coffer link claude");
  const text = sb.run(["doctor"]);
  expect(text.code).toBe(1);
  expect(text.stdout).toContain("fix: coffer link claude");
  // The fix fixes it.
  expect(sb.run(["link", "claude", "--no-mcp"]).code).toBe(0);
  expect(doctor().code).toBe(0);
});

test("another coffer binary than this one is reported", () => {
  const other = join(sb.root, "other", "coffer");
  mkdirSync(join(sb.root, "other"));
  try {
    linkSync(BIN, other); // a second name for the same bytes: still "another binary" by path
  } catch {
    copyFileSync(BIN, other);
    Bun.spawnSync(["chmod", "+x", other]);
  }
  expect(Bun.spawnSync([other, "link", "cursor", "--no-mcp"], { env: sb.env, cwd: sb.home }).exitCode).toBe(0);
  const { report } = doctor();
  expect(host(report, "cursor").problems[0].message).toContain(`${other}, not this binary`);
});

test("missing events and out-of-date entries are problems", () => {
  sb.run(["link", "gemini", "--no-mcp"]);
  const file = join(sb.home, ".gemini", "settings.json");
  const doc = JSON.parse(read(file)!);
  delete doc.hooks.PreCompress;
  doc.hooks.AfterTool[0].matcher = "read_file";
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const { report } = doctor();
  const g = host(report, "gemini");
  expect(g.status).toBe("partial");
  expect(g.problems.map((p: any) => p.message).join("\n")).toContain("hooks missing for PreCompress");
  sb.run(["link", "gemini", "--no-mcp"]);
  const doc2 = JSON.parse(read(file)!);
  doc2.hooks.AfterTool[0].matcher = "read_file";
  writeFileSync(file, JSON.stringify(doc2, null, 2));
  expect(host(doctor().report, "gemini").problems[0].message).toContain("out of date");
});

test("native_memory off but the host still remembers natively", () => {
  sb.run(["link", "claude", "--no-mcp"]);
  sb.run(["config", "set", "native_memory.claude", "off"]);
  const { report } = doctor();
  const p = host(report, "claude").problems[0];
  expect(p.message).toContain(`native_memory.claude = "off", but autoMemoryEnabled is default (on)`);
  expect(p.fix).toBe("coffer link claude");
  sb.run(["link", "claude", "--no-mcp"]);
  expect(host(doctor().report, "claude").native_memory.host_value).toBe("false");
});

test("Codex hooks switched off in config.toml", () => {
  sb.run(["link", "codex"]);
  const cfg = join(sb.home, ".codex", "config.toml");
  writeFileSync(cfg, `[features]\nhooks = false\n\n${read(cfg)!}`);
  const p = host(doctor().report, "codex").problems[0];
  expect(p.message).toContain("Codex hooks are switched off");
});

test("an unreadable hook file is reported, not crashed on", () => {
  writeFile(join(sb.home, ".cursor", "hooks.json"), `{ "version": 1, `);
  const { code, report } = doctor();
  expect(code).toBe(1);
  const c = host(report, "cursor");
  expect(c.status).toBe("unreadable");
  expect(c.problems[0].message).toContain("~/.cursor/hooks.json:1:");
});

test("project-level links are reported from inside the repository", () => {
  const repo = sb.repo("p");
  sb.run(["link", "codex", "--project"], { cwd: repo });
  const { report } = doctor(repo);
  expect(host(report, "codex", "project").status).toBe("linked");
  expect(host(report, "codex").status).toBe("not linked");
});

test("store health: counts entries, a corrupt index.db is a problem fixed by reindex, a broken config.toml too", () => {
  sb.run(["remember", "We deploy with make release", "--scope", "global"]);
  sb.run(["remember", "Tabs, not spaces", "--scope", "global"]);
  let { report } = doctor();
  expect(report.store.entries.global).toBe(2);
  expect(report.store.index.state).toBe("ok");
  expect(report.store.index.entries).toBe(2);
  writeFileSync(join(sb.cofferHome, "state", "index.db"), "this is not a database at all".repeat(200));
  for (const s of ["-wal", "-shm"]) Bun.spawnSync(["rm", "-f", join(sb.cofferHome, "state", `index.db${s}`)]);
  const bad = doctor();
  expect(bad.code).toBe(1);
  expect(bad.report.store.index.state).toBe("corrupt");
  expect(bad.report.problems.find((p: any) => p.where === "store").fix).toBe("coffer reindex");
  expect(sb.run(["reindex"]).code).toBe(0);
  ({ report } = doctor());
  expect(report.store.index.state).toBe("ok");
  writeFileSync(join(sb.cofferHome, "config.toml"), `[hook]\nreed = "auto"\n`);
  const cfg = doctor();
  expect(cfg.code).toBe(1);
  expect(cfg.report.store.config.ok).toBe(false);
  expect(cfg.report.problems[0].message).toContain(`unknown key "hook.reed"`);
});

test("hooks switched off in the host's own settings (Claude disableAllHooks, Gemini hooksConfig.enabled)", () => {
  sb.run(["link", "claude", "--no-mcp"]);
  sb.run(["link", "gemini", "--no-mcp"]);
  const claude = join(sb.home, ".claude", "settings.json");
  writeFileSync(claude, read(claude)!.replace("{\n", `{\n  "disableAllHooks": true,\n`));
  const gemini = join(sb.home, ".gemini", "settings.json");
  writeFileSync(
    gemini,
    read(gemini)!.replace("{\n", `{\n  // hooks off for now\n  "hooksConfig": { "enabled": false },\n`),
  );
  const { report } = doctor();
  expect(host(report, "claude").problems[0].message).toContain(`"disableAllHooks": true`);
  expect(host(report, "gemini").problems[0].message).toContain("hooksConfig.enabled = false");
  // Coffer still links fine around those keys (and leaves them alone).
  expect(sb.run(["link", "gemini", "--no-mcp"]).stdout).toContain("already linked");
});

test("a model named but not found is a problem and never a green check (issue 37 item 6)", () => {
  expect(sb.run(["config", "set", "model.provider", "gemini-cli"]).code).toBe(0);
  const env = { PATH: "/usr/bin:/bin" }; // no gemini there, nor in the sandbox's HOME
  const r = sb.run(["doctor", "--json"], { env });
  expect(r.code).toBe(1);
  const report = r.json();
  expect(report.store.model_ok).toBe(false);
  expect(report.problems.some((p: any) => p.where === "store" && p.message.includes("`gemini` was not found"))).toBe(
    true,
  );
  const line = sb
    .run(["doctor"], { env })
    .stdout.split("\n")
    .find((l) => l.includes(" model: "))!;
  expect(line).toStartWith("  ✗ model: ");
});
