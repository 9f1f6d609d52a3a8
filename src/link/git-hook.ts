/**
 * `coffer link --git-hook` / `coffer unlink --git-hook`: a repository's pre-commit hook runs
 * `coffer scan --staged`, so a secret in a staged `.coffer/` file stops the commit (issue 28).
 *
 * The hook is one marked line. A missing pre-commit hook is created with it; a shell script the
 * user (or a hook manager) wrote gets the line after its `#!` line, with a `.bak` of the file as it
 * was; anything else is left alone and the one line to add is named. Unlink removes the line
 * (and a hook Coffer created whole, when nothing else was added to it).
 *
 * The file is the one git will run: in core.hooksPath wherever that is set (a hook manager's
 * folder in the repository's config, a global or system folder, a file `[include]`d by one), else
 * the repository's `hooks/` folder. Writing `.git/hooks/pre-commit` while git reads another folder
 * would promise a check that never runs (issue 36).
 */
import { chmodSync, copyFileSync, existsSync, lstatSync, rmSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { gitConfigValue } from "../lib/git-config";
import { readSmallText } from "../lib/small-file";
import { userMode } from "../lib/umask";
import { commonGitDir, resolveProject } from "../store";
import { backupPath, tilde } from "./files";

/** The mark that says a line is Coffer's (unlink finds it by this). */
const MARK = "# coffer: refuse a commit whose staged .coffer/ files hold a secret";

/** The line a pre-commit hook runs; `bin` is how to call Coffer (`coffer` from PATH, or a path). */
export function gitHookLine(bin: string): string {
  const call = /^[A-Za-z0-9_./-]+$/.test(bin) ? bin : `'${bin.replace(/'/g, "'\\''")}'`;
  return `${call} scan --staged || exit 1  ${MARK}`;
}

/** Where core.hooksPath came from: git's scope (system, global, local, worktree, command) and file. */
export type HooksPathSetting = { value: string; scope: string; origin: string };

/**
 * core.hooksPath as git would read it in `worktree`: asked of git itself when it is installed
 * (link is a command, not the hook path: a child process is fine), which knows every file, include
 * and environment variable; from the config files otherwise (lib/git-config.ts). Undefined: not set.
 */
function effectiveHooksPath(worktree: string, gitDir: string, commonDir: string): HooksPathSetting | undefined {
  const git = Bun.which("git");
  if (git) {
    try {
      const p = Bun.spawnSync(
        [git, "config", "--show-scope", "--show-origin", "--type=path", "-z", "--get", "core.hooksPath"],
        { cwd: worktree, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
      );
      if (p.exitCode === 1) return undefined; // not set anywhere
      if (p.exitCode === 0) {
        const [scope = "", origin = "", value = ""] = p.stdout.toString().split("\0");
        const file = origin.replace(/^file:/, "");
        return {
          value,
          scope,
          origin: origin.startsWith("file:") ? resolve(worktree, file) : origin.replace(/:$/, ""),
        };
      }
    } catch {} // git could not run: read the files
  }
  const found = gitConfigValue("core.hooksPath", { gitDir, commonDir });
  if (!found) return undefined;
  const home = process.env.HOME;
  const value = home && /^~(?=\/|$)/.test(found.value) ? join(home, found.value.slice(1)) : found.value;
  return { ...found, value };
}

/** Where the repository's hooks are and why. */
export type HooksLocation = { file: string; repo: string; hooks_path?: HooksPathSetting };

/**
 * The pre-commit hook file git runs in the repository at `cwd`: in core.hooksPath wherever it is
 * set (system, global, an included file, the repository), relative to the worktree as git runs
 * hooks there; else the repository's own `hooks/` folder.
 */
export function preCommitPath(cwd: string): HooksLocation {
  const project = resolveProject(cwd);
  if (!project)
    throw new CofferError(
      `${cwd} is not inside a git repository`,
      1,
      "Run coffer link --git-hook inside the repository.",
    );
  const common = commonGitDir(project.gitDir);
  const setting = effectiveHooksPath(project.worktree, project.gitDir, common);
  // An empty core.hooksPath is no setting for git either: the default folder.
  if (!setting?.value) return { file: join(common, "hooks", "pre-commit"), repo: project.worktree };
  const dir = isAbsolute(setting.value) ? setting.value : resolve(project.worktree, setting.value);
  return { file: join(dir, "pre-commit"), repo: project.worktree, hooks_path: setting };
}

export type GitHookResult = {
  file: string;
  /** Set when git reads the hook from core.hooksPath: its value and where it is set. */
  hooks_path?: HooksPathSetting;
  status: "created" | "added" | "already" | "removed" | "absent";
  backup?: string;
};

/** Install the scan line into the repository's pre-commit hook. */
export function installGitHook(cwd: string, bin: string): GitHookResult {
  const { file, hooks_path } = preCommitPath(cwd);
  const where = hooks_path ? { hooks_path } : {};
  const line = gitHookLine(bin);
  if (existsSync(file) && !lstatSync(file).isFile())
    throw new CofferError(
      `${tilde(file)} is not a regular file; not changing it`,
      1,
      `Add this line to it yourself: ${line}`,
    );
  const text = existsSync(file) ? readSmallText(file, 1024 * 1024) : undefined;
  if (existsSync(file) && text === undefined)
    throw new CofferError(`${tilde(file)} cannot be read; not changing it`, 1, `Add this line to it yourself: ${line}`);
  if (text === undefined) {
    writeFileAtomic(file, `#!/bin/sh\n${line}\n`, 0o700);
    chmodSync(file, userMode(false) | 0o111);
    return { file, status: "created", ...where };
  }
  if (text.includes(MARK)) return { file, status: "already", ...where };
  const first = text.split("\n", 1)[0] ?? "";
  if (!/^#!.*\b(sh|bash|zsh|dash|ksh)\b/.test(first))
    throw new CofferError(
      `${tilde(file)} is not a shell script Coffer can add a line to`,
      1,
      `Make it run this before committing: ${line}`,
    );
  const mode = lstatSync(file).mode & 0o777;
  const backup = backupPath(file, undefined);
  copyFileSync(file, backup);
  const rest = text.slice(first.length);
  writeFileAtomic(file, `${first}\n${line}${rest.startsWith("\n") ? rest : `\n${rest}`}`, 0o700);
  chmodSync(file, mode);
  return { file, status: "added", backup, ...where };
}

/** Take the scan line out of the repository's pre-commit hook (the file goes when nothing else is left). */
export function removeGitHook(cwd: string): GitHookResult {
  const { file, hooks_path } = preCommitPath(cwd);
  const where = hooks_path ? { hooks_path } : {};
  const text = existsSync(file) && lstatSync(file).isFile() ? readSmallText(file, 1024 * 1024) : undefined;
  if (text === undefined || !text.includes(MARK)) return { file, status: "absent", ...where };
  const kept = text
    .split("\n")
    .filter((l) => !l.includes(MARK))
    .join("\n");
  if (kept.trim() === "#!/bin/sh") rmSync(file);
  else {
    const mode = lstatSync(file).mode & 0o777;
    writeFileAtomic(file, kept, 0o700);
    chmodSync(file, mode);
  }
  return { file, status: "removed", ...where };
}

/** Which folder git runs the hook from, and why: what `link --git-hook` says after writing. */
export function hooksPathNote(res: GitHookResult): string {
  const s = res.hooks_path;
  if (!s) return `git runs ${tilde(res.file)}: core.hooksPath is not set, so the repository's own hooks folder is used`;
  const from =
    s.scope === "command"
      ? "set in this environment (GIT_CONFIG_* or -c): a commit made without it runs another folder's hook"
      : `set in the ${s.scope} git config ${tilde(s.origin)}`;
  const shared =
    s.scope === "global" || s.scope === "system"
      ? "; every repository that uses this folder runs the line (one with nothing staged under .coffer/ passes)"
      : "";
  return `git runs ${tilde(res.file)}: core.hooksPath = ${s.value}, ${from}${shared}`;
}
