/**
 * `coffer link --git-hook` installs where git will run it (issue 36, item 8): core.hooksPath set in
 * the global config, in a file the global config includes, in the system config, or only in the
 * config files when git itself cannot be asked.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox("coffer-githook-");
});
afterEach(() => sb.cleanup());

const SECRET_RULE = "- Use the token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n";
const gitEnv = (extra: Record<string, string> = {}) => ({
  ...sb.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  // the hook calls `coffer` from PATH
  PATH: `${dirname(BIN)}:${sb.env.PATH}`,
  ...extra,
});

/** A commit of a staged `.coffer/rules.md` holding a token: does git refuse it? */
function commitRefused(repo: string, env: Record<string, string>): boolean {
  mkdirSync(join(repo, ".coffer"), { recursive: true });
  writeFileSync(join(repo, ".coffer", "rules.md"), SECRET_RULE);
  expect(Bun.spawnSync(["git", "add", ".coffer/rules.md"], { cwd: repo, env }).exitCode).toBe(0);
  return Bun.spawnSync(["git", "commit", "-q", "-m", "leak"], { cwd: repo, env }).exitCode !== 0;
}

describe("link --git-hook follows core.hooksPath", () => {
  test("a global hooksPath set in a file ~/.gitconfig includes", () => {
    writeFileSync(join(sb.home, ".gitconfig"), "[include]\n\tpath = ~/.config/git/hooks.inc\n");
    mkdirSync(join(sb.home, ".config", "git"), { recursive: true });
    writeFileSync(join(sb.home, ".config", "git", "hooks.inc"), '[core]\n\thooksPath = "~/global hooks"\n');
    const repo = sb.repo("app");
    const env = gitEnv();
    const r = sb.run(["link", "--git-hook"], { cwd: repo, env });
    expect(r.code).toBe(0);
    const hook = join(sb.home, "global hooks", "pre-commit");
    expect(readFileSync(hook, "utf8")).toContain("scan --staged");
    expect(existsSync(join(repo, ".git", "hooks", "pre-commit"))).toBe(false);
    // says exactly where, and why there
    const said = r.stdout + r.stderr;
    expect(said).toContain("~/global hooks/pre-commit");
    expect(said).toContain("core.hooksPath");
    expect(said).toContain("~/.config/git/hooks.inc");
    expect(sb.run(["link", "--git-hook", "--json"], { cwd: repo, env }).json()).toMatchObject({
      file: hook,
      status: "already",
      hooks_path: { scope: "global", origin: join(sb.home, ".config", "git", "hooks.inc") },
    });
    expect(commitRefused(repo, env)).toBe(true);
    // unlink finds the same file
    expect(sb.run(["unlink", "--git-hook"], { cwd: repo, env }).code).toBe(0);
    expect(existsSync(hook)).toBe(false);
  });

  test("a system hooksPath", () => {
    const system = join(sb.root, "etc-gitconfig");
    const dir = join(sb.root, "system-hooks");
    writeFileSync(system, `[core]\n\thooksPath = ${dir}\n`);
    const repo = sb.repo("sys");
    const env = gitEnv({ GIT_CONFIG_NOSYSTEM: "", GIT_CONFIG_SYSTEM: system });
    const r = sb.run(["link", "--git-hook", "--json"], { cwd: repo, env });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ file: join(dir, "pre-commit"), hooks_path: { scope: "system", origin: system } });
    expect(commitRefused(repo, env)).toBe(true);
  });

  test("without git on PATH: read from the config files, includeIf and a relative path too", () => {
    writeFileSync(
      join(sb.home, ".gitconfig"),
      '[core]\n\thooksPath = /nowhere\n[includeIf "gitdir:fallback/"]\n\tpath = .gitconfig-work\n',
    );
    writeFileSync(join(sb.home, ".gitconfig-work"), "[core]\n  hooksPath = tools/hooks ; the team's folder\n");
    const repo = sb.repo("fallback");
    const r = sb.run(["link", "--git-hook", "--json"], { cwd: repo, env: { ...gitEnv(), PATH: dirname(BIN) } });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      file: join(repo, "tools", "hooks", "pre-commit"),
      hooks_path: { value: "tools/hooks", scope: "global", origin: join(sb.home, ".gitconfig-work") },
    });
    // git agrees (a relative hooksPath is relative to the worktree git runs hooks in)
    expect(commitRefused(repo, gitEnv())).toBe(true);
  });

  test("no hooksPath anywhere: the repository's own hooks folder, said so", () => {
    const repo = sb.repo("plain");
    const r = sb.run(["link", "--git-hook"], { cwd: repo, env: gitEnv() });
    expect(r.code).toBe(0);
    expect(existsSync(join(repo, ".git", "hooks", "pre-commit"))).toBe(true);
    expect(r.stdout + r.stderr).toContain("core.hooksPath is not set");
  });
});

describe("parseGitConfig reads values as git does", () => {
  test("quotes, escapes, comments, continued lines, subsections, a key alone", async () => {
    const { parseGitConfig } = await import("../../src/lib/git-config");
    const text = [
      "[core] hooksPath = a b  # comment",
      '[Core]\n\tHooksPath = " x ; y "\\t; not this',
      "[core]\n\thookspath = one\\\n two",
      '[includeIf "gitdir:~/Work/"]\n\tpath = w.inc',
      "[core]\n\tbare",
    ].join("\n");
    expect(parseGitConfig(text)).toEqual([
      { section: "core", key: "hookspath", value: "a b" },
      { section: "core", key: "hookspath", value: " x ; y \t" },
      { section: "core", key: "hookspath", value: "one two" },
      { section: "includeif.gitdir:~/Work/", key: "path", value: "w.inc" },
      { section: "core", key: "bare", value: "true" },
    ]);
  });
});
