/**
 * Staleness (issue 30): an entry's anchors (store/anchors.ts) checked against its project's working
 * tree and manifests. The result is kept in the index (`entries.stale`, reasons as JSON) so the hook
 * only reads it; `coffer stale`, serve's background pass and `coffer doctor` run the check. Only a
 * project scope whose checkout is on this machine is checked, never the global scope. A person's
 * "keep" (state/stale.json) silences an entry's current reasons until an anchor changes again.
 */
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { sha256 } from "../lib/hash";
import { paths } from "../lib/paths";
import { type ProjectFacts, projectFacts } from "../lib/project-facts";
import { readSmallText } from "../lib/small-file";
import { type Anchor, parseStale, type StaleReason } from "./anchors";
import { dbOf } from "./db";
import { GLOBAL, isAbsoluteDir, isTeamKey, resolveProject, type ScopeKey, teamKeyFor } from "./scope";
import type { Store } from "./store";

export type StaleEntry = { id: string; scope: ScopeKey; title: string; reasons: StaleReason[]; kept: StaleReason[] };

export type StaleReport = {
  scope: ScopeKey;
  root: string;
  checked: number;
  stale: StaleEntry[];
  /** Entries whose every reason a person kept. */
  kept: number;
};

/** Machine-local: keeps (entry -> anchor -> fingerprint of the reason kept) and the checkouts checked. */
type StaleState = { keep: Record<string, Record<string, string>>; roots: Record<string, string> };

const stateFile = () => join(paths.state(), "stale.json");

function readState(): StaleState {
  try {
    const v = JSON.parse(readSmallText(stateFile(), 8 * 1024 * 1024) ?? "");
    return {
      keep: v && typeof v.keep === "object" && v.keep ? v.keep : {},
      roots: v && typeof v.roots === "object" && v.roots ? v.roots : {},
    };
  } catch {
    return { keep: {}, roots: {} };
  }
}

function writeState(s: StaleState): void {
  writeFileAtomic(stateFile(), `${JSON.stringify(s, null, 2)}\n`);
}

const anchorKey = (a: Anchor) => `${a.k}:${a.v}`;
const fingerprint = (r: StaleReason) => sha256(`${r.anchor}\0${r.why}\0${r.moved ?? ""}`).slice(0, 16);

const TEST_DIR = /(^|\/)(test|tests|__tests__|spec|specs|fixtures)\//;

/**
 * A missing file's likely new place: among the tree's files with its name, the one sharing the
 * longest tail of its path (`source/core/as-promise/index.ts` -> `source/as-promise/index.ts`);
 * a single file of that name counts too, a test file only for a test file. None when two tie.
 */
function movedTo(facts: ProjectFacts, rel: string): string | undefined {
  const segs = rel.split("/");
  const name = segs[segs.length - 1]!;
  if (!name.includes(".")) return undefined;
  const inTests = TEST_DIR.test(rel);
  const hits = (facts.files() ?? []).filter(
    (f) => (f === name || f.endsWith(`/${name}`)) && (inTests || !TEST_DIR.test(f)),
  );
  const shared = (f: string) => {
    const fs = f.split("/");
    let n = 0;
    while (n < fs.length && n < segs.length && fs[fs.length - 1 - n] === segs[segs.length - 1 - n]) n++;
    return n;
  };
  if (hits.length === 1) return hits[0];
  const best = Math.max(0, ...hits.map(shared));
  const top = hits.filter((f) => shared(f) === best);
  return best >= 2 && top.length === 1 ? top[0] : undefined;
}

const globs = new Map<string, Bun.Glob | null>();
function globOf(g: string): Bun.Glob | null {
  let glob = globs.get(g);
  if (glob === undefined) {
    try {
      glob = new Bun.Glob(g);
    } catch {
      glob = null;
    }
    globs.set(g, glob);
  }
  return glob;
}

/** Why `a` no longer holds in `facts`' tree, or undefined when it holds or cannot be told. */
function checkAnchor(a: Anchor, facts: ProjectFacts, seen: (a: Anchor) => boolean): StaleReason | undefined {
  const anchor = anchorKey(a);
  switch (a.k) {
    case "glob": {
      const literal = a.v.split("/").filter((s) => !/[*?{[]/.test(s));
      if (literal.length && facts.ignored(literal[0]!)) return undefined;
      const glob = globOf(a.v);
      const files = facts.files();
      if (!glob || !files) return undefined;
      if (files.some((f) => glob.match(f))) return undefined;
      return { anchor, why: `${a.v} matches no file` };
    }
    case "path": {
      if (facts.ignored(a.v) || facts.exists(a.v)) return undefined;
      const segs = a.v.split("/");
      // a path whose top folder is not here names another repository (or a subproject): not ours to judge
      if (segs.length > 1 && !facts.isDir(segs[0]!)) return undefined;
      if (a.weak && !facts.isDir(segs.slice(0, -1).join("/"))) return undefined;
      const moved = movedTo(facts, a.v);
      return moved ? { anchor, why: `${a.v} is gone`, moved } : { anchor, why: `${a.v} is gone` };
    }
    case "script": {
      const scripts = facts.scripts();
      if (!scripts || scripts.has(a.v)) return undefined;
      return { anchor, why: `script ${a.v} is no longer in package.json` };
    }
    case "target": {
      const targets = facts.targets();
      if (!targets || targets.has(a.v)) return undefined;
      return { anchor, why: `make target ${a.v} is no longer in the Makefile` };
    }
    case "dep": {
      const deps = facts.deps();
      if (!deps || deps.has(a.v)) return undefined;
      if (a.weak && !seen(a)) return undefined;
      return { anchor, why: `dependency ${a.v} is no longer listed` };
    }
  }
}

type Row = { rowid: number; id: string; title: string; anchors: string; stale: string };

/**
 * Check every anchored entry of project scope `scope` against the checkout at `root`, store the
 * reasons in the index, and remember the checkout for serve's background pass.
 */
export function checkStale(store: object, scope: ScopeKey, root: string): StaleReport {
  if (scope === GLOBAL) return { scope, root, checked: 0, stale: [], kept: 0 };
  const db = dbOf(store);
  const facts = projectFacts(root);
  const rows = db
    .query("SELECT rowid, id, title, anchors, stale FROM entries WHERE scope = ? AND anchors != '[]' AND status = ''")
    .all(scope) as Row[];
  const seenRows = new Set(
    (db.query("SELECT id, anchor FROM anchor_seen WHERE scope = ?").all(scope) as { id: string; anchor: string }[]).map(
      (r) => `${r.id}\0${r.anchor}`,
    ),
  );
  const state = readState();
  let stateChanged = false;
  if (!isTeamKey(scope) && state.roots[scope] !== root) {
    state.roots[scope] = root;
    stateChanged = true;
  }
  const report: StaleReport = { scope, root, checked: rows.length, stale: [], kept: 0 };
  const updates: { rowid: number; stale: string }[] = [];
  const newlySeen: { id: string; anchor: string }[] = [];
  for (const row of rows) {
    let anchors: Anchor[] = [];
    try {
      anchors = JSON.parse(row.anchors);
    } catch {}
    const reasons: StaleReason[] = [];
    for (const a of anchors) {
      const r = checkAnchor(a, facts, (x) => seenRows.has(`${row.id}\0${anchorKey(x)}`));
      if (r) reasons.push(r);
      else if (a.k === "dep" && a.weak && facts.deps()?.has(a.v) && !seenRows.has(`${row.id}\0${anchorKey(a)}`))
        newlySeen.push({ id: row.id, anchor: anchorKey(a) });
    }
    // a keep holds while the anchor's reason is the one kept; any other state of the anchor ends it
    const keyOf = `${scope}/${row.id}`;
    const keep = state.keep[keyOf];
    const open: StaleReason[] = [];
    const kept: StaleReason[] = [];
    if (keep) {
      const now = new Map(reasons.map((r) => [r.anchor, fingerprint(r)]));
      for (const [anchor, fp] of Object.entries(keep))
        if (now.get(anchor) !== fp) {
          delete keep[anchor];
          stateChanged = true;
        }
      if (!Object.keys(keep).length) delete state.keep[keyOf];
    }
    for (const r of reasons) (keep?.[r.anchor] === fingerprint(r) ? kept : open).push(r);
    const stale = open.length ? JSON.stringify(open) : "";
    if (stale !== row.stale) updates.push({ rowid: row.rowid, stale });
    if (open.length) report.stale.push({ id: row.id, scope, title: row.title, reasons: open, kept });
    else if (kept.length) report.kept++;
  }
  if (updates.length || newlySeen.length)
    db.transaction(() => {
      const set = db.query("UPDATE entries SET stale = ? WHERE rowid = ?");
      for (const u of updates) set.run(u.stale, u.rowid);
      const seen = db.query("INSERT OR IGNORE INTO anchor_seen(scope, id, anchor) VALUES(?,?,?)");
      for (const s of newlySeen) seen.run(scope, s.id, s.anchor);
    }).immediate();
  if (stateChanged) writeState(state);
  return report;
}

/** Silence an entry's current reasons (until an anchor changes); returns the reasons kept. */
export function keepStale(store: object, scope: ScopeKey, id: string): StaleReason[] {
  const db = dbOf(store);
  const row = db.query("SELECT rowid, stale FROM entries WHERE scope = ? AND id = ?").get(scope, id) as {
    rowid: number;
    stale: string;
  } | null;
  const reasons = parseStale(row?.stale);
  if (!row || !reasons.length) return [];
  const state = readState();
  const key = `${scope}/${id}`;
  state.keep[key] = {
    ...(state.keep[key] ?? {}),
    ...Object.fromEntries(reasons.map((r) => [r.anchor, fingerprint(r)])),
  };
  writeState(state);
  db.query("UPDATE entries SET stale = '' WHERE rowid = ?").run(row.rowid);
  return reasons;
}

/** Checkouts a staleness check ran in (project id -> path): what serve's background pass checks again. */
export function checkedRoots(): Record<string, string> {
  return readState().roots;
}

/** Check a checkout: its project scope's entries and its team lane's (`.coffer/entries`), as one report. */
function checkCheckout(store: Store, scope: ScopeKey, worktree: string): StaleReport {
  const report = checkStale(store, scope, worktree);
  const team = checkStale(store, teamKeyFor(worktree), worktree);
  return {
    ...report,
    checked: report.checked + team.checked,
    stale: [...report.stale, ...team.stale],
    kept: report.kept + team.kept,
  };
}

/** Check the store's current project (the checkout the command runs in); undefined outside a repository. */
export function checkProjectStale(store: Store): StaleReport | undefined {
  const p = store.project;
  if (!p?.worktree) return undefined;
  return checkCheckout(store, p.id, p.worktree);
}

/**
 * Check the store's project and every project a check ran in before whose checkout is still here
 * and still the same project (serve's background pass, doctor); a checkout that moved or vanished
 * is skipped, never judged. `cwds` adds the projects of those directories (the web UI's "Check
 * now" passes the hooks' directories); `only` limits the check to one project scope.
 */
export function checkKnownProjects(store: Store, opts: { cwds?: string[]; only?: ScopeKey } = {}): StaleReport[] {
  const out: StaleReport[] = [];
  const done = new Set<ScopeKey>();
  const run = (scope: ScopeKey, root: string) => {
    if (done.has(scope) || scope === GLOBAL || isTeamKey(scope) || (opts.only && scope !== opts.only)) return;
    done.add(scope);
    out.push(checkCheckout(store, scope, root));
  };
  if (store.project?.worktree) run(store.project.id, store.project.worktree);
  for (const [scope, root] of Object.entries(checkedRoots())) {
    if (done.has(scope) || (opts.only && scope !== opts.only)) continue;
    const p = resolveProject(root);
    if (p?.id === scope && p.worktree === root) run(scope, root);
  }
  for (const cwd of opts.cwds ?? []) {
    const p = isAbsoluteDir(cwd) ? resolveProject(cwd) : undefined;
    if (p?.worktree) run(p.id, p.worktree);
  }
  return out;
}

export type StaleListed = {
  id: string;
  scope: ScopeKey;
  kind: string;
  title: string;
  updated: string;
  reasons: StaleReason[];
};

/** The stale entries of `scopes` as the last check left them in the index (kept reasons are not there), newest first. */
export function listStale(store: object, scopes: ScopeKey[]): StaleListed[] {
  if (!scopes.length) return [];
  const rows = dbOf(store)
    .query(
      `SELECT id, scope, kind, title, updated, stale FROM entries WHERE stale != '' AND status = '' AND scope IN (${scopes.map(() => "?").join(",")}) ORDER BY updated DESC, id`,
    )
    .all(...scopes) as { id: string; scope: string; kind: string; title: string; updated: string; stale: string }[];
  return rows.map(({ stale, ...r }) => ({ ...r, reasons: parseStale(stale) })).filter((r) => r.reasons.length);
}
