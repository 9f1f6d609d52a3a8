/**
 * A cloned repository never gets its own binaries run as the agent CLI (issue 36): a relative
 * PATH entry (`./node_modules/.bin`, common in dotfiles) or an absolute one inside the repository
 * (direnv's `PATH_add`) is not searched, `coffer link` records no path inside the repository, and
 * the background sweep a session start starts runs in Coffer's own folder with a PATH of absolute
 * folders outside the session's repository.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { claudeStart, FIXTURES, hook, placeClaude, type Sandbox, sandbox, sweepFinished } from "../kit";

const SESSION = "7c1f9a2e-4b1d-4e8a-9f3c-2d6b8e0a1c55";
const NEW_SESSION = "0b1e2c3d-4b1d-4e8a-9f3c-2d6b8e0a1c99";
const claudeFixture = readFileSync(join(FIXTURES, "claude", "coffer-context.jsonl"), "utf8");
const ANSWER = JSON.stringify({
  type: "result",
  subtype: "success",
  is_error: false,
  result: "[]",
  usage: { input_tokens: 10, output_tokens: 2 },
});

/** The user's own CLI: records its env and its parent's (the sweep's) cwd, then answers. */
const USER_CLI = `#!/bin/sh
d="$FAKE_CLI_DIR"
echo call >> "$d/calls"
env > "$d/env"
if [ -e "/proc/$PPID/cwd" ]; then readlink "/proc/$PPID/cwd" > "$d/parent-cwd"; fi
cat > /dev/null
printf '%s' '${ANSWER}'
`;

/** What a cloned repository commits as `node_modules/.bin/claude`: it must never run. */
const REPO_CLI = `#!/bin/sh
echo ran > "$FAKE_CLI_DIR/repo-cli-ran"
cat > /dev/null
printf '%s' '${ANSWER}'
`;

let sb: Sandbox;
let repo: string;
let fake: string;
let userCli: string;
let env: Record<string, string>;

function executable(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

beforeEach(() => {
  sb = sandbox("coffer-repo-cli-");
  repo = sb.repo("cloned", "git@github.com:someone/cloned.git");
  executable(join(repo, "node_modules", ".bin", "claude"), REPO_CLI);
  userCli = join(sb.home, ".local", "bin", "claude");
  executable(userCli, USER_CLI);
  fake = join(sb.root, "fake");
  mkdirSync(fake, { recursive: true });
  // The repository's folder first, as `./node_modules/.bin` and as direnv writes it; then the user's.
  const path = ["./node_modules/.bin", join(repo, "node_modules", ".bin"), join(userCli, ".."), sb.env.PATH];
  env = { FAKE_CLI_DIR: fake, PATH: path.join(delimiter) };
});
afterEach(() => sb.cleanup());

const repoCliRan = () => existsSync(join(fake, "repo-cli-ran"));

describe("an agent CLI is never resolved inside the repository at hand", () => {
  test("coffer link inside the repository records the user's CLI, never the repository's", () => {
    const link = sb.run(["link", "claude"], { cwd: repo, env });
    expect(link.code).toBe(0);
    const agents = JSON.parse(readFileSync(join(sb.cofferHome, "state", "agent-clis.json"), "utf8")).agents;
    expect(agents).toEqual([{ host: "claude", path: userCli, linked_at: expect.any(String) }]);
    expect(repoCliRan()).toBe(false);
  });

  test("with only the repository's CLI around, link records none and distill finds none", () => {
    const empty = join(sb.root, "empty-path");
    const bare = { ...env, PATH: ["./node_modules/.bin", join(repo, "node_modules", ".bin"), empty].join(delimiter) };
    writeFileSync(userCli, ""); // not executable any more: the user has no CLI
    chmodSync(userCli, 0o644);
    expect(sb.run(["link", "claude"], { cwd: repo, env: bare }).code).toBe(0);
    const agents = JSON.parse(readFileSync(join(sb.cofferHome, "state", "agent-clis.json"), "utf8")).agents;
    expect(agents[0].path).toBeNull();
    mkdirSync(sb.cofferHome, { recursive: true });
    writeFileSync(join(sb.cofferHome, "config.toml"), '[model]\nprovider = "claude-code"\n');
    placeClaude(sb, claudeFixture, { id: SESSION, cwd: repo, from: "/home/dev/work/shop-api", ageMinutes: 60 });
    const r = sb.run(["distill", "run", SESSION], { cwd: repo, env: bare });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("`claude` was not found");
    expect(repoCliRan()).toBe(false);
  });

  test("a session start's sweep (no recorded path) runs in Coffer's folder and uses the user's CLI", async () => {
    mkdirSync(sb.cofferHome, { recursive: true });
    writeFileSync(join(sb.cofferHome, "config.toml"), '[model]\nprovider = "claude-code"\n');
    placeClaude(sb, claudeFixture, { id: SESSION, cwd: repo, from: "/home/dev/work/shop-api", ageMinutes: 60 });
    const r = hook(sb, "claude", "session-start", claudeStart(NEW_SESSION, repo), { cwd: repo, env });
    expect(r.code).toBe(0);
    const done = await sweepFinished(sb);
    expect(done.result).toMatchObject({ distilled: 1, errors: [] });
    expect(repoCliRan()).toBe(false);
    expect(readFileSync(join(fake, "calls"), "utf8").trim()).toBe("call");
    const cliEnv = readFileSync(join(fake, "env"), "utf8");
    const path = /^PATH=(.*)$/m.exec(cliEnv)![1]!.split(delimiter);
    expect(path[0]).toBe(join(sb.home, ".local", "bin")); // the CLI's own folder first
    for (const dir of path) {
      expect(dir.startsWith("/")).toBe(true);
      expect(dir.startsWith(repo)).toBe(false);
    }
    // The sweep (the CLI's parent) works in Coffer's folder, not in the repository (Linux shows it in /proc).
    if (process.platform === "linux") expect(readFileSync(join(fake, "parent-cwd"), "utf8").trim()).toBe(sb.cofferHome);
  }, 90_000);
});
