/**
 * A real `git`, found on PATH, run as a child process against `memory/` only. Never used on the
 * hook path. Every call pins the repository (no discovery above memory/, no inherited GIT_DIR)
 * and the few settings whose user-level values would change what Coffer's automation does.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { paths } from "../lib/paths";
import { machineName } from "../lib/platform";

export type GitResult = { code: number; stdout: string; stderr: string };
export type GitOptions = {
  /** Fail with a CofferError naming the step when git exits non-zero (default true). */
  check?: boolean;
  /** Kill git after this long (network steps). */
  timeoutMs?: number;
  input?: string;
  /** Extra environment for this call. */
  env?: Record<string, string>;
};

/** Settings that make Coffer's commits and merges the same on every machine. */
const PINNED = [
  "core.quotepath=false",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "commit.gpgsign=false",
  "rebase.autoStash=false",
  "rebase.updateRefs=false",
  "rerere.enabled=false",
  // ULID-named entries often look alike; a rename guess would pair unrelated entries.
  "merge.renames=false",
  "diff.renames=false",
  "color.ui=false",
  "advice.detachedHead=false",
  "init.defaultBranch=main",
  // Nothing in memory/ runs a program or rewrites bytes on the way in or out (issue 25): no
  // fsmonitor daemon, no submodule recursion; hooks are pinned to an empty folder (gitAt) and
  // every content attribute is unset in .git/info/attributes (ATTRIBUTES).
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "submodule.recurse=false",
  "fetch.recurseSubmodules=false",
  "log.mailmap=false",
];

/**
 * `.git/info/attributes` outranks every `.gitattributes` (from the remote or left on disk) and the
 * user's global attributes file: with each attribute that converts, filters or merges content
 * unset, git stores and checks out entries byte for byte (no `working-tree-encoding=UTF-16LE`,
 * no `filter=lfs`, no `eol=crlf`, no custom merge driver), macros included.
 */
const ATTRIBUTES = `# Written by coffer sync: git converts, filters and merges nothing in memory/.
* !text !eol !crlf !working-tree-encoding !encoding !filter !ident !merge !diff !delta !whitespace !conflict-marker-size !export-ignore !export-subst
`;

/** Pin .git/info/attributes (once per runner, as soon as the repository exists). */
function pinAttributes(dir: string): boolean {
  const gitDir = join(dir, ".git");
  if (!existsSync(gitDir)) return false;
  const file = join(gitDir, "info", "attributes");
  let current: string | undefined;
  try {
    current = readFileSync(file, "utf8");
  } catch {}
  if (current === ATTRIBUTES) return true;
  try {
    writeFileAtomic(file, ATTRIBUTES);
    return true;
  } catch {
    return false; // a read-only store: sync cannot commit anyway; `coffer status` only reads
  }
}

/** An empty folder for `core.hooksPath`: no hook (the user's global ones included) runs in memory/. */
function emptyHooksDir(): string {
  const dir = join(paths.state(), "git-hooks-none");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
  } catch {} // read-only state/: a folder that does not exist holds no hooks either
  return dir;
}

/** Variables that would point git at another repository (set when Coffer runs inside a git hook). */
const REPO_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_QUARANTINE_PATH",
  "GIT_REFLOG_ACTION",
  "GIT_SEQUENCE_EDITOR",
];

let gitPath: string | undefined;

/** The git executable on PATH, or a clear error. */
export function findGit(): string {
  if (gitPath) return gitPath;
  const found = Bun.which("git", { PATH: process.env.PATH ?? "" });
  if (!found) {
    throw new CofferError(
      "git was not found on PATH; coffer sync needs a git executable",
      1,
      "Install git (e.g. apt install git, brew install git) and run the command again.",
    );
  }
  gitPath = found;
  return found;
}

export function memoryDir(): string {
  return paths.memory();
}

export function isSyncRepo(dir = memoryDir()): boolean {
  return existsSync(join(dir, ".git"));
}

/** Hide credentials in a remote URL before it is printed or stored. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/i, "$1***@");
}

function baseEnv(dir: string, interactive: boolean): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !REPO_ENV.includes(k)) env[k] = v;
  // Never discover a repository above memory/ (a dotfiles repo at $HOME, say).
  env.GIT_CEILING_DIRECTORIES = dirname(dir);
  env.GIT_EDITOR = "true";
  env.GIT_MERGE_AUTOEDIT = "no";
  env.LC_ALL = "C";
  if (!interactive) {
    env.GIT_TERMINAL_PROMPT = "0";
    env.GIT_SSH_COMMAND ??= "ssh -o BatchMode=yes";
  }
  return env;
}

/** A git runner bound to one working directory (memory/). */
export type Git = {
  dir: string;
  run: (args: string[], opts?: GitOptions) => Promise<GitResult>;
  /** Synchronous, for cheap local reads (`coffer status`). */
  runSync: (args: string[]) => GitResult;
  /** Add variables to every later call (the commit identity). */
  extendEnv: (vars: Record<string, string>) => void;
};

export function gitAt(
  dir: string,
  opts: {
    interactive?: boolean;
    /** Told each async child's pid as it starts and undefined once it exited (the sync lock records it). */
    onChild?: (pid: number | undefined) => void;
  } = {},
): Git {
  const bin = findGit();
  const env = baseEnv(dir, opts.interactive ?? false);
  const pinned = [...PINNED, `core.hooksPath=${emptyHooksDir()}`];
  let attributesPinned = false;
  const argv = (args: string[]) => {
    if (!attributesPinned) attributesPinned = pinAttributes(dir);
    return [bin, ...pinned.flatMap((c) => ["-c", c]), ...args];
  };
  return {
    dir,
    async run(args, o = {}) {
      const proc = Bun.spawn(argv(args), {
        cwd: dir,
        env: { ...env, ...o.env },
        stdin: o.input !== undefined ? Buffer.from(o.input) : "ignore",
        stdout: "pipe",
        stderr: "pipe",
        timeout: o.timeoutMs,
      });
      opts.onChild?.(proc.pid);
      let stdout: string;
      let stderr: string;
      try {
        [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
        await proc.exited;
      } finally {
        opts.onChild?.(undefined);
      }
      const timedOut = proc.signalCode !== null && o.timeoutMs !== undefined;
      const result: GitResult = {
        code: proc.exitCode ?? 128,
        stdout,
        stderr: timedOut ? `${stderr}\ntimed out after ${Math.round(o.timeoutMs! / 1000)} s` : stderr,
      };
      if (result.code !== 0 && (o.check ?? true)) throw gitFailure(args, result);
      return result;
    },
    runSync(args) {
      const p = Bun.spawnSync(argv(args), { cwd: dir, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      return { code: p.exitCode ?? 128, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
    },
    extendEnv(vars) {
      Object.assign(env, vars);
    },
  };
}

/** The first meaningful line git printed, without hints. */
export function gitMessage(r: GitResult): string {
  const lines = `${r.stderr}\n${r.stdout}`
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("hint:"));
  const pick = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0] ?? `exit code ${r.code}`;
  return redactUrl(pick.replace(/^(fatal|error):\s*/, ""));
}

export class GitError extends CofferError {
  constructor(
    readonly args: string[],
    readonly result: GitResult,
    message: string,
    hint?: string,
  ) {
    super(message, 1, hint);
  }
}

function gitFailure(args: string[], r: GitResult): GitError {
  return new GitError(args, r, `git ${args[0]} failed in ${paths.memory()}: ${gitMessage(r)}`);
}

/** Sort a failed fetch/push into "the remote does not exist" and "the remote cannot be reached". */
export function remoteProblem(r: GitResult): "missing" | "unreachable" | "auth" | "other" {
  const text = r.stderr + r.stdout;
  if (
    /does not appear to be a git repository|repository .* not found|not found|No such file or directory|does not exist/i.test(
      text,
    )
  )
    return "missing";
  if (
    /could not resolve|connection refused|network is unreachable|timed out|connection timed out|no route to host|unable to access|could not connect|connection reset|temporary failure/i.test(
      text,
    )
  )
    return "unreachable";
  if (/permission denied|authentication failed|terminal prompts disabled|could not read username|403/i.test(text))
    return "auth";
  return "other";
}

/**
 * An identity for Coffer's commits when the user has none configured (a fresh machine), so sync
 * works without `git config user.name`. A configured identity or GIT_* variables always win.
 */
export async function fallbackIdentity(git: Git): Promise<Record<string, string>> {
  const name = (await git.run(["config", "--get", "user.name"], { check: false })).stdout.trim();
  const email = (await git.run(["config", "--get", "user.email"], { check: false })).stdout.trim();
  const host = machineName();
  const out: Record<string, string> = {};
  if (!name) {
    if (!process.env.GIT_AUTHOR_NAME) out.GIT_AUTHOR_NAME = `Coffer on ${host}`;
    if (!process.env.GIT_COMMITTER_NAME) out.GIT_COMMITTER_NAME = `Coffer on ${host}`;
  }
  if (!email) {
    const safe = host.replace(/[^A-Za-z0-9.-]/g, "-");
    if (!process.env.GIT_AUTHOR_EMAIL) out.GIT_AUTHOR_EMAIL = `coffer@${safe}`;
    if (!process.env.GIT_COMMITTER_EMAIL) out.GIT_COMMITTER_EMAIL = `coffer@${safe}`;
  }
  return out;
}
