/**
 * Temp files of atomic writes whose writer was killed mid-write (`.<name>.<pid>.<n>.tmp`, its pid
 * no longer running): never entries, only litter. In a team lane they are worse than litter: a
 * `git add .coffer` stages them (issue 36). `coffer reindex` and `coffer doctor` remove them from
 * every scope on disk, every team lane this machine knows, and `state/` (the trash's notes); a
 * promote tidies its lane first.
 */
import { join } from "node:path";
import { paths } from "../lib/paths";
import { assertRealDirs } from "../lib/small-file";
import { entriesDir, removeDeadTemps, scopeDir, scopesOnDisk } from "./indexer";
import { knownTeams, TEAM_FOLDER, teamWorktree } from "./scope";
import type { Store } from "./store";
import { trashFolders } from "./trash";

/** A team lane's folders Coffer writes in (`.coffer/`, its `entries/`), when none on the way is a link. */
export function teamLaneFolders(worktree: string): string[] {
  const out: string[] = [];
  for (const dir of [join(worktree, TEAM_FOLDER), join(worktree, TEAM_FOLDER, "entries")]) {
    try {
      assertRealDirs(worktree, dir);
      out.push(dir);
    } catch {} // missing, or a link: nothing of Coffer's there
  }
  return out;
}

/** Remove every dead writer's temp file Coffer may have left; returns how many went, per folder. */
export function removeDeadTempFiles(store: Store): { dir: string; removed: number }[] {
  const dirs: string[] = [];
  for (const scope of scopesOnDisk()) dirs.push(entriesDir(scope), scopeDir(scope), join(scopeDir(scope), "handoff"));
  const teams = new Set([...(store.team ? [store.team.key] : []), ...knownTeams().map(([key]) => key)]);
  for (const key of teams) {
    const worktree = teamWorktree(key);
    if (worktree) dirs.push(...teamLaneFolders(worktree));
  }
  dirs.push(paths.state(), ...trashFolders());
  const out: { dir: string; removed: number }[] = [];
  for (const dir of new Set(dirs)) {
    const removed = removeDeadTemps(dir);
    if (removed) out.push({ dir, removed });
  }
  return out;
}
