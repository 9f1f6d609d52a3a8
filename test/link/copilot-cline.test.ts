/**
 * `coffer link` for Copilot CLI and Cline through the compiled binary: `link --all` finds them by
 * their folders, doctor lists them (and Copilot's `disableAllHooks`), `--project` writes the
 * repository's files with the portable `coffer` command, and unlink gives every file back as it
 * was (created files go, the user's bytes stay).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
afterEach(() => sb?.cleanup());

const gitStatus = (repo: string) =>
  Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=all"], { cwd: repo }).stdout.toString();

describe("link --all, doctor", () => {
  test("~/.copilot and ~/.cline are found and linked; doctor lists both, and a Copilot switched off", () => {
    sb = sandbox("coffer-link-cc-");
    mkdirSync(join(sb.home, ".copilot"), { recursive: true });
    mkdirSync(join(sb.home, ".cline"), { recursive: true });
    const r = sb.run(["link", "--all"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Linked Copilot CLI (~/.copilot) for your user");
    expect(r.stdout).toContain("Linked Cline (~/.cline) for your user");
    expect(existsSync(join(sb.home, ".copilot", "hooks", "coffer.json"))).toBe(true);
    expect(existsSync(join(sb.home, ".cline", "hooks", "PostToolUse.sh"))).toBe(true);

    writeFileSync(join(sb.home, ".copilot", "settings.json"), '{"disableAllHooks": true}\n');
    const doc = sb.run(["doctor", "--json"]).json();
    const host = (name: string) => doc.hosts.find((h: { host: string }) => h.host === name);
    expect(host("copilot").status).toBe("linked");
    expect(host("copilot").problems[0].message).toContain('"disableAllHooks": true');
    expect(host("cline")).toMatchObject({ status: "linked", events: ["UserPromptSubmit", "PostToolUse"] });

    // A hook script gone missing: doctor says the link is partial.
    Bun.spawnSync(["rm", join(sb.home, ".cline", "hooks", "PostToolUse.sh")]);
    const again = sb.run(["doctor", "--json"]).json();
    const cline = again.hosts.find((h: { host: string }) => h.host === "cline");
    expect(cline.status).toBe("partial");
    expect(cline.problems[0].message).toContain("PostToolUse.sh is missing");
  });
});

describe("--project", () => {
  test("copilot: .github/hooks/coffer.json and .github/mcp.json with `coffer`; unlink leaves the repository clean", () => {
    sb = sandbox("coffer-link-cc-");
    const repo = sb.repo("app");
    Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "i"], {
      cwd: repo,
    });
    const before = gitStatus(repo);
    expect(sb.run(["link", "copilot", "--project"], { cwd: repo }).code).toBe(0);
    const hooks = JSON.parse(readFileSync(join(repo, ".github", "hooks", "coffer.json"), "utf8"));
    expect(hooks.version).toBe(1);
    expect(hooks.hooks.UserPromptSubmit[0].hooks[0]).toEqual({
      type: "command",
      command: "coffer hook prompt --agent copilot",
      timeout: 10,
    });
    expect(JSON.parse(readFileSync(join(repo, ".github", "mcp.json"), "utf8")).mcpServers.coffer).toEqual({
      type: "local",
      command: "coffer",
      args: ["serve", "--stdio"],
      tools: ["*"],
    });
    expect(existsSync(join(repo, ".mcp.json"))).toBe(false); // Claude Code's file stays Claude's
    expect(sb.run(["unlink", "copilot", "--project"], { cwd: repo }).code).toBe(0);
    expect(gitStatus(repo)).toBe(before);
  });

  test("cline: .cline/hooks/*.sh with `coffer`, no MCP (user level only); a user's own hook file stays", () => {
    sb = sandbox("coffer-link-cc-");
    const repo = sb.repo("app");
    mkdirSync(join(repo, ".cline", "hooks"), { recursive: true });
    const mine = "#!/bin/sh\necho '{}'\n";
    writeFileSync(join(repo, ".cline", "hooks", "TaskStart"), mine);
    const r = sb.run(["link", "cline", "--project"], { cwd: repo });
    expect(r.code).toBe(0);
    const script = readFileSync(join(repo, ".cline", "hooks", "UserPromptSubmit.sh"), "utf8");
    expect(script).toContain("'coffer' hook prompt --agent cline");
    expect(existsSync(join(repo, ".cline", "hooks", "PostToolUse.sh"))).toBe(true);
    expect(sb.run(["unlink", "cline", "--project"], { cwd: repo }).code).toBe(0);
    expect(existsSync(join(repo, ".cline", "hooks", "UserPromptSubmit.sh"))).toBe(false);
    expect(existsSync(join(repo, ".cline", "hooks", "PostToolUse.sh"))).toBe(false);
    expect(readFileSync(join(repo, ".cline", "hooks", "TaskStart"), "utf8")).toBe(mine);
  });

  test("cline: a hook file of the user's where Coffer's goes is never overwritten", () => {
    sb = sandbox("coffer-link-cc-");
    mkdirSync(join(sb.home, ".cline", "hooks"), { recursive: true });
    const theirs = "echo '{}'\n";
    writeFileSync(join(sb.home, ".cline", "hooks", "PostToolUse.sh"), theirs);
    const r = sb.run(["link", "cline"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("PostToolUse.sh exists and was not written by Coffer");
    expect(readFileSync(join(sb.home, ".cline", "hooks", "PostToolUse.sh"), "utf8")).toBe(theirs);
    expect(existsSync(join(sb.home, ".cline", "hooks", "UserPromptSubmit.sh"))).toBe(false);
  });
});
