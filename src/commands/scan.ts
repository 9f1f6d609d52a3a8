import { defineCommand } from "citty";
import { isAtomicTemp } from "../lib/atomic";
import { CofferError, usageError } from "../lib/errors";
import { describeFound } from "../scrub/index";
import { SCAN_MAX_BYTES, scanMemory, scanTexts } from "../scrub/scan";
import { TEAM_FOLDER } from "../store";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, notice, plural, printJson } from "./_shared";

/** Run git in `cwd` (scan is not a hook: a child process is fine here); stdout bytes, or a CofferError. */
function git(cwd: string, args: string[], stdin?: string): Buffer {
  let p: ReturnType<typeof Bun.spawnSync>;
  try {
    p = Bun.spawnSync(["git", ...args], {
      cwd,
      stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
      stdout: "pipe",
      stderr: "pipe",
    });
  } catch {
    throw new CofferError("git was not found on PATH", 1, "coffer scan --staged asks git what is staged: install git.");
  }
  if (p.exitCode !== 0) {
    const why = p.stderr?.toString().trim().split("\n")[0] ?? "";
    if (/not a git repository/i.test(why))
      throw new CofferError(
        `${cwd} is not inside a git repository`,
        1,
        "Run coffer scan --staged inside the repository.",
      );
    throw new CofferError(`git ${args[0]} failed: ${why}`);
  }
  return p.stdout as Buffer;
}

/**
 * The staged (index) version of every file added or changed under `.coffer/`, as git would commit
 * it: GIT_INDEX_FILE and friends from a pre-commit hook are inherited, so `git commit -a` and
 * partial commits are checked as they will be committed. Files over SCAN_MAX_BYTES are named, not read.
 */
function stagedTeamFiles(cwd: string): {
  files: { path: string; text: string }[];
  tooLarge: string[];
  temps: string[];
} {
  const root = git(cwd, ["rev-parse", "--show-toplevel"]).toString().trim();
  const names = git(root, ["diff", "--cached", "--name-only", "-z", "--diff-filter=ACMRT", "--", TEAM_FOLDER])
    .toString()
    .split("\0")
    .filter(Boolean);
  const tooLarge: string[] = [];
  const odd = names.filter((n) => /[\n\r]/.test(n));
  if (odd.length)
    throw new CofferError(`a staged file name under ${TEAM_FOLDER}/ holds a line break: ${JSON.stringify(odd[0])}`);
  // `.<name>.<pid>.<n>.tmp`: what a Coffer write killed mid-way left, never a team file (issue 36)
  const temps = names.filter((n) => isAtomicTemp(n.slice(n.lastIndexOf("/") + 1)));
  if (!names.length) return { files: [], tooLarge, temps };
  // sizes first (never read a huge blob), then the contents of the rest in one call
  const sizes = git(root, ["cat-file", "--batch-check=%(objectsize)"], names.map((n) => `:${n}\n`).join(""))
    .toString()
    .trim()
    .split("\n")
    .map(Number);
  const small = names.filter((n, i) => {
    const ok = Number.isFinite(sizes[i]) && sizes[i]! <= SCAN_MAX_BYTES;
    if (!ok) tooLarge.push(n);
    return ok;
  });
  const out = git(root, ["cat-file", "--batch=%(objectsize)"], small.map((n) => `:${n}\n`).join(""));
  const files: { path: string; text: string }[] = [];
  let off = 0;
  for (const path of small) {
    const nl = out.indexOf(10, off);
    const size = Number(out.toString("latin1", off, nl));
    files.push({ path, text: out.toString("utf8", nl + 1, nl + 1 + size) });
    off = nl + 1 + size + 1;
  }
  return { files, tooLarge, temps };
}

export default withExamples(
  defineCommand({
    meta: {
      name: "scan",
      description: "Find secrets already in memory/ (exit 1 when some remain); --fix redacts them",
    },
    args: {
      fix: {
        type: "boolean",
        description: "Replace each secret by [redacted] (atomic writes), then refresh the index",
      },
      staged: {
        type: "boolean",
        description: `Check the files staged under this repository's ${TEAM_FOLDER}/ (exit 1 on a secret: the pre-commit hook \`coffer link --git-hook\` installs)`,
      },
      ...jsonArg,
    },
    run({ args }) {
      if (args.staged) {
        if (args.fix) throw usageError("--staged only checks; edit the file, then git add it again");
        const { files, tooLarge, temps } = stagedTeamFiles(process.cwd());
        const r = scanTexts(files);
        if (r.secrets || tooLarge.length || temps.length) process.exitCode = 1;
        if (args.json) return printJson({ ...r, too_large: tooLarge, temp_files: temps });
        for (const f of r.findings) console.log(`${f.path}: ${describeFound(f.found)}`);
        for (const t of tooLarge)
          consola.error(
            `${t} is over ${SCAN_MAX_BYTES / 1024 / 1024} MiB: too large to be a team entry, not committed`,
          );
        for (const t of temps)
          consola.error(
            `${t} is the temp file of a Coffer write that was killed, not a team file: not committed. git rm --cached ${t}, then coffer doctor removes it`,
          );
        if (r.secrets)
          consola.error(
            `commit refused: ${plural(r.secrets, "secret")} in ${plural(r.findings.length, "staged file")} under ${TEAM_FOLDER}/. Take them out of the file (or replace them by [redacted]), git add it again and commit.`,
          );
        else if (!tooLarge.length && !temps.length)
          notice(
            files.length
              ? `No secrets in ${plural(files.length, `staged ${TEAM_FOLDER}/ file`)}.`
              : `Nothing staged under ${TEAM_FOLDER}/.`,
          );
        return;
      }
      const r = scanMemory({ fix: Boolean(args.fix) });
      // fixed files are re-read by the index now, so search stops returning the old text
      if (args.fix && r.findings.length) cliStore({ freshness: "deep" });
      if (r.secrets && !args.fix) process.exitCode = 1;
      if (args.json) return printJson(r);
      for (const f of r.findings) console.log(`${f.path}: ${describeFound(f.found)}${f.fixed ? " — redacted" : ""}`);
      for (const s of r.skipped) notice(`skipped ${s} (not a regular file, or over 4 MiB)`);
      if (!r.secrets) return consola.success(`No secrets in ${plural(r.files, "file")}.`);
      const where = `${plural(r.secrets, "secret")} in ${plural(r.findings.length, "file")}`;
      if (args.fix) consola.success(`Redacted ${where}.`);
      else consola.warn(`Found ${where}. Run \`coffer scan --fix\` to redact them in place.`);
    },
  }),
  [
    "coffer scan",
    "coffer scan --fix",
    "coffer scan --json",
    "coffer scan --staged               # in a repository: what a commit would add under .coffer/",
  ],
);
