/**
 * `coffer link --git-hook` / `coffer unlink --git-hook`: a repository's pre-commit hook runs
 * `coffer scan --staged`, so a secret in a staged `.coffer/` file stops the commit (issue 28).
 *
 * The hook is one marked line. A missing pre-commit hook is created with it; a shell script the
 * user (or a hook manager) wrote gets the line after its `#!` line, with a `.bak` of the file as it
 * was; anything else is left alone and the one line to add is named. Unlink removes the line
 * (and a hook Coffer created whole, when nothing else was added to it).
 */
import { chmodSync, copyFileSync, existsSync, lstatSync, rmSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { commonGitDir } from "../lib/git-files";
import { userMode } from "../lib/permissions";
import { readSmallText } from "../lib/small-file";
import { resolveProject } from "../store/scope";
import { backupPath, tilde } from "./files";

/** The mark that says a line is Coffer's (unlink finds it by this). */
const MARK = "# coffer: refuse a commit whose staged .coffer/ files hold a secret";

/** The line a pre-commit hook runs; `bin` is how to call Coffer (`coffer` from PATH, or a path). */
export function gitHookLine(bin: string): string {
  const call = /^[A-Za-z0-9_./-]+$/.test(bin) ? bin : `'${bin.replace(/'/g, "'\\''")}'`;
  return `${call} scan --staged || exit 1  ${MARK}`;
}

/** `[core] hooksPath` of a git config file's text. */
function hooksPathOf(text: string): string | undefined {
  let inCore = false;
  let found: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      inCore = /^\[\s*core\s*\]/i.test(line);
      continue;
    }
    const m = inCore ? /^hookspath\s*=\s*(.*)$/i.exec(line) : null;
    if (m) found = m[1]!.replace(/^"(.*)"$/, "$1").trim() || undefined;
  }
  return found;
}

/** The pre-commit hook file of the repository at `cwd` (core.hooksPath when the repository sets it). */
export function preCommitPath(cwd: string): { file: string; repo: string } {
  const project = resolveProject(cwd);
  if (!project)
    throw new CofferError(
      `${cwd} is not inside a git repository`,
      1,
      "Run coffer link --git-hook inside the repository.",
    );
  const common = commonGitDir(project.gitDir);
  const configured = hooksPathOf(readSmallText(join(common, "config")) ?? "");
  const dir = configured
    ? isAbsolute(configured)
      ? configured
      : resolve(project.worktree, configured.replace(/^~(?=\/)/, process.env.HOME ?? "~"))
    : join(common, "hooks");
  return { file: join(dir, "pre-commit"), repo: project.worktree };
}

export type GitHookResult = {
  file: string;
  status: "created" | "added" | "already" | "removed" | "absent";
  backup?: string;
};

/** Install the scan line into the repository's pre-commit hook. */
export function installGitHook(cwd: string, bin: string): GitHookResult {
  const { file } = preCommitPath(cwd);
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
    return { file, status: "created" };
  }
  if (text.includes(MARK)) return { file, status: "already" };
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
  return { file, status: "added", backup };
}

/** Take the scan line out of the repository's pre-commit hook (the file goes when nothing else is left). */
export function removeGitHook(cwd: string): GitHookResult {
  const { file } = preCommitPath(cwd);
  const text = existsSync(file) && lstatSync(file).isFile() ? readSmallText(file, 1024 * 1024) : undefined;
  if (text === undefined || !text.includes(MARK)) return { file, status: "absent" };
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
  return { file, status: "removed" };
}
