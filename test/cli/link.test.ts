/**
 * Linking from the command line: project-level links name `coffer` from PATH (teammates commit
 * those files), and unlink leaves the repository as it found it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox, writeFile } from "../kit";

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

test("unlink --project also leaves a tracked config as it was, with no backup beside it", () => {
  const repo = sb.repo("tracked", "https://github.com/acme/tracked.git");
  const settings = join(repo, ".claude", "settings.json");
  writeFile(settings, '{\n  "permissions": { "allow": ["Bash(bun test)"] }\n}\n');
  const git = (...a: string[]) =>
    Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", ...a], { cwd: repo, env: sb.env });
  git("add", ".");
  git("commit", "-q", "-m", "team settings");
  expect(gitStatus(repo)).toBe("");
  expect(sb.run(["link", "claude", "--project"], { cwd: repo }).code).toBe(0);
  expect(sb.run(["unlink", "claude", "--project"], { cwd: repo }).code).toBe(0);
  expect(gitStatus(repo)).toBe("");
  expect(readFileSync(settings, "utf8")).toBe('{\n  "permissions": { "allow": ["Bash(bun test)"] }\n}\n');
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

test("link --all links every installed agent (config folder or binary on PATH) and reports per host; unlink --all reverses it", () => {
  const fresh = sandbox("coffer-link-all-");
  try {
    mkdirSync(join(fresh.home, ".claude"), { recursive: true });
    mkdirSync(join(fresh.home, ".codex"), { recursive: true });
    const bin = join(fresh.root, "bin");
    writeFile(join(bin, "gemini"), "#!/bin/sh\nexit 0\n");
    chmodSync(join(bin, "gemini"), 0o755);
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const before = snapshot(fresh.home);

    const r = fresh.run(["link", "--all"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Linked Claude Code (~/.claude) for your user:");
    expect(r.stdout).toContain("Linked Codex (~/.codex) for your user:");
    expect(r.stdout).toContain("Linked Gemini CLI (gemini on PATH) for your user:");
    for (const name of ["Cursor", "Windsurf", "OpenCode"])
      expect(r.stdout).toMatch(new RegExp(`· ${name}: not installed .*; skipped`));
    expect(readFileSync(join(fresh.home, ".claude", "settings.json"), "utf8")).toContain(
      "hook session-start --agent claude",
    );
    expect(readFileSync(join(fresh.home, ".codex", "hooks.json"), "utf8")).toContain("--agent codex");
    expect(readFileSync(join(fresh.home, ".gemini", "settings.json"), "utf8")).toContain("--agent gemini");
    expect(existsSync(join(fresh.home, ".cursor"))).toBe(false);

    const j = fresh.run(["link", "--all", "--json"], { env }).json();
    // Every host is reported; only the three installed here are linked (any host added later: not installed).
    expect(j.hosts.map((h: any) => h.host).slice(0, 6)).toEqual([
      "claude",
      "codex",
      "gemini",
      "cursor",
      "windsurf",
      "opencode",
    ]);
    expect(j.hosts.filter((h: any) => h.installed !== false).map((h: any) => h.host)).toEqual([
      "claude",
      "codex",
      "gemini",
    ]);

    const u = fresh.run(["unlink", "--all"], { env });
    expect(u.code).toBe(0);
    expect(u.stdout).toContain("Unlinked Claude Code for your user:");
    expect(u.stdout).toContain("Unlinked Gemini CLI for your user:");
    expect(u.stdout).toContain("Cursor has no Coffer entries for your user; nothing changed.");
    // the home is as it was: Coffer's files, backups and folders are gone
    expect(snapshot(fresh.home)).toEqual(before);
  } finally {
    fresh.cleanup();
  }
});

test("link with neither a host nor --all, or both, is a usage error", () => {
  expect(sb.run(["link"]).code).toBe(2);
  expect(sb.run(["link", "claude", "--all"]).code).toBe(2);
  const u = sb.run(["unlink"]);
  expect(u.code).toBe(2);
  expect(u.stderr).toContain("coffer unlink claude");
});

/** Every path under a folder with its contents (folders as "dir/"). */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(root, { recursive: true }) as string[]) {
    const p = join(root, f);
    out[f] = statSync(p).isDirectory() ? "dir/" : readFileSync(p, "utf8");
  }
  return out;
}

test("doctor checks that a project link's `coffer` resolves on PATH, and lists backups left behind", () => {
  const fresh = sandbox("coffer-link-doctor-");
  try {
    const repo = fresh.repo("shared", "https://github.com/acme/shared.git");
    expect(fresh.run(["link", "claude", "--project"], { cwd: repo }).code).toBe(0);
    const missing = fresh.run(["doctor"], { cwd: repo, env: { PATH: "/usr/bin:/bin" } });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(
      "run `coffer` from PATH (this repository's config is shared), and there is no coffer on PATH here",
    );
    // with coffer on PATH the project link is healthy (and not "out of date")
    const bin = join(fresh.root, "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(BIN, join(bin, "coffer"));
    const ok = fresh.run(["doctor", "--json"], { cwd: repo, env: { PATH: `${bin}:/usr/bin:/bin` } }).json();
    const project = ok.hosts.find((h: any) => h.host === "claude" && h.scope === "project");
    expect(project.status).toBe("linked");
    expect(project.problems).toEqual([]);

    writeFile(join(fresh.home, ".claude", "settings.json"), '{ "theme": "dark" }\n');
    fresh.run(["link", "claude"]);
    fresh.run(["unlink", "claude"]);
    const text = fresh.run(["doctor"], { cwd: fresh.home }).stdout;
    expect(text).toContain("backup left: ~/.claude/settings.json.bak");
  } finally {
    fresh.cleanup();
  }
});

test("link --all keeps an earlier --no-mcp, as it keeps --session-end; --mcp registers it again (issue 37)", () => {
  const fresh = sandbox("coffer-link-nomcp-");
  try {
    mkdirSync(join(fresh.home, ".claude"), { recursive: true });
    const mcpFile = join(fresh.home, ".claude.json");
    const registered = () =>
      existsSync(mcpFile) && "coffer" in (JSON.parse(readFileSync(mcpFile, "utf8")).mcpServers ?? {});
    expect(fresh.run(["link", "claude", "--no-mcp", "--session-end"]).code).toBe(0);
    expect(registered()).toBe(false);
    const all = fresh.run(["link", "--all"]);
    expect(all.code).toBe(0);
    expect(registered()).toBe(false);
    expect(all.stdout).toContain("earlier --no-mcp");
    expect(readFileSync(join(fresh.home, ".claude", "settings.json"), "utf8")).toContain("SessionEnd");
    expect(fresh.run(["link", "claude", "--mcp"]).code).toBe(0);
    expect(registered()).toBe(true);
    expect(fresh.run(["link", "--all"]).code).toBe(0);
    expect(registered()).toBe(true);
  } finally {
    fresh.cleanup();
  }
});
