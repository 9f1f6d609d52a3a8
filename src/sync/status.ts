/** Sync state for `coffer status`: local git reads only (ahead/behind as of the last fetch), never the network. */
import { type Git, gitAt, isSyncRepo, memoryDir, redactUrl } from "./git";
import { readSyncState } from "./state";

export type SyncStatus = {
  summary: string;
  enabled: boolean;
  remote?: string | null;
  branch?: string | null;
  /** Local commits the remote does not have yet. */
  ahead?: number;
  /** Remote commits (as of the last fetch) not merged here yet. */
  behind?: number;
  /** Files changed in memory/ since the last commit. */
  uncommitted?: number;
  last_sync?: string | null;
  last_attempt?: string | null;
  last_error?: string | null;
};

function out(git: Git, args: string[]): string | undefined {
  const r = git.runSync(args);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** Sync state for `coffer status` ("off" with a hint when sync is not set up). */
export function syncStatus(): SyncStatus | undefined {
  const dir = memoryDir();
  const state = readSyncState();
  const base = {
    last_sync: state.last_sync ?? null,
    last_attempt: state.last_attempt ?? null,
    last_error: state.last_error ?? null,
  };
  if (!isSyncRepo(dir)) {
    return { summary: "off (turn it on with `coffer sync --init <remote-url>`)", enabled: false, ...base };
  }
  let git: Git;
  try {
    git = gitAt(dir);
  } catch {
    return { summary: "on, but git was not found on PATH (install git to sync)", enabled: true, ...base };
  }
  const url = out(git, ["remote", "get-url", "origin"]);
  const local = out(git, ["symbolic-ref", "--short", "-q", "HEAD"]);
  const merge = local ? out(git, ["config", "--get", `branch.${local}.merge`]) : undefined;
  const branch = merge?.replace(/^refs\/heads\//, "") || local || null;
  const hasHead = out(git, ["rev-parse", "-q", "--verify", "HEAD^{commit}"]) !== undefined;
  let ahead = 0;
  let behind = 0;
  if (hasHead && branch) {
    const upstream = `refs/remotes/origin/${branch}`;
    if (out(git, ["rev-parse", "-q", "--verify", upstream]) !== undefined) {
      const counts = out(git, ["rev-list", "--left-right", "--count", `HEAD...${upstream}`])
        ?.split(/\s+/)
        .map(Number);
      ahead = counts?.[0] ?? 0;
      behind = counts?.[1] ?? 0;
    } else {
      ahead = Number(out(git, ["rev-list", "--count", "HEAD"]) ?? 0);
    }
  }
  const uncommitted = (out(git, ["status", "--porcelain", "-z", "--untracked-files=all"]) ?? "")
    .split("\0")
    .filter(Boolean).length;

  const parts = [
    `on, ${url ? `origin ${redactUrl(url)}` : "no remote (run `coffer sync --init <remote-url>`)"}${branch ? ` (${branch})` : ""}`,
  ];
  parts.push(`${ahead} ahead, ${behind} behind as of the last fetch`);
  if (uncommitted) parts.push(`${uncommitted} change${uncommitted === 1 ? "" : "s"} not synced yet`);
  parts.push(state.last_sync ? `last sync ${state.last_sync}` : "never synced");
  // A successful sync clears last_error.
  if (state.last_error) {
    parts.push(`last attempt${state.last_attempt ? ` ${state.last_attempt}` : ""} failed: ${state.last_error}`);
  }
  return {
    summary: parts.join("; "),
    enabled: true,
    remote: url ? redactUrl(url) : null,
    branch,
    ahead,
    behind,
    uncommitted,
    ...base,
  };
}
