/**
 * Two "machines" for sync tests: each is a sandbox (own HOME and COFFER_HOME) with its own clone
 * path of one project whose origin URL is the same repository, plus a bare memory remote on disk.
 * git never reads this machine's configuration: GIT_CONFIG_GLOBAL points at an empty file and
 * GIT_CONFIG_NOSYSTEM is set. Machine A has an explicit author; B has none (Coffer's fallback).
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunOptions, type RunResult, type Sandbox, sandbox } from "./sandbox";

export type Machine = {
  name: string;
  sb: Sandbox;
  /** The project's clone on this machine. */
  project: string;
  memory: string;
  env: Record<string, string>;
  run: (args: string[], opts?: RunOptions) => RunResult;
  /** `coffer ...` that must succeed; returns the result. */
  ok: (args: string[], opts?: RunOptions) => RunResult;
  /** git inside this machine's memory/. */
  git: (...args: string[]) => string;
};

const GIT_ISOLATION = (root: string) => {
  const cfg = join(root, "gitconfig-empty");
  writeFileSync(cfg, "");
  return { GIT_CONFIG_GLOBAL: cfg, GIT_CONFIG_NOSYSTEM: "1" };
};

export function git(
  cwd: string,
  env: Record<string, string>,
  ...args: string[]
): { code: number; stdout: string; stderr: string } {
  const p = Bun.spawnSync(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: p.exitCode ?? -1, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

export function mustGit(cwd: string, env: Record<string, string>, ...args: string[]): string {
  const r = git(cwd, env, ...args);
  if (r.code !== 0) throw new Error(`git ${args.join(" ")} failed in ${cwd}: ${r.stderr}`);
  return r.stdout;
}

export function machine(name: string, projectDir: string, origin: string, author = true): Machine {
  const sb = sandbox(`coffer-sync-${name}-`);
  const env: Record<string, string> = {
    ...GIT_ISOLATION(sb.root),
    ...(author
      ? {
          GIT_AUTHOR_NAME: `Tester ${name}`,
          GIT_AUTHOR_EMAIL: `${name}@example.test`,
          GIT_COMMITTER_NAME: `Tester ${name}`,
          GIT_COMMITTER_EMAIL: `${name}@example.test`,
        }
      : {}),
  };
  Object.assign(sb.env, env);
  const project = sb.repo(projectDir, origin);
  const memory = join(sb.cofferHome, "memory");
  const run = (args: string[], opts: RunOptions = {}) => sb.run(args, { cwd: project, ...opts });
  const ok = (args: string[], opts: RunOptions = {}) => {
    const r = run(args, opts);
    if (r.code !== 0)
      throw new Error(`coffer ${args.join(" ")} on ${name} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r;
  };
  return { name, sb, project, memory, env, run, ok, git: (...args) => mustGit(memory, sb.env, ...args) };
}

export type World = {
  root: string;
  remote: string;
  a: Machine;
  b: Machine;
  /** Every git command the test itself runs gets these (no machine config, fixed author). */
  gitEnv: Record<string, string>;
  cleanup: () => void;
};

/** A bare remote and two machines whose project clones share one origin (written two ways). */
export function world(): World {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "coffer-sync-remote-")));
  const gitEnv = {
    ...GIT_ISOLATION(root),
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.test",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.test",
  };
  const remote = join(root, "memory.git");
  mustGit(root, gitEnv, "init", "-q", "--bare", remote);
  // Same repository, different clone paths and URL spellings on the two machines.
  const a = machine("a", "laptop/proj", "https://example.com/Team/proj.git");
  const b = machine("b", "desktop/src/proj-checkout", "git@example.com:team/proj", false);
  return {
    root,
    remote,
    a,
    b,
    gitEnv,
    cleanup: () => {
      a.sb.cleanup();
      b.sb.cleanup();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Paths (relative to memory/) that sync may ever commit. */
export const SYNCED_PATH =
  /^(?:\.gitignore|global\/rules\.md|global\/entries\/[^./][^/]*\.md|projects\/[0-9A-Z]{26}\/(?:project\.md|rules\.md|entries\/[^./][^/]*\.md|handoff\/[^./][^/]*\.md))$/;
