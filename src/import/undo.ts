/**
 * Taking imports back: `coffer import --undo <id>` removes what one import added (entries, files,
 * rule lines) and gives folded entries their old date back; `withdrawImported` trashes the entries
 * earlier imports made from originals that are gone.
 */
import { lstatSync, readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import { isoNow } from "../lib/time";
import { audit } from "../scrub/write";
import {
  closeStore,
  type Entry,
  entryPath,
  GLOBAL,
  moveToTrash,
  openStore,
  parseEntry,
  readMemoryFile,
  type ScopeKey,
  type Store,
  scopeDir,
  withBulk,
} from "../store";
import { editedSince, listManifests, type Manifest, readManifest, writeManifest } from "./manifest";
import type { ImportSource } from "./types";

/** Entries removed per bulk transaction. */
const CHUNK = 500;

/** One entry an import created, as its manifest recorded it. */
type CreatedRecord = Manifest["created"][number];

/** What became of one entry `withdrawImported` took back: trashed, kept (edited in Coffer since) or already gone. */
export type Withdrawn = { from: string; scope: ScopeKey; id: string; outcome: "trashed" | "edited" | "gone" };

/**
 * Take back the entries earlier imports (not undone) created from originals that `pick` names:
 * each goes to the trash (`coffer restore <id>` brings it back for 30 days) unless it was edited
 * in Coffer since, which keeps it. `skip`: keys already dealt with. A dry run changes nothing.
 */
export function withdrawImported(
  pick: (c: CreatedRecord) => boolean,
  opts: { skip?: Set<string>; dryRun?: boolean; store?: Store; cwd?: string; actor: string },
): Withdrawn[] {
  const picked = new Map<string, CreatedRecord & { from: string }>();
  for (const m of listManifests()) {
    if (m.undone_at) continue;
    for (const c of m.created)
      if (c.from && !opts.skip?.has(c.from) && pick(c)) picked.set(`${c.scope}/${c.id}`, { ...c, from: c.from });
  }
  if (!picked.size) return [];
  const store = opts.store ?? openStore({ cwd: opts.cwd ?? process.cwd(), freshness: "none" });
  const out: Withdrawn[] = [];
  try {
    for (const c of picked.values()) {
      const file = entryPath(c.scope, c.id);
      let entry: Entry;
      try {
        entry = parseEntry(readMemoryFile(file).text, c.id);
        entry.id = c.id;
      } catch {
        out.push({ from: c.from, scope: c.scope, id: c.id, outcome: "gone" });
        continue;
      }
      if (editedSince(c, entry)) {
        out.push({ from: c.from, scope: c.scope, id: c.id, outcome: "edited" });
        continue;
      }
      if (!opts.dryRun) {
        const scopeName = c.scope === GLOBAL ? "global" : c.scope === store.project?.id ? "project" : "other-project";
        moveToTrash(store, { entry, scope: c.scope, scopeName, file }, opts.actor);
      }
      out.push({ from: c.from, scope: c.scope, id: c.id, outcome: "trashed" });
    }
  } finally {
    if (!opts.store) closeStore(store);
  }
  return out;
}

export type UndoReport = {
  import_id: string;
  source: ImportSource;
  removed: number;
  /** Entries the import had created that were already gone. */
  missing: number;
  restored: number;
  files_removed: number;
  /** Files the import created that were edited since: left in place. */
  files_kept: number;
  rule_lines_removed: number;
};

/** Remove a directory that holds only empty directories; true when it went. */
function removeIfEmpty(dir: string): boolean {
  let names: string[];
  try {
    if (!lstatSync(dir).isDirectory()) return false;
    names = readdirSync(dir);
  } catch {
    return false;
  }
  if (!names.every((n) => removeIfEmpty(join(dir, n)))) return false;
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/** Take an import back out: its entries, files and rule lines; folded entries get their old date back. */
export function undoImport(importId: string, opts: { actor?: string; cwd?: string } = {}): UndoReport {
  const id = importId.trim().toUpperCase();
  const m = readManifest(id);
  if (!m) {
    throw new CofferError(
      `no import with id "${importId}"`,
      1,
      "List imports with `coffer import --list`; the id is printed at the end of every import.",
    );
  }
  if (m.undone_at) throw new CofferError(`import ${m.import_id} was already undone at ${m.undone_at}`);
  const report: UndoReport = {
    import_id: m.import_id,
    source: m.source,
    removed: 0,
    missing: 0,
    restored: 0,
    files_removed: 0,
    files_kept: 0,
    rule_lines_removed: 0,
  };
  const store = openStore({ cwd: opts.cwd ?? process.cwd(), freshness: "none" });
  try {
    for (let i = 0; i < m.created.length; i += CHUNK) {
      withBulk(store, true, (w) => {
        for (const c of m.created.slice(i, i + CHUNK)) {
          if (w.remove(c.scope, c.id)) report.removed++;
          else report.missing++;
        }
      });
    }
    removeTemps(m.created);
    withBulk(store, true, (w) => {
      // Entries an edited original rewrote get their earlier version back, unless changed since.
      for (const u of [...(m.updated ?? [])].reverse()) {
        try {
          const e = parseEntry(readMemoryFile(entryPath(u.scope, u.id)).text, u.id);
          if (e.updated !== u.updated) continue;
          w.write(u.scope, { ...u.before, id: u.id });
          report.restored++;
        } catch {}
      }
      for (const g of [...m.merged].reverse()) {
        try {
          const e = parseEntry(readMemoryFile(entryPath(g.scope, g.id)).text, g.id);
          e.id = g.id;
          if (e.updated !== g.after) continue; // changed since: leave it
          w.write(g.scope, { ...e, updated: g.before });
          report.restored++;
        } catch {}
      }
    });
  } finally {
    closeStore(store);
  }
  for (const line of m.rule_lines) {
    const file = join(scopeDir(line.scope), "rules.md");
    try {
      const lines = readMemoryFile(file).text.split("\n");
      const at = lines.lastIndexOf(line.line);
      if (at < 0) continue;
      lines.splice(at, 1);
      writeFileAtomic(file, lines.join("\n"));
      report.rule_lines_removed++;
    } catch {}
  }
  // Handoffs and rules before project.md, so a project directory the import created can go too.
  for (const f of [...m.files].sort((a, b) => (a.name === "project.md" ? 1 : 0) - (b.name === "project.md" ? 1 : 0))) {
    const file = join(scopeDir(f.scope), f.name);
    try {
      if (sha256(readMemoryFile(file).text) !== f.sha256) {
        report.files_kept++;
        continue;
      }
    } catch {
      continue;
    }
    if (f.name === "project.md" && hasOtherContent(f.scope)) {
      report.files_kept++;
      continue;
    }
    rmSync(file, { force: true });
    report.files_removed++;
  }
  // A project directory left with nothing but empty folders was the import's: it goes too, so
  // `coffer status` does not list an empty project by its bare id.
  for (const scope of new Set([...m.created.map((c) => c.scope), ...m.files.map((f) => f.scope)]))
    if (scope !== GLOBAL) removeIfEmpty(scopeDir(scope));
  writeManifest({ ...m, undone_at: isoNow() });
  audit({
    event: "import_undone",
    id: m.import_id,
    source: m.source,
    actor: opts.actor ?? "user",
    removed: report.removed,
    restored: report.restored,
    files: report.files_removed,
  });
  return report;
}

/** Temp files an import killed mid-write left for entries it was creating (`.<id>.md.<pid>….tmp`). */
function removeTemps(created: Manifest["created"]): void {
  const byScope = new Map<ScopeKey, Set<string>>();
  for (const c of created) {
    const ids = byScope.get(c.scope) ?? new Set<string>();
    ids.add(c.id);
    byScope.set(c.scope, ids);
  }
  for (const [scope, ids] of byScope) {
    const dir = dirname(entryPath(scope, "x"));
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {}
    for (const n of names) {
      const m = /^\.([0-9A-Z]{26})\.md\..*\.tmp$/.exec(n);
      if (m && ids.has(m[1]!)) rmSync(join(dir, n), { force: true });
    }
  }
}

/** True when a project directory holds anything besides project.md (entries, rules, handoffs). */
function hasOtherContent(scope: ScopeKey): boolean {
  const dir = scopeDir(scope);
  const walk = (d: string): boolean => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return false;
    }
    for (const n of names) {
      const p = join(d, n);
      if (p === join(dir, "project.md")) continue;
      try {
        if (statSync(p).isDirectory()) {
          if (walk(p)) return true;
        } else return true;
      } catch {}
    }
    return false;
  };
  return walk(dir);
}
