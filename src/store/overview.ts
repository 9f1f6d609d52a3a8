/**
 * Every scope on disk with its counts and activity (the web UI's projects and health pages), a team
 * entry not committed yet, and the handoffs saved per branch.
 */
import { lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { paths } from "../lib/paths";
import { dbOf } from "./db";
import { notInIndex } from "./git-files";
import { readMemoryFile, scopeDir, scopesOnDisk } from "./indexer";
import { GLOBAL, knownTeams, resolveProject, type ScopeKey, TEAM_FOLDER, teamWorktree } from "./scope";
import { projectMeta, refresh, type Store, withHealing } from "./store";

export type ScopeInfo = {
  scope: ScopeKey;
  label: string;
  origin: string | null;
  entries: number;
  last_activity: string | null;
  rules_chars: number;
  handoffs: number;
};

function mtimeIso(file: string): string | null {
  try {
    return new Date(statSync(file).mtimeMs).toISOString().replace(/\.\d{3}Z$/, "Z");
  } catch {
    return null;
  }
}

function handoffFiles(scope: ScopeKey): string[] {
  if (scope === GLOBAL) return [];
  try {
    return readdirSync(join(paths.projectScope(scope), "handoff"))
      .filter((n) => n.endsWith(".md") && !n.startsWith("."))
      .map((n) => join(paths.projectScope(scope), "handoff", n));
  } catch {
    return [];
  }
}

/** Every scope on disk (global first, then projects by last activity) with counts and activity. */
/**
 * Every scope a person can browse: global, each project under memory/, and each team lane this
 * machine has read whose checkout still holds a real `.coffer/` folder.
 */
export function browsableScopes(): ScopeKey[] {
  const lanes = knownTeams().filter(([, worktree]) => {
    try {
      return lstatSync(join(worktree, TEAM_FOLDER)).isDirectory();
    } catch {
      return false;
    }
  });
  return [...scopesOnDisk(), ...lanes.map(([key]) => key)];
}

/**
 * The ids among `ids` of a team lane whose files git would call untracked or modified (not
 * committed yet): read from the checkout's `.git/index`, never by spawning git.
 */
export function uncommittedInTeam(key: ScopeKey, ids: string[]): Set<string> {
  const worktree = teamWorktree(key);
  const project = worktree ? resolveProject(worktree) : undefined;
  if (!worktree || !project || !ids.length) return new Set();
  const rel = (id: string) => `${TEAM_FOLDER}/entries/${id}.md`;
  const out = notInIndex(project.gitDir, worktree, ids.map(rel));
  return new Set(out ? ids.filter((id) => out.has(rel(id))) : []);
}

export function scopeOverview(store: Store): ScopeInfo[] {
  const scopes = browsableScopes();
  if (!scopes.includes(GLOBAL)) scopes.unshift(GLOBAL);
  refresh(store, "shallow", scopes);
  const counts = new Map<string, { n: number; last: string | null }>();
  withHealing(store, () => {
    for (const r of dbOf(store)
      .query("SELECT scope, count(*) AS n, max(updated) AS last FROM entries GROUP BY scope")
      .all() as {
      scope: string;
      n: number;
      last: string | null;
    }[])
      counts.set(r.scope, { n: r.n, last: r.last });
  });
  const out = scopes.map((scope) => {
    const c = counts.get(scope);
    const rules = join(scopeDir(scope), "rules.md");
    const handoffs = handoffFiles(scope);
    const times = [c?.last ?? null, mtimeIso(rules), ...handoffs.map(mtimeIso)].filter((t): t is string => !!t);
    let rulesChars = 0;
    try {
      rulesChars = readMemoryFile(rules).text.length;
    } catch {}
    return {
      scope,
      ...projectMeta(scope),
      entries: c?.n ?? 0,
      last_activity: times.sort().pop() ?? null,
      rules_chars: rulesChars,
      handoffs: handoffs.length,
    };
  });
  return out.sort((a, b) =>
    a.scope === GLOBAL ? -1 : b.scope === GLOBAL ? 1 : (b.last_activity ?? "").localeCompare(a.last_activity ?? ""),
  );
}

export type HandoffInfo = { branch: string | null; file: string; body: string; updated: string | null };

/** Every saved handoff of a project scope (one per branch), newest first. */
export function listHandoffs(scope: ScopeKey): HandoffInfo[] {
  const out: HandoffInfo[] = [];
  for (const file of handoffFiles(scope)) {
    let text: string;
    try {
      text = readMemoryFile(file).text;
    } catch {
      continue;
    }
    const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
    let meta: { branch?: unknown; updated?: unknown } = {};
    try {
      if (m) meta = (Bun.YAML.parse(m[1]!) as typeof meta) ?? {};
    } catch {}
    out.push({
      branch: typeof meta.branch === "string" ? meta.branch : null,
      file: file.slice(paths.memory().length + 1),
      body: (m ? text.slice(m[0].length) : text).trim(),
      updated: meta.updated ? String(meta.updated) : mtimeIso(file),
    });
  }
  return out.sort((a, b) => (b.updated ?? "").localeCompare(a.updated ?? ""));
}
