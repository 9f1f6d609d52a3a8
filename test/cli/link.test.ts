/**
 * Linking from the command line: project-level links name `coffer` from PATH (teammates commit
 * those files), and unlink leaves the repository as it found it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox, writeFile } from "../helpers";

let sb: Sandbox;

beforeAll(() => {
  sb = sandbox("coffer-link-cli-");
});
afterAll(() => sb.cleanup());

function gitStatus(repo: string): string {
  return Bun.spawnSync(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"], {
    cwd: repo,
    env: sb.env,
    stdout: "pipe",
  }).stdout.toString();
}

test("link --project writes the portable command `coffer`, never this machine's path", () => {
  const repo = sb.repo("portable", "https://github.com/acme/portable.git");
  const r = sb.run(["link", "claude", "--project"], { cwd: repo });
  expect(r.code).toBe(0);
  const mcp = JSON.parse(readFileSync(join(repo, ".mcp.json"), "utf8"));
  expect(mcp.mcpServers.coffer.command).toBe("coffer");
  const settings = readFileSync(join(repo, ".claude", "settings.json"), "utf8");
  expect(settings).toContain('"command": "coffer hook session-start --agent claude"');
  expect(settings).not.toContain(sb.root);
  // the sandbox PATH has no coffer: say so
  expect(r.stdout).toContain("`coffer` is not on PATH here");
  // user-level links keep the absolute path (agents run them without the shell's PATH set-up)
  sb.run(["link", "claude"], { cwd: repo });
  expect(readFileSync(join(sb.home, ".claude", "settings.json"), "utf8")).toMatch(/"command": "\/\S+\/coffer hook/);
});

test("unlink --project leaves no untracked file in the repository (no backups of files Coffer created, no empty folders)", () => {
  const repo = sb.repo("clean", "https://github.com/acme/clean.git");
  expect(gitStatus(repo)).toBe("");
  for (const host of ["claude", "codex", "gemini", "cursor"]) {
    expect(sb.run(["link", host, "--project"], { cwd: repo }).code).toBe(0);
    expect(sb.run(["link", host, "--project", "--no-mcp"], { cwd: repo }).code).toBe(0); // a second write
  }
  expect(gitStatus(repo)).not.toBe("");
  for (const host of ["claude", "codex", "gemini", "cursor"])
    expect(sb.run(["unlink", host, "--project"], { cwd: repo }).code).toBe(0);
  expect(gitStatus(repo)).toBe("");
});

test("user-level unlink keeps one backup per file Coffer changed and none for files it created", () => {
  const fresh = sandbox("coffer-link-bak-");
  try {
    const settings = join(fresh.home, ".claude", "settings.json");
    writeFile(settings, '{\n  "theme": "dark"\n}\n');
    expect(fresh.run(["link", "claude"]).code).toBe(0);
    expect(fresh.run(["link", "claude", "--session-end"]).code).toBe(0);
    expect(fresh.run(["unlink", "claude"]).code).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe('{\n  "theme": "dark"\n}\n');
    const baks = (readdirSync(fresh.home, { recursive: true }) as string[]).filter((f) => /\.bak(\.\d+)?$/.test(f));
    // settings.json existed: one backup; ~/.claude.json was created by Coffer and deleted again: none
    expect(baks).toEqual([join(".claude", "settings.json.bak")]);
    expect(existsSync(join(fresh.home, ".claude.json"))).toBe(false);
  } finally {
    fresh.cleanup();
  }
});
