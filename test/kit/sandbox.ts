/**
 * The sandbox every test runs in: the compiled binary against a throwaway HOME and COFFER_HOME
 * (`COFFER_BIN` points at another build; default dist/coffer), run synchronously or spawned.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const BIN = resolve(process.env.COFFER_BIN ?? join(import.meta.dir, "..", "..", "dist", "coffer"));

export type Sandbox = {
  root: string;
  home: string;
  cofferHome: string;
  env: Record<string, string>;
  /** Run `coffer <args>` synchronously. */
  run: (args: string[], opts?: RunOptions) => RunResult;
  /** Start `coffer <args>` without waiting (for concurrency tests). */
  spawn: (args: string[], opts?: RunOptions) => Bun.Subprocess<"pipe" | "ignore", "pipe", "pipe">;
  /** Create a git repository (files only, plus `git init` for realism) with an optional origin. */
  repo: (name: string, origin?: string) => string;
  cleanup: () => void;
};

export type RunOptions = { cwd?: string; stdin?: string; env?: Record<string, string> };
export type RunResult = { code: number; stdout: string; stderr: string; json: () => any };

export function sandbox(prefix = "coffer-test-"): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, "home");
  const cofferHome = join(root, "coffer");
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    COFFER_HOME: cofferHome,
    NO_COLOR: "1",
    TZ: "UTC",
    LANG: "C.UTF-8",
  };
  const run = (args: string[], opts: RunOptions = {}): RunResult => {
    const p = Bun.spawnSync([BIN, ...args], {
      cwd: opts.cwd ?? home,
      env: { ...env, ...opts.env },
      stdin: opts.stdin !== undefined ? Buffer.from(opts.stdin) : "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stdout = p.stdout.toString();
    return {
      code: p.exitCode ?? -1,
      stdout,
      stderr: p.stderr.toString(),
      json: () => JSON.parse(stdout),
    };
  };
  const spawn = (args: string[], opts: RunOptions = {}) =>
    Bun.spawn([BIN, ...args], {
      cwd: opts.cwd ?? home,
      env: { ...env, ...opts.env },
      stdin: opts.stdin !== undefined ? "pipe" : "ignore",
      stdout: "pipe",
      stderr: "pipe",
    }) as Bun.Subprocess<"pipe" | "ignore", "pipe", "pipe">;
  const repo = (name: string, origin?: string) => {
    const dir = join(root, "work", name);
    mkdirSync(dir, { recursive: true });
    const git = (...a: string[]) =>
      Bun.spawnSync(["git", ...a], { cwd: dir, env: { ...env, GIT_CONFIG_NOSYSTEM: "1" } });
    git("init", "-q", "-b", "main");
    if (origin) git("remote", "add", "origin", origin);
    return dir;
  };
  return {
    root,
    home,
    cofferHome,
    env,
    run,
    spawn,
    repo,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function writeFile(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

/**
 * `coffer <args>` without blocking the test process (a fake model server living in it must go on
 * answering, so the binary must not be run with spawnSync).
 */
export async function runAsync(sb: Sandbox, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const p = sb.spawn(args, opts);
  if (opts.stdin !== undefined && p.stdin && typeof p.stdin !== "number") {
    p.stdin.write(opts.stdin);
    p.stdin.end();
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** `coffer remember <args> --json` in `cwd`: the new entry's id (a failure throws its stderr). */
export function remember(sb: Sandbox, cwd: string, ...args: string[]): string {
  const r = sb.run(["remember", ...args, "--json"], { cwd });
  if (r.code !== 0) throw new Error(r.stderr);
  return r.json().id as string;
}
