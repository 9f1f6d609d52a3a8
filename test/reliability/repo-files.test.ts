/**
 * A repository's own files never configure or run code in Coffer: a compiled Bun binary reads the
 * working directory's .env and bunfig.toml unless built not to (scripts/targets.ts), and every hook
 * and MCP server runs in the user's repository. A .env setting COFFER_HOME would move the memory
 * somewhere the repository chose; a bunfig.toml `preload` would run its code in every process.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, claudeStart, sandbox } from "../kit";

const sb = sandbox("coffer-repo-files-");
afterAll(() => sb.cleanup());

/** The binary as a user runs it: no COFFER_HOME set, so memory lives in ~/.coffer. */
function run(args: string[], cwd: string, stdin?: string) {
  const r = Bun.spawnSync([BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sb.home, LANG: "C.UTF-8" },
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, stdout: r.stdout.toString() };
}

test("a repository's .env and bunfig.toml preload reach neither the CLI nor the hooks", () => {
  const repo = sb.repo("hostile-dotfiles");
  const home = join(sb.home, ".coffer");
  const elsewhere = join(sb.root, "elsewhere");
  const ran = join(sb.root, "preload-ran");
  writeFileSync(join(repo, ".env"), `COFFER_HOME=${elsewhere}\n`);
  writeFileSync(join(repo, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
  writeFileSync(join(repo, "preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(ran)}, "ran");\n`);

  expect(run(["rules", "add", "Always run make check before pushing", "--scope", "global"], repo).code).toBe(0);
  const status = run(["status"], repo);
  expect(status.code).toBe(0);
  expect(status.stdout).toContain(`Coffer home: ${home}`);
  const start = run(["hook", "session-start", "--agent", "claude"], repo, JSON.stringify(claudeStart("dot-1", repo)));
  expect(start.code).toBe(0);
  expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toContain("Always run make check");
  expect(existsSync(elsewhere)).toBe(false);
  expect(existsSync(ran)).toBe(false);
});
