/**
 * Staleness (issue 30): an entry's anchors (store/anchors.ts) checked against its project's working
 * tree and manifests. The result is kept in the index (`entries.stale`, reasons as JSON) so the hook
 * only reads it; `coffer stale`, serve's background pass (in a child process, off the server's
 * event loop) and `coffer doctor` run the check. Only a project scope whose checkout is on this
 * machine is checked, never the global scope. A person's "keep" (state/stale.json) silences an
 * entry's current reasons until an anchor changes again.
 *
 * Bounded work (issue 36): a checkout's tree is walked once per check (its project and team lane
 * share it), each distinct glob is compiled and answered once, against only the files that could
 * match it (a literal folder prefix is a range of the sorted list; a literal name or extension an
 * index), and a check stops at its time budget: the entries it did not reach keep what the last
 * check found and come first in the next one (`resume` in state/stale.json).
 */
import { join } from "node:path";
import { writeFileAtomic } from "../../lib/atomic";
import { sha256 } from "../../lib/hash";
import { paths } from "../../lib/paths";
import { readSmallText } from "../../lib/small-file";
import { dbOf } from "../db";
import { GLOBAL, isAbsoluteDir, isTeamKey, resolveProject, type ScopeKey, teamKeyFor } from "../scope";
import type { Store } from "../store";
import { type Anchor, parseStale, type StaleReason } from "./anchors";
import { type ProjectFacts, projectFacts } from "./project-facts";

export type StaleEntry = { id: string; scope: ScopeKey; title: string; reasons: StaleReason[]; kept: StaleReason[] };

export type StaleReport = {
  scope: ScopeKey;
  root: string;
  checked: number;
  stale: StaleEntry[];
  /** Entries whose every reason a person kept. */
  kept: number;
  /** Anchored entries the time budget left for the next check (they keep what the last one found). */
  unchecked: number;
};

/** How long one check (`coffer stale`, doctor, serve's background pass) may take before it stops. */
export const STALE_BUDGET_MS = 10_000;

/**
 * Machine-local: keeps (entry -> anchor -> fingerprint of the reason kept), the checkouts checked,
 * and per scope the row a check stopped after when its time ran out (the next one starts there).
 */
type StaleState = {
  keep: Record<string, Record<string, string>>;
  roots: Record<string, string>;
  resume?: Record<string, number>;
};

const stateFile = () => join(paths.state(), "stale.json");

function readState(): StaleState {
  const obj = (x: unknown) => (x && typeof x === "object" ? x : {});
  try {
    const v = JSON.parse(readSmallText(stateFile(), 8 * 1024 * 1024) ?? "");
    return { keep: obj(v?.keep), roots: obj(v?.roots), resume: obj(v?.resume) } as StaleState;
  } catch {
    return { keep: {}, roots: {}, resume: {} };
  }
}

/**
 * Apply changes to the state as it is on disk now: a check that ran for seconds (in serve's child
 * process) never writes back a keep made meanwhile in the web UI.
 */
function updateState(changes: ((s: StaleState) => void)[]): void {
  if (!changes.length) return;
  const s = readState();
  for (const change of changes) change(s);
  if (s.resume && !Object.keys(s.resume).length) delete s.resume;
  writeFileAtomic(stateFile(), `${JSON.stringify(s, null, 2)}\n`);
}

const anchorKey = (a: Anchor) => `${a.k}:${a.v}`;
const fingerprint = (r: StaleReason) => sha256(`${r.anchor}\0${r.why}\0${r.moved ?? ""}`).slice(0, 16);

const TEST_DIR = /(^|\/)(test|tests|__tests__|spec|specs|fixtures)\//;

/** Characters that make a glob segment more than literal text (Bun.Glob's syntax, escapes included). */
const GLOB_META = /[*?[\]{}!\\]/;

/**
 * The files of one checkout, indexed so that a glob is matched only against the files that could
 * match it. `tests` counts the glob matches run (the work a check did).
 */
export type TreeIndex = {
  /** Does any file match `glob`? undefined when it is no glob Bun can read. Answered once per glob. */
  holds(glob: string): boolean | undefined;
  /** The files called `name`, anywhere in the tree. */
  named(name: string): string[];
  tests: number;
};

/** A candidate list past this many names or files narrows nothing worth its cost. */
const NARROW_MAX = 4096;

/**
 * The index: the files sorted (a glob's literal folder prefix is a range), the files under each
 * path segment name (a literal segment anywhere in the glob, a folder named after a `**` too), by
 * extension, and a trigram index of the segment names (a literal run of 3+ characters inside a
 * segment with wildcards, such as `-42-` in `*-42-*.ts`). A glob is matched against the smallest
 * of these candidate lists, never against files that cannot match it.
 */
export function treeIndex(files: string[]): TreeIndex {
  const sorted = [...files].sort();
  /** segment name -> indexes (into `sorted`) of the files with that segment, at any depth */
  const bySegment = new Map<string, number[]>();
  const byExt = new Map<string, number[]>();
  const push = (map: Map<string, number[]>, key: string, i: number) => {
    const list = map.get(key);
    if (!list) map.set(key, [i]);
    else if (list[list.length - 1] !== i) list.push(i);
  };
  sorted.forEach((f, i) => {
    const segs = f.split("/");
    for (const seg of segs) push(bySegment, seg, i);
    const name = segs[segs.length - 1]!;
    const dot = name.lastIndexOf(".");
    if (dot >= 0) push(byExt, name.slice(dot + 1), i);
  });
  let trigrams: Map<string, string[]> | undefined;
  /** The segment names holding `chunk`; undefined when its rarest trigram has `limit` names or more (no narrower). */
  const namesHolding = (chunk: string, limit: number): string[] | undefined => {
    if (!trigrams) {
      trigrams = new Map();
      for (const name of bySegment.keys())
        for (const t of new Set(Array.from({ length: Math.max(0, name.length - 2) }, (_, i) => name.slice(i, i + 3)))) {
          const list = trigrams.get(t);
          if (list) list.push(name);
          else trigrams.set(t, [name]);
        }
    }
    let fewest: string[] | undefined;
    for (let i = 0; i + 3 <= chunk.length; i++) {
      const list = trigrams.get(chunk.slice(i, i + 3)) ?? [];
      if (!fewest || list.length < fewest.length) fewest = list;
    }
    if (!fewest || fewest.length >= limit) return undefined;
    return fewest.filter((n) => n.includes(chunk));
  };
  const filesOf = (names: string[]): number[] | undefined => {
    const out = new Set<number>();
    for (const n of names) for (const i of bySegment.get(n) ?? []) out.add(i);
    return out.size <= NARROW_MAX ? [...out] : undefined;
  };
  const lowerBound = (key: string) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  /** The files a glob could match: the smallest candidate list its literal parts give. */
  const candidates = (glob: string): string[] => {
    // an escape, a negation or braces across folders ({a,b/c}): nothing literal to narrow with
    if (glob.includes("\\") || glob.startsWith("!") || /\{[^}]*\/[^}]*\}/.test(glob)) return sorted;
    const segs = glob.split("/");
    let prefix = "";
    for (const seg of segs.slice(0, -1)) {
      if (GLOB_META.test(seg)) break;
      prefix += `${seg}/`;
    }
    const lo = prefix ? lowerBound(prefix) : 0;
    const hi = prefix ? lowerBound(`${prefix}\uffff`) : sorted.length;
    let best: number[] | undefined;
    const consider = (list: number[] | undefined) => {
      if (list && (!best || list.length < best.length)) best = list;
    };
    const wild: string[] = [];
    for (const seg of segs) {
      if (seg === "" || seg === "." || seg === "..") continue;
      if (GLOB_META.test(seg)) wild.push(seg);
      else consider(bySegment.get(seg) ?? []);
    }
    const tail = /\.([^.*?[\]{}!\\/]+)$/.exec(segs[segs.length - 1]!);
    if (tail) consider(byExt.get(tail[1]!) ?? []);
    for (const seg of wild) {
      const limit = Math.min(NARROW_MAX, best ? best.length : Number.POSITIVE_INFINITY, hi - lo);
      if (limit <= 1) break;
      // the longest literal run outside brackets and braces
      const runs = seg.replace(/\[[^\]]*\]|\{[^}]*\}/g, "*").split(/[*?[\]{}!]+/);
      const run = runs.reduce((a, b) => (b.length > a.length ? b : a), "");
      const names = run.length >= 3 ? namesHolding(run, limit) : undefined;
      if (names) consider(filesOf(names));
    }
    if (!best || best.length >= hi - lo) return sorted.slice(lo, hi);
    return best.map((i) => sorted[i]!).filter((f) => f.startsWith(prefix));
  };
  const answers = new Map<string, boolean | undefined>();
  const index: TreeIndex = {
    tests: 0,
    named: (name) =>
      (bySegment.get(name) ?? []).map((i) => sorted[i]!).filter((f) => f.endsWith(`/${name}`) || f === name),
    holds(glob) {
      if (answers.has(glob)) return answers.get(glob);
      let compiled: Bun.Glob | undefined;
      try {
        compiled = new Bun.Glob(glob);
      } catch {}
      let answer: boolean | undefined;
      if (compiled) {
        answer = false;
        for (const f of candidates(glob)) {
          index.tests++;
          if (compiled.match(f)) {
            answer = true;
            break;
          }
        }
      }
      answers.set(glob, answer);
      return answer;
    },
  };
  return index;
}

/**
 * One checkout as a check sees it: its facts and its files' index, shared by its project and team
 * lane. `hadFolder`: did this repository's history ever have top-level folder `name` (a path under a
 * vanished folder is ours only then)?
 */
export type Checkout = { facts: ProjectFacts; index(): TreeIndex | undefined; hadFolder(name: string): boolean };

/** At most this many history look-ups per check (one per distinct vanished top folder), each this long at most. */
const HISTORY_CALLS = 4;
const HISTORY_TIMEOUT_MS = 2000;

/**
 * Does the repository at `root` have `name` in its history (`git log -1 -- name`)? Off the hook path
 * (stale checks only); literal pathspecs, no pager, no repository discovery above `root`. False
 * when git is absent, slow or says no.
 */
function inHistory(root: string, name: string): boolean {
  const git = Bun.which("git", { PATH: process.env.PATH ?? "" });
  if (!git) return false;
  try {
    const p = Bun.spawnSync(
      [git, "-c", "core.fsmonitor=false", "--no-pager", "log", "-1", "--format=%H", "--no-renames", "--", name],
      {
        cwd: root,
        env: {
          // never a repository other than root's (an inherited GIT_DIR, GIT_WORK_TREE...)
          ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_"))),
          GIT_LITERAL_PATHSPECS: "1",
          GIT_CEILING_DIRECTORIES: join(root, ".."),
          LC_ALL: "C",
        },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "ignore",
        timeout: HISTORY_TIMEOUT_MS,
      },
    );
    return p.exitCode === 0 && /^[0-9a-f]{40,64}\s*$/.test(p.stdout.toString());
  } catch {
    return false;
  }
}

export function checkoutOf(root: string): Checkout {
  const facts = projectFacts(root);
  let index: TreeIndex | undefined | null = null;
  const had = new Map<string, boolean>();
  return {
    facts,
    hadFolder(name) {
      let answer = had.get(name);
      if (answer === undefined) {
        answer = had.size < HISTORY_CALLS && inHistory(root, name);
        had.set(name, answer);
      }
      return answer;
    },
    index() {
      if (index === null) {
        const files = facts.files();
        index = files ? treeIndex(files) : undefined;
      }
      return index;
    },
  };
}

/**
 * A missing file's likely new place: among the tree's files with its name, the one sharing the
 * longest tail of its path (`source/core/as-promise/index.ts` -> `source/as-promise/index.ts`);
 * a single file of that name counts too, a test file only for a test file. None when two tie.
 */
function movedTo(checkout: Checkout, rel: string): string | undefined {
  const segs = rel.split("/");
  const name = segs[segs.length - 1]!;
  if (!name.includes(".")) return undefined;
  const inTests = TEST_DIR.test(rel);
  const hits = (checkout.index()?.named(name) ?? []).filter((f) => inTests || !TEST_DIR.test(f));
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

/** Why `a` no longer holds in the checkout's tree, or undefined when it holds or cannot be told. */
function checkAnchor(a: Anchor, checkout: Checkout, seen: (a: Anchor) => boolean): StaleReason | undefined {
  const anchor = anchorKey(a);
  const { facts } = checkout;
  switch (a.k) {
    case "glob": {
      const literal = a.v.split("/").filter((s) => !/[*?{[]/.test(s));
      if (literal.length && facts.ignored(literal[0]!)) return undefined;
      if (checkout.index()?.holds(a.v) !== false) return undefined;
      return { anchor, why: `${a.v} matches no file` };
    }
    case "path": {
      // Never past a link: a link is there as itself (whatever it points at, in the checkout or
      // out of it), and a path through a linked folder is not judged, so a check never tells
      // whether something outside the checkout exists.
      const state = facts.at(a.v);
      if (state === "behind-link" || state === "outside") return undefined;
      if (facts.ignored(a.v) || state !== "missing") return undefined;
      const segs = a.v.split("/");
      // a path whose top folder is not here names another repository (or a subproject), unless this
      // repository's history had that folder: then it was ours and is gone
      if (segs.length > 1 && !facts.isDir(segs[0]!) && !checkout.hadFolder(segs[0]!)) return undefined;
      if (a.weak && !facts.isDir(segs.slice(0, -1).join("/"))) return undefined;
      const moved = movedTo(checkout, a.v);
      return moved ? { anchor, why: `${a.v} is gone`, moved } : { anchor, why: `${a.v} is gone` };
    }
    case "script": {
      const scripts = facts.scripts();
      if (!scripts || scripts.has(a.v)) return undefined;
      if (a.weak && !seen(a)) return undefined;
      return { anchor, why: `script ${a.v} is no longer in package.json` };
    }
    case "target": {
      const targets = facts.targets();
      if (!targets || targets.has(a.v)) return undefined;
      if (a.weak && !seen(a)) return undefined;
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
 * Check the anchored entries of project scope `scope` against the checkout at `root`, store the
 * reasons in the index, and remember the checkout for serve's background pass. Stops at `deadline`
 * (epoch ms) after at least one entry: the rest keep what the last check found and come first next
 * time. `checkout` shares one walk of the tree between the project and its team lane.
 */
export function checkStale(
  store: object,
  scope: ScopeKey,
  root: string,
  opts: { checkout?: Checkout; deadline?: number } = {},
): StaleReport {
  if (scope === GLOBAL) return { scope, root, checked: 0, stale: [], kept: 0, unchecked: 0 };
  const db = dbOf(store);
  const checkout = opts.checkout ?? checkoutOf(root);
  const deadline = opts.deadline ?? Number.POSITIVE_INFINITY;
  const { facts } = checkout;
  const all = db
    .query(
      "SELECT rowid, id, title, anchors, stale FROM entries WHERE scope = ? AND anchors != '[]' AND status = '' ORDER BY rowid",
    )
    .all(scope) as Row[];
  const state = readState();
  // where the last check ran out of time: the entries after it first
  const after = state.resume?.[scope] ?? 0;
  const rows = [...all.filter((r) => r.rowid > after), ...all.filter((r) => r.rowid <= after)];
  const seenRows = new Set(
    (db.query("SELECT id, anchor FROM anchor_seen WHERE scope = ?").all(scope) as { id: string; anchor: string }[]).map(
      (r) => `${r.id}\0${r.anchor}`,
    ),
  );
  /** A weak command or dependency listed now: from here on its absence is a reason. */
  const present = (a: Anchor) => listedNow(facts, a);
  const changes: ((s: StaleState) => void)[] = [];
  if (!isTeamKey(scope) && state.roots[scope] !== root)
    changes.push((s) => {
      s.roots[scope] = root;
    });
  const report: StaleReport = { scope, root, checked: 0, stale: [], kept: 0, unchecked: 0 };
  const updates: { rowid: number; stale: string }[] = [];
  const newlySeen: { id: string; anchor: string }[] = [];
  let last: number | undefined;
  let outOfTime = false;
  for (const row of rows) {
    let anchors: Anchor[] = [];
    try {
      anchors = JSON.parse(row.anchors);
    } catch {}
    const reasons: StaleReason[] = [];
    const seen: { id: string; anchor: string }[] = [];
    for (const a of anchors) {
      // out of time: this entry and the rest wait for the next check (the first one always runs)
      outOfTime = report.checked > 0 && Date.now() > deadline;
      if (outOfTime) break;
      const r = checkAnchor(a, checkout, (x) => seenRows.has(`${row.id}\0${anchorKey(x)}`));
      if (r) reasons.push(r);
      else if (a.weak && a.k !== "path" && present(a) && !seenRows.has(`${row.id}\0${anchorKey(a)}`))
        seen.push({ id: row.id, anchor: anchorKey(a) });
    }
    if (outOfTime) break;
    report.checked++;
    last = row.rowid;
    newlySeen.push(...seen);
    // a keep holds while the anchor's reason is the one kept; any other state of the anchor ends it
    const keyOf = `${scope}/${row.id}`;
    const keep = state.keep[keyOf];
    const open: StaleReason[] = [];
    const kept: StaleReason[] = [];
    if (keep) {
      const now = new Map(reasons.map((r) => [r.anchor, fingerprint(r)]));
      const ended = Object.entries(keep).filter(([anchor, fp]) => now.get(anchor) !== fp);
      if (ended.length)
        changes.push((s) => {
          const current = s.keep[keyOf];
          if (!current) return;
          for (const [anchor, fp] of ended) if (current[anchor] === fp) delete current[anchor];
          if (!Object.keys(current).length) delete s.keep[keyOf];
        });
    }
    for (const r of reasons) (keep?.[r.anchor] === fingerprint(r) ? kept : open).push(r);
    const stale = open.length ? JSON.stringify(open) : "";
    if (stale !== row.stale) updates.push({ rowid: row.rowid, stale });
    if (open.length) report.stale.push({ id: row.id, scope, title: row.title, reasons: open, kept });
    else if (kept.length) report.kept++;
  }
  report.unchecked = rows.length - report.checked;
  if (report.unchecked)
    changes.push((s) => {
      s.resume = { ...s.resume, [scope]: last ?? after };
    });
  else if (state.resume?.[scope] !== undefined)
    changes.push((s) => {
      if (s.resume) delete s.resume[scope];
    });
  if (updates.length || newlySeen.length)
    db.transaction(() => {
      const set = db.query("UPDATE entries SET stale = ? WHERE rowid = ?");
      for (const u of updates) set.run(u.stale, u.rowid);
      const add = db.query("INSERT OR IGNORE INTO anchor_seen(scope, id, anchor) VALUES(?,?,?)");
      for (const x of newlySeen) add.run(scope, x.id, x.anchor);
    }).immediate();
  updateState(changes);
  return report;
}

/** Does the checkout list this command or dependency now (a manifest, package.json's scripts, the Makefile)? */
function listedNow(facts: ProjectFacts, a: Anchor): boolean {
  const set =
    a.k === "dep" ? facts.deps() : a.k === "script" ? facts.scripts() : a.k === "target" ? facts.targets() : undefined;
  return set?.has(a.v) ?? false;
}

/**
 * At write time, an entry's weak anchors (a backticked dependency, `make x` or `yarn x` in prose)
 * that its checkout lists now count as seen, as a check would have marked them: "Tests use `jest`"
 * written while jest is a devDependency is stale once jest leaves, even when no check ran between
 * the write and the removal (issue 37 bug 11). Reads manifests only (no tree walk, no git); only
 * for this checkout's own project scope or team lane.
 */
export function seenAtWrite(store: Store, scope: ScopeKey, id: string): void {
  const root = store.project?.worktree;
  if (!root || (scope !== store.project?.id && scope !== teamKeyFor(root))) return;
  const db = dbOf(store);
  const row = db.query("SELECT anchors FROM entries WHERE scope = ? AND id = ?").get(scope, id) as {
    anchors: string;
  } | null;
  let anchors: Anchor[] = [];
  try {
    anchors = JSON.parse(row?.anchors ?? "[]");
  } catch {}
  const weak = anchors.filter((a) => a.weak && a.k !== "path");
  if (!weak.length) return;
  const facts = projectFacts(root);
  const listed = weak.filter((a) => listedNow(facts, a));
  if (!listed.length) return;
  const add = db.query("INSERT OR IGNORE INTO anchor_seen(scope, id, anchor) VALUES(?,?,?)");
  db.transaction(() => {
    for (const a of listed) add.run(scope, id, anchorKey(a));
  }).immediate();
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
  const key = `${scope}/${id}`;
  updateState([
    (state) => {
      state.keep[key] = {
        ...(state.keep[key] ?? {}),
        ...Object.fromEntries(reasons.map((r) => [r.anchor, fingerprint(r)])),
      };
    },
  ]);
  db.query("UPDATE entries SET stale = '' WHERE rowid = ?").run(row.rowid);
  return reasons;
}

/** Checkouts a staleness check ran in (project id -> path): what serve's background pass checks again. */
export function checkedRoots(): Record<string, string> {
  return readState().roots;
}

/**
 * Check a checkout: its project scope's entries and its team lane's (`.coffer/entries`), as one
 * report, over one walk of its tree.
 */
function checkCheckout(store: Store, scope: ScopeKey, worktree: string, deadline: number): StaleReport {
  const checkout = checkoutOf(worktree);
  const report = checkStale(store, scope, worktree, { checkout, deadline });
  const team = checkStale(store, teamKeyFor(worktree), worktree, { checkout, deadline });
  return {
    ...report,
    checked: report.checked + team.checked,
    stale: [...report.stale, ...team.stale],
    kept: report.kept + team.kept,
    unchecked: report.unchecked + team.unchecked,
  };
}

/** Check the store's current project (the checkout the command runs in); undefined outside a repository. */
export function checkProjectStale(store: Store, budgetMs = STALE_BUDGET_MS): StaleReport | undefined {
  const p = store.project;
  if (!p?.worktree) return undefined;
  return checkCheckout(store, p.id, p.worktree, Date.now() + budgetMs);
}

/**
 * Check the store's project and every project a check ran in before whose checkout is still here
 * and still the same project (serve's background pass, doctor); a checkout that moved or vanished
 * is skipped, never judged. `cwds` adds the projects of those directories (the web UI's "Check
 * now" passes the hooks' directories); `only` limits the check to one project scope.
 */
export function checkKnownProjects(
  store: Store,
  opts: { cwds?: string[]; only?: ScopeKey; budgetMs?: number } = {},
): StaleReport[] {
  const out: StaleReport[] = [];
  const done = new Set<ScopeKey>();
  // one budget for them all
  const deadline = Date.now() + (opts.budgetMs ?? STALE_BUDGET_MS);
  const run = (scope: ScopeKey, root: string) => {
    if (done.has(scope) || scope === GLOBAL || isTeamKey(scope) || (opts.only && scope !== opts.only)) return;
    done.add(scope);
    out.push(checkCheckout(store, scope, root, deadline));
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
