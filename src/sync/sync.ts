/**
 * `coffer sync`: memory/ is a plain git repository. One sync = commit this machine's changes,
 * pull --rebase (as fetch + rebase, so the incoming range is known), resolve the few conflicts
 * Coffer's layout allows, reindex the scopes that changed, push.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { machineName } from "../lib/platform";
import { isoNow } from "../lib/time";
import { describeFound } from "../scrub/index";
import { filesWithSecrets } from "../scrub/scan";
import { audit } from "../scrub/write";
import { closeStore, openStore, refresh } from "../store";
import {
  fallbackIdentity,
  type Git,
  GitError,
  type GitResult,
  gitAt,
  gitMessage,
  isSyncRepo,
  memoryDir,
  redactUrl,
  remoteProblem,
} from "./git";
import {
  GIT_CONTROL_PATHSPECS,
  GITIGNORE,
  isGitControlPath,
  isSyncedPath,
  type PathKind,
  pathKind,
  scopeOfPath,
} from "./layout";
import { acquireSyncLock } from "./lock";
import { mergeEntry, mergeHandoff, mergeRules } from "./merge";
import {
  type Change,
  commitMessage,
  countByScope,
  describeCounts,
  parseNameStatus,
  type ScopeCounts,
  scopeLabel,
} from "./message";
import { writeSyncState } from "./state";

export const SYNC_STEPS = ["commit", "fetch", "merge", "reindex", "push"] as const;
export type SyncStep = (typeof SYNC_STEPS)[number];

export type SyncOptions = {
  /** `--init <remote>`: make memory/ a repository (or adopt the clone there) pointing at this remote. */
  init?: string;
  /** Allow git to prompt for credentials (a CLI on a terminal); auto sync never prompts. */
  interactive?: boolean;
  onStep?: (step: SyncStep, index: number, total: number) => void;
  /** One-line notices (recovered an interrupted rebase, remote URL changed). */
  notice?: (message: string) => void;
  /** Network timeout per fetch/push (default 120 s). */
  networkTimeoutMs?: number;
};

export type ConflictNote = { path: string; scope?: string; kind: PathKind; resolution: string; sibling?: string };

export type SyncReport = {
  remote: string;
  branch: string;
  /** This run made memory/ a repository or pointed it at a new remote. */
  initialized: boolean;
  committed: { commit: string; scopes: ScopeCounts[] } | null;
  /** What the push gave the remote, per scope. */
  sent: { scopes: ScopeCounts[] };
  /** What changed in this machine's memory/ from the remote (after conflict resolution). */
  received: { commits: number; scopes: ScopeCounts[] };
  pushed: number;
  reindexed: number;
  conflicts: ConflictNote[];
  /** Tracked files that are not memory content, taken out of git (kept on disk). */
  untracked: string[];
  /**
   * Symbolic links and other non-regular files (submodules), and files git interprets
   * (`.gitattributes`, `.gitmodules`, `.mailmap`, a nested `.gitignore`), found in memory/, from the
   * remote or made here: deleted from disk and from the repository, never followed, never sent.
   */
  removed: string[];
};

/** A local path given to --init is stored absolute, so it works from memory/ too. */
export function normalizeRemoteArg(url: string): string {
  const u = url.trim();
  if (!u)
    throw new CofferError(
      "--init needs a remote URL",
      2,
      "e.g. coffer sync --init git@github.com:me/coffer-memory.git",
    );
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(u) || /^[^/]+:/.test(u)) return u;
  return resolve(u);
}

function remoteError(
  kind: ReturnType<typeof remoteProblem>,
  url: string,
  r: GitResult,
  pending: string,
  retry = "coffer sync",
): CofferError {
  const shown = redactUrl(url);
  const what =
    kind === "missing"
      ? `the remote ${shown} does not exist or is not a git repository`
      : kind === "unreachable"
        ? `could not reach the remote ${shown} (no network?)`
        : kind === "auth"
          ? `the remote ${shown} refused access (credentials?)`
          : `could not talk to the remote ${shown}`;
  return new CofferError(
    `sync failed: ${what}: ${gitMessage(r)}`,
    1,
    `Nothing was lost: ${pending} Check the URL and network, then run \`${retry}\` again${retry === "coffer sync" ? " (or `coffer sync --init <remote-url>` to use another remote)" : ""}.`,
  );
}

/** Run one sync under the sync lock. Throws a CofferError a user can act on; records the outcome in state/. */
export async function runSync(opts: SyncOptions = {}): Promise<SyncReport> {
  const dir = memoryDir();
  mkdirSync(dir, { recursive: true });
  const lock = await acquireSyncLock();
  const attempt = isoNow();
  try {
    const git = gitAt(dir, { interactive: opts.interactive, onChild: lock.child });
    // A sync killed mid-commit leaves git's own lock behind; only ours could have held it (its
    // git, still running after the kill, was stopped when the lock was broken).
    if (lock.orphan)
      opts.notice?.(
        `an interrupted sync had left git running (pid ${lock.orphan}); it ended (or was stopped) before this sync went on`,
      );
    const gitLock = join(dir, ".git", "index.lock");
    if (lock.brokeStale && existsSync(gitLock)) {
      rmSync(gitLock, { force: true });
      opts.notice?.("removed memory/.git/index.lock left by an interrupted sync");
    }
    const report = await syncLocked(git, opts);
    const summary = summarize(report);
    writeSyncState({ last_attempt: attempt, last_sync: isoNow(), last_error: null, last_summary: summary });
    audit({
      event: "memory_synced",
      actor: "user",
      remote: report.remote,
      branch: report.branch,
      committed: report.committed ? 1 : 0,
      received_commits: report.received.commits,
      pushed: report.pushed,
      conflicts: report.conflicts.length,
    });
    return report;
  } catch (err) {
    writeSyncState({ last_attempt: attempt, last_error: (err as Error).message });
    throw err;
  } finally {
    lock.release();
  }
}

/** The remote this sync talks to and the branches on both sides. */
type Remote = { url: string; branch: string; local: string; initialized: boolean };

/** What one sync passes between its steps. */
type SyncRun = Remote & { git: Git; timeoutMs: number; step: (s: SyncStep) => void };

/** What the fetch/merge/push rounds gather for the report. */
type Exchange = Pick<SyncReport, "sent" | "received" | "pushed" | "reindexed" | "conflicts">;

async function syncLocked(git: Git, opts: SyncOptions): Promise<SyncReport> {
  const timeoutMs = opts.networkTimeoutMs ?? 120_000;
  const notice = opts.notice ?? (() => {});
  const step = (s: SyncStep) => opts.onStep?.(s, SYNC_STEPS.indexOf(s), SYNC_STEPS.length);
  const created = await ensureRepository(git, Boolean(opts.init));
  git.extendEnv(await fallbackIdentity(git));
  await recoverInterruptedRebase(git, notice);
  const remote = opts.init
    ? await initRemote(git, opts.init, { created, timeoutMs, notice })
    : await configuredRemote(git);
  const run: SyncRun = { ...remote, git, timeoutMs, step };

  // 1. Commit this machine's pending changes.
  step("commit");
  const removed: string[] = [];
  const { committed, untracked } = await commitPending(git, removed);
  const ex = await exchange(run, untracked, removed);
  return {
    remote: redactUrl(remote.url),
    branch: remote.branch,
    initialized: remote.initialized,
    committed,
    sent: ex.sent,
    received: ex.received,
    pushed: ex.pushed,
    reindexed: ex.reindexed,
    conflicts: ex.conflicts,
    untracked,
    removed,
  };
}

/** memory/ must be a repository; `--init` makes it one. Returns whether this run created it. */
async function ensureRepository(git: Git, init: boolean): Promise<boolean> {
  if (isSyncRepo(git.dir)) return false;
  if (!init) {
    throw new CofferError(
      "sync is not set up: memory/ is not a git repository yet",
      1,
      "Run `coffer sync --init <remote-url>` once (an empty repository, or the one your other machines sync to).",
    );
  }
  await git.run(["init", "-q"]);
  return true;
}

/**
 * `--init <url>`: point origin at the remote (probing it first; a failed --init leaves memory/
 * as it was), adopt the remote's default branch for a new repository, track it, write .gitignore.
 */
async function initRemote(
  git: Git,
  initArg: string,
  o: { created: boolean; timeoutMs: number; notice: (m: string) => void },
): Promise<Remote> {
  const dir = git.dir;
  let local = await localBranch(git);
  const url = normalizeRemoteArg(initArg);
  const before = await git.run(["remote", "get-url", "origin"], { check: false });
  const previous = before.code === 0 ? before.stdout.trim() : undefined;
  if (previous === undefined) await git.run(["remote", "add", "origin", url]);
  else if (previous !== url) await git.run(["remote", "set-url", "origin", url]);
  const probe = await git.run(["ls-remote", "--symref", "origin"], { check: false, timeoutMs: o.timeoutMs });
  if (probe.code !== 0) {
    // Leave memory/ as it was: a failed --init creates nothing.
    if (o.created) rmSync(join(dir, ".git"), { recursive: true, force: true });
    else if (previous === undefined) await git.run(["remote", "remove", "origin"], { check: false });
    else if (previous !== url) await git.run(["remote", "set-url", "origin", previous], { check: false });
    throw remoteError(
      remoteProblem(probe),
      url,
      probe,
      "memory/ is unchanged.",
      `coffer sync --init ${redactUrl(url)}`,
    );
  }
  if (previous !== undefined && previous !== url)
    o.notice(`remote origin changed from ${redactUrl(previous)} to ${redactUrl(url)}`);
  const branch = remoteDefaultBranch(probe.stdout) ?? local;
  if (local !== branch && !(await headSha(git))) {
    // A new repository takes the remote's branch name.
    await git.run(["symbolic-ref", "HEAD", `refs/heads/${branch}`]);
    local = branch;
  }
  await git.run(["config", `branch.${local}.remote`, "origin"]);
  await git.run(["config", `branch.${local}.merge`, `refs/heads/${branch}`]);
  restoreGitignore(dir);
  return { url, branch, local, initialized: o.created || previous !== url };
}

/** A plain sync: the origin and upstream branch set up by an earlier --init. */
async function configuredRemote(git: Git): Promise<Remote> {
  const local = await localBranch(git);
  const r = await git.run(["remote", "get-url", "origin"], { check: false });
  if (r.code !== 0) {
    throw new CofferError(
      "sync is not set up: memory/ has no remote named origin",
      1,
      "Run `coffer sync --init <remote-url>` to choose one.",
    );
  }
  const merge = (await git.run(["config", "--get", `branch.${local}.merge`], { check: false })).stdout.trim();
  restoreGitignore(git.dir);
  return { url: r.stdout.trim(), branch: merge.replace(/^refs\/heads\//, "") || local, local, initialized: false };
}

/** Commit everything pending in memory/ (stray non-memory files are untracked first). */
async function commitPending(
  git: Git,
  removed: string[],
): Promise<{ committed: SyncReport["committed"]; untracked: string[] }> {
  const untracked = await untrackStrays(git);
  removed.push(...(await dropUnsafe(git)));
  await git.run(["add", "-A"]);
  removed.push(...(await dropUnsafe(git)));
  const staged = parseNameStatus((await git.run(["diff", "--cached", "--name-status", "--no-renames", "-z"])).stdout);
  if (!staged.length && !untracked.length) return { committed: null, untracked };
  // memory leaves the machine here: a file holding a secret is never committed
  const leaking = filesWithSecrets(
    git.dir,
    staged.filter((c) => c.status !== "D").map((c) => c.path),
  );
  if (leaking.length) {
    await git.run(["reset", "-q"], { check: false });
    throw new CofferError(
      `not committing: ${leaking.map((f) => `memory/${f.path} holds ${describeFound(f.found)}`).join("; ")}`,
      1,
      "Run `coffer scan --fix` to replace them with [redacted], then sync again.",
    );
  }
  await git.run(["commit", "-q", "--no-edit", "-F", "-"], { input: commitMessage(staged, machineName()) });
  return { committed: { commit: (await headSha(git))!, scopes: countByScope(staged) }, untracked };
}

/** The "nothing was lost" half of a network error: what stays local until the next sync. */
async function pendingNote(git: Git, branch: string): Promise<string> {
  const n = await aheadCount(git, branch);
  return n > 0
    ? `${n} local commit${n === 1 ? " is" : "s are"} kept in memory/ and will be pushed by the next sync.`
    : "memory/ is unchanged.";
}

/**
 * Fetch, rebase onto the remote, reindex what arrived, push; again (up to 3 more rounds) when
 * someone pushed between our fetch and our push. Stray files that arrive are untracked into `untracked`.
 */
async function exchange(run: SyncRun, untracked: string[], removed: string[]): Promise<Exchange> {
  const ex: Exchange = {
    sent: { scopes: [] },
    received: { commits: 0, scopes: [] },
    pushed: 0,
    reindexed: 0,
    conflicts: [],
  };
  const upstream = `refs/remotes/origin/${run.branch}`;
  for (let round = 0; ; round++) {
    // 2. Fetch.
    run.step("fetch");
    const fetched = await run.git.run(["fetch", "-q", "--no-tags", "origin"], {
      check: false,
      timeoutMs: run.timeoutMs,
    });
    if (fetched.code !== 0)
      throw remoteError(remoteProblem(fetched), run.url, fetched, await pendingNote(run.git, run.branch));
    const hasUpstream = await integrateRemote(run, upstream, ex, removed);
    untracked.push(...(await untrackArrivedStrays(run.git)));
    if ((await pushOnce(run, hasUpstream ? upstream : undefined, round, ex)) === "done") return ex;
  }
}

/** 3. Rebase this machine's commits onto the remote; 4. reindex the scopes whose entries changed. */
async function integrateRemote(run: SyncRun, upstream: string, ex: Exchange, removed: string[]): Promise<boolean> {
  const { git } = run;
  run.step("merge");
  const before = await headSha(git);
  const hasUpstream = await refExists(git, upstream);
  if (hasUpstream) {
    if (!before) {
      ex.received.commits += Number((await git.run(["rev-list", "--count", upstream])).stdout.trim()) || 0;
      await git.run(["checkout", "-q", "-B", run.local, upstream]);
    } else if (!(await isAncestor(git, upstream, before))) {
      ex.received.commits +=
        Number((await git.run(["rev-list", "--count", `${before}..${upstream}`])).stdout.trim()) || 0;
      await rebaseOnto(git, upstream, ex.conflicts);
    }
  }
  // Links, non-regular and git-interpreted files from the remote go before anything reads what
  // arrived; a root .gitignore the remote changed is Coffer's again.
  const dropped = await dropUnsafe(git);
  const changes = dropped.map((path): Change => ({ status: "D", path }));
  if (restoreGitignore(git.dir)) {
    await git.run(["add", "--", ".gitignore"]);
    changes.push({ status: "M", path: ".gitignore" });
  }
  if (changes.length) {
    removed.push(...dropped);
    await git.run(["commit", "-q", "--no-edit", "-F", "-"], { input: commitMessage(changes, machineName()) });
  }
  const after = await headSha(git);
  if (after && after !== before) {
    const changed = await changesBetween(git, before, after);
    ex.received.scopes = mergeCounts(ex.received.scopes, countByScope(changed));
    run.step("reindex");
    ex.reindexed += reindexScopes(
      new Set(changed.filter((c) => pathKind(c.path) === "entry").map((c) => scopeOfPath(c.path)!)),
    );
  }
  return hasUpstream;
}

/** The remote may carry files that are not memory content (pushed by hand or by another tool). */
async function untrackArrivedStrays(git: Git): Promise<string[]> {
  const arrived = await untrackStrays(git);
  if (arrived.length) {
    await git.run(["commit", "-q", "--no-edit", "-F", "-"], {
      input: commitMessage(
        arrived.map((path): Change => ({ status: "D", path })),
        machineName(),
      ),
    });
  }
  return arrived;
}

/** 5. Push what is ahead of the remote; "retry" when the remote moved since our fetch. */
async function pushOnce(
  run: SyncRun,
  upstream: string | undefined,
  round: number,
  ex: Exchange,
): Promise<"done" | "retry"> {
  run.step("push");
  const ahead = await aheadCount(run.git, run.branch);
  if (ahead === 0) return "done";
  const outgoing = await changesBetween(run.git, upstream, "HEAD");
  const push = await run.git.run(["push", "-q", "origin", `HEAD:refs/heads/${run.branch}`], {
    check: false,
    timeoutMs: run.timeoutMs,
  });
  if (push.code === 0) {
    ex.pushed += ahead;
    ex.sent = { scopes: countByScope(outgoing) };
    return "done";
  }
  // Someone pushed between our fetch and our push: fetch and rebase again.
  if (round < 3 && /\[rejected\]|non-fast-forward|fetch first|stale info/i.test(push.stderr)) return "retry";
  throw remoteError(remoteProblem(push), run.url, push, await pendingNote(run.git, run.branch));
}

/** Files that differ between two commits (every file of `to` when there is no `from`). */
async function changesBetween(git: Git, from: string | undefined, to: string): Promise<Change[]> {
  if (from) return parseNameStatus((await git.run(["diff", "--name-status", "--no-renames", "-z", from, to])).stdout);
  return (await git.run(["ls-tree", "-r", "--name-only", "-z", to])).stdout
    .split("\0")
    .filter(Boolean)
    .map((path): Change => ({ status: "A", path }));
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

async function localBranch(git: Git): Promise<string> {
  const r = await git.run(["symbolic-ref", "--short", "-q", "HEAD"], { check: false });
  const name = r.stdout.trim();
  if (r.code !== 0 || !name) {
    throw new CofferError(
      `memory/ is not on a branch (detached HEAD) in ${git.dir}`,
      1,
      `Check out the branch it syncs, e.g. git -C ${git.dir} checkout main, and run coffer sync again.`,
    );
  }
  return name;
}

/** The remote's default branch from `ls-remote --symref`, or undefined for an empty remote. */
export function remoteDefaultBranch(lsRemote: string): string | undefined {
  const heads: string[] = [];
  let head: string | undefined;
  for (const line of lsRemote.split("\n")) {
    const sym = /^ref: refs\/heads\/(\S+)\s+HEAD$/.exec(line);
    if (sym) {
      head = sym[1];
      continue;
    }
    const ref = /^[0-9a-f]+\s+refs\/heads\/(\S+)$/.exec(line);
    if (ref) heads.push(ref[1]!);
  }
  if (head && heads.includes(head)) return head;
  return ["main", "master"].find((b) => heads.includes(b)) ?? heads[0];
}

async function headSha(git: Git): Promise<string | undefined> {
  const r = await git.run(["rev-parse", "-q", "--verify", "HEAD^{commit}"], { check: false });
  return r.code === 0 ? r.stdout.trim() : undefined;
}

async function refExists(git: Git, ref: string): Promise<boolean> {
  return (await git.run(["rev-parse", "-q", "--verify", ref], { check: false })).code === 0;
}

async function isAncestor(git: Git, a: string, b: string): Promise<boolean> {
  return (await git.run(["merge-base", "--is-ancestor", a, b], { check: false })).code === 0;
}

/** Commits on HEAD that the remote branch does not have (all of them when it does not exist yet). */
export async function aheadCount(git: Git, branch: string): Promise<number> {
  const head = await headSha(git);
  if (!head) return 0;
  const upstream = `refs/remotes/origin/${branch}`;
  const range = (await refExists(git, upstream)) ? `${upstream}..HEAD` : "HEAD";
  return Number((await git.run(["rev-list", "--count", range])).stdout.trim()) || 0;
}

function mergeCounts(a: ScopeCounts[], b: ScopeCounts[]): ScopeCounts[] {
  const by = new Map(a.map((s) => [s.scope, { ...s }]));
  for (const s of b) {
    const t = by.get(s.scope);
    if (!t) {
      by.set(s.scope, { ...s });
      continue;
    }
    t.added += s.added;
    t.edited += s.edited;
    t.removed += s.removed;
    t.handoffs += s.handoffs;
    t.rules ||= s.rules;
    t.project ||= s.project;
  }
  return [...by.values()];
}

/** A rebase left half-done (the process was killed): go back to this machine's commits. */
async function recoverInterruptedRebase(git: Git, notice: (m: string) => void): Promise<void> {
  if (!existsSync(join(git.dir, ".git", "rebase-merge")) && !existsSync(join(git.dir, ".git", "rebase-apply"))) return;
  await git.run(["rebase", "--abort"], { check: false });
  notice("an earlier sync was interrupted mid-merge; went back to this machine's last commit and synced again");
}

/** Files git tracks that are not memory content (an adopted clone, an older .gitignore): untrack, keep on disk. */
async function untrackStrays(git: Git): Promise<string[]> {
  if (!(await headSha(git))) return [];
  const tracked = (await git.run(["ls-files", "-z"])).stdout.split("\0").filter(Boolean);
  const strays = tracked.filter((p) => !isSyncedPath(p));
  for (let i = 0; i < strays.length; i += 200) {
    await git.run(["rm", "-q", "--cached", "--ignore-unmatch", "--", ...strays.slice(i, i + 200)]);
  }
  return strays;
}

/** memory/.gitignore is Coffer's allow-list: rewritten when missing or changed. True when it was. */
function restoreGitignore(dir: string): boolean {
  if (readText(join(dir, ".gitignore")) === GITIGNORE) return false;
  writeFileAtomic(join(dir, ".gitignore"), GITIGNORE);
  return true;
}

/**
 * Everything in git's index that is not a regular file (mode 120000: a symbolic link, 160000: a
 * submodule), and every file git interprets (`.gitattributes`, `.gitmodules`, `.mailmap`, a nested
 * `.gitignore`), tracked or only on disk: removed from the index and from disk without following
 * it, so nothing in memory/ ever points outside it or changes what git does with the entries.
 * Returns the paths removed; the caller commits when it must.
 */
async function dropUnsafe(git: Git): Promise<string[]> {
  const out = (await git.run(["ls-files", "-s", "-z"])).stdout;
  const bad: string[] = [];
  for (const rec of out.split("\0").filter(Boolean)) {
    const m = /^(\d+) [0-9a-f]+ \d\t(.*)$/s.exec(rec);
    if (m && m[1] !== "100644" && m[1] !== "100755" && !bad.includes(m[2]!)) bad.push(m[2]!);
  }
  const control = (await git.run(["ls-files", "-z", "--cached", "--others", "--", ...GIT_CONTROL_PATHSPECS])).stdout;
  for (const p of control.split("\0")) if (isGitControlPath(p) && !bad.includes(p)) bad.push(p);
  if (!bad.length) return [];
  for (let i = 0; i < bad.length; i += 200)
    await git.run(["rm", "-q", "--cached", "--ignore-unmatch", "--", ...bad.slice(i, i + 200)]);
  for (const p of bad) {
    const full = join(git.dir, p);
    try {
      // rmSync on a link removes the link itself, never what it points at.
      if (lstatSync(full).isDirectory()) rmSync(full, { recursive: true, force: true });
      else rmSync(full, { force: true });
    } catch {}
  }
  return bad;
}

function reindexScopes(scopes: Set<string>): number {
  if (!scopes.size) return 0;
  const store = openStore({ freshness: "none", notice: () => {} });
  try {
    return refresh(store, "deep", [...scopes]);
  } finally {
    closeStore(store);
  }
}

// ---------------------------------------------------------------------------------------------
// Rebase with Coffer's conflict rules

async function rebaseOnto(git: Git, upstream: string, conflicts: ConflictNote[]): Promise<void> {
  let r = await git.run(["rebase", "-q", upstream], { check: false });
  for (let guard = 0; r.code !== 0; guard++) {
    const unmerged = await unmergedPaths(git);
    if (!unmerged.size || guard > 10_000) {
      await git.run(["rebase", "--abort"], { check: false });
      throw new GitError(
        ["rebase"],
        r,
        `sync could not merge the remote's changes: ${gitMessage(r)}`,
        "Nothing was lost: memory/ is back at this machine's last commit. Run `git -C ~/.coffer/memory status` to look, or report this.",
      );
    }
    try {
      for (const [path, stages] of unmerged) conflicts.push(await resolvePath(git, path, stages));
    } catch (err) {
      await git.run(["rebase", "--abort"], { check: false });
      throw err;
    }
    r = await git.run(["rebase", "--continue"], { check: false });
  }
}

type Stages = { base?: string; remote?: string; local?: string };

async function unmergedPaths(git: Git): Promise<Map<string, Stages>> {
  const out = (await git.run(["ls-files", "-u", "-z"])).stdout;
  const map = new Map<string, Stages>();
  for (const rec of out.split("\0").filter(Boolean)) {
    const m = /^\d+ ([0-9a-f]+) ([123])\t(.*)$/s.exec(rec);
    if (!m) continue;
    const s = map.get(m[3]!) ?? {};
    if (m[2] === "1") s.base = m[1];
    else if (m[2] === "2") s.remote = m[1];
    else s.local = m[1];
    map.set(m[3]!, s);
  }
  return map;
}

async function blob(git: Git, sha: string | undefined): Promise<string | undefined> {
  return sha ? (await git.run(["cat-file", "blob", sha])).stdout : undefined;
}

/** Decide one conflicted path, write the result into the working tree and the index. */
async function resolvePath(git: Git, path: string, stages: Stages): Promise<ConflictNote> {
  const kind = pathKind(path);
  const scope = scopeOfPath(path);
  const where = scope ? scopeLabel(scope) : "memory/";
  const [base, remote, local] = await Promise.all([
    blob(git, stages.base),
    blob(git, stages.remote),
    blob(git, stages.local),
  ]);
  const write = async (p: string, text: string) => {
    writeFileAtomic(join(git.dir, p), text);
    await git.run(["add", "--", p]);
  };
  const note = (resolution: string, sibling?: string): ConflictNote => ({
    path,
    scope,
    kind,
    resolution,
    ...(sibling ? { sibling } : {}),
  });
  const oneSide = remote ?? local;
  if (oneSide === undefined) {
    rmSync(join(git.dir, path), { force: true });
    await git.run(["rm", "-q", "--cached", "--ignore-unmatch", "--", path]);
    return note("removed on both machines");
  }

  if (kind === "entry") {
    const id = path.split("/").pop()!.slice(0, -3);
    if (remote === undefined || local === undefined) {
      await write(path, oneSide);
      const [gone, kept] = remote === undefined ? ["the remote", "this machine"] : ["this machine", "the remote"];
      return note(`entry ${id} in ${where} was forgotten on ${gone} and edited on ${kept}; kept the edited version`);
    }
    const m = mergeEntry(id, remote, local);
    await write(path, m.text);
    const from = m.winner === "local" ? "this machine" : "the remote";
    if (!m.sibling)
      return note(
        `entry ${id} in ${where} was edited on both machines with the same text; kept the newer one (from ${from})`,
      );
    const siblingPath = path.replace(/[^/]+\.md$/, `${m.sibling.id}.md`);
    await write(siblingPath, m.sibling.text);
    const other = m.winner === "local" ? "the remote's" : "this machine's";
    return note(
      `entry ${id} in ${where} was edited on both machines: kept the newer version (from ${from}) and saved ${other} as entry ${m.sibling.id} (superseded, never injected; compare with \`coffer show ${handle(m.sibling.id)}\`, resolve with \`coffer forget ${handle(m.sibling.id)}\`)`,
      m.sibling.id,
    );
  }
  if (kind === "rules") {
    if (remote === undefined || local === undefined) {
      await write(path, oneSide);
      return note(`rules of ${where} were deleted on one machine and changed on the other; kept the changed rules`);
    }
    const m = mergeRules(base, remote, local);
    await write(path, m.text);
    return note(
      `rules of ${where} changed on both machines: kept both sides' bullets (${m.fromLocal} from this machine added to the remote's, duplicates dropped) — check them with \`coffer rules show\``,
    );
  }
  if (kind === "handoff") {
    if (remote === undefined || local === undefined) {
      await write(path, oneSide);
      return note(`handoff ${path.split("/").pop()} in ${where}: kept the version that still exists`);
    }
    const m = mergeHandoff(remote, local);
    await write(path, m.text);
    return note(
      `handoff ${path.split("/").pop()} in ${where} changed on both machines: kept the newer one (from ${m.winner === "local" ? "this machine" : "the remote"})`,
    );
  }
  if (kind === "gitignore") {
    await write(path, GITIGNORE);
    return note("memory/.gitignore differed; kept Coffer's");
  }
  await write(path, oneSide);
  return note(
    kind === "project"
      ? `project info of ${where} differed; kept the remote's`
      : `${path} differed; kept the remote's version`,
  );
}

// ---------------------------------------------------------------------------------------------

/** One paragraph for people: what was sent, what came in, what was resolved. */
export function summarize(r: SyncReport): string {
  const parts: string[] = [];
  parts.push(r.sent.scopes.length ? `sent ${r.sent.scopes.map(describeCounts).join("; ")}` : "nothing new to send");
  parts.push(
    r.received.scopes.length
      ? `received ${r.received.scopes.map(describeCounts).join("; ")}`
      : "nothing new from the remote",
  );
  parts.push(r.pushed ? `pushed ${r.pushed} commit${r.pushed === 1 ? "" : "s"}` : "nothing to push");
  if (r.reindexed) parts.push(`reindexed ${r.reindexed} entr${r.reindexed === 1 ? "y" : "ies"}`);
  if (r.conflicts.length) parts.push(`${r.conflicts.length} conflict${r.conflicts.length === 1 ? "" : "s"} resolved`);
  return parts.join("; ");
}
