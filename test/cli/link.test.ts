/**
 * Linking from the command line: project-level links name `coffer` from PATH (teammates commit
 * those files), and unlink leaves the repository as it found it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../helpers";

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
