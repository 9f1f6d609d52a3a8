/**
 * Applying an import: every item is scrubbed, fitted to the store's limits, folded into a
 * near-duplicate already in its scope (the store's normalized-text rule) or written as a new
 * entry. An import is one audit record and one manifest (`state/imports/<id>.json`) listing exactly
 * what it added, so `coffer import --undo <id>` can take it back out (undo.ts).
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import { progressBar } from "../lib/progress";
import { pathExists } from "../lib/small-file";
import { storageError } from "../lib/storage-error";
import { isoNow } from "../lib/time";
import { ulid } from "../lib/ulid";
import { describeFound, scrub } from "../scrub";
import { audit } from "../scrub/write";
import {
  type BulkWriter,
  closeStore,
  type Entry,
  ensureProjectFile,
  entryPath,
  GLOBAL,
  normHash,
  openStore,
  type ProjectScope,
  type PutEntry,
  parseEntry,
  parseProjectMeta,
  projectMeta,
  putEntries,
  readMemoryFile,
  refreshScopes,
  type ScopeKey,
  type Store,
  scopeDir,
  withBulk,
} from "../store";
import {
  createdByKey,
  editedSince,
  hasContent,
  importedKeys,
  listManifests,
  type Manifest,
  manifestPath,
  type OriginRecord,
  originIndex,
  textSum,
  writeManifest,
} from "./manifest";
import { type Counter, clean, cut, type Prepared, prepare } from "./prepare";
import type { ImportFile, ImportItem, ImportPlan, ImportSource } from "./types";

type ScopeCount = { scope: ScopeKey; label: string; total: number; kinds: Record<string, number> };

export type ImportReport = {
  import_id: string | null;
  source: ImportSource;
  from: string;
  dry_run: boolean;
  /** Originals the importer found. */
  found: number;
  created: number;
  /** Entries rewritten because their original changed since an earlier import. */
  updated: number;
  /** Folded into an entry already in the store (same normalized text in the same scope). */
  merged: number;
  /** Imported by an earlier run (same original), or the same entry id already present. */
  already: number;
  /** Secrets replaced by [redacted] (and `<private>` spans dropped). */
  redactions: number;
  /** What they were: "2 secrets (github, password)". */
  scrubbed?: string;
  /** Bodies cut to the store's body limit. */
  truncated: number;
  files: { created: number; rules_added: number; kept: number };
  by_scope: ScopeCount[];
  samples: { scope: string; kind: string; title: string; body: string; from?: string }[];
  skipped: { reason: string; count: number }[];
  /** What the importer wants the user to know ("the file holds no memories"). */
  warnings?: string[];
};

/** Items placed per bulk transaction (and written, with the manifest, after each). */
const CHUNK = 500;

/** A project's name for the summary: from the plan, from the project.md the plan carries, or from disk. */
function projectLabel(scope: ScopeKey, project: ProjectScope | undefined, plan: ImportPlan): string {
  if (scope === GLOBAL) return "global";
  if (project) return project.label;
  const carried = plan.files?.find((f) => f.scope === scope && f.name === "project.md");
  if (carried) {
    const label = parseProjectMeta(carried.text, scope).label;
    if (label !== scope) return label;
  }
  return projectMeta(scope).label;
}

export type ApplyOptions = {
  dryRun?: boolean;
  actor?: string;
  cwd?: string;
  notice?: (m: string) => void;
  /** Use this open store (the hook's) instead of opening one. */
  store?: Store;
};

/** Run an import plan against the store (or only count it, with `dryRun`). */
export async function applyImport(plan: ImportPlan, opts: ApplyOptions = {}): Promise<ImportReport> {
  if (opts.store) return await run(opts.store, plan, opts);
  const store = openStore({ cwd: opts.cwd ?? process.cwd(), freshness: "none", notice: opts.notice });
  try {
    return await run(store, plan, opts);
  } finally {
    closeStore(store);
  }
}

/**
 * An original's key as stored (frontmatter `imported_from`, the manifest): as given, or, when it
 * holds a secret (an id that is a token), its prefix and a hash, unique and stable across runs.
 */
export function importKey(key: string): string {
  if (!scrub(key).redactions) return key;
  return `${key.split(":").slice(0, 2).join(":").slice(0, 40)}:sha256-${sha256(key).slice(0, 16)}`;
}

/**
 * One run of an import: its plan and report, what earlier imports brought in, and what this run
 * has placed so far. The manifest is what the run adds (none in a dry run, which writes nothing).
 */
type Run = {
  store: Store;
  plan: ImportPlan;
  report: ImportReport;
  manifest: Manifest | undefined;
  counter: Counter;
  /** Originals already in: brought by an earlier import not undone, or placed by this run. */
  done: Set<string>;
  /** The entry (`scope\0id`) each original's key created, over every import not undone. */
  createdBy: Map<string, string>;
  /** The entry each original (by origin) last became. */
  origins: Map<string, OriginRecord>;
  /** Entries created per scope, for the summary. */
  counts: Map<ScopeKey, ScopeCount>;
  projects: Map<ScopeKey, ProjectScope>;
  /** normalized-text hashes and ids this run already placed, per scope (a dry run writes nothing). */
  seen: Map<string, { id: string; updated: string }>;
  /** Entries this run created (`scope\0id`). */
  placed: Set<string>;
  /** Originals that changed while their entry was changed or removed in Coffer: left alone. */
  leftAlone: number;
};

/** Files one chunk writes, by `scope\0id` (an entry folded into twice is written once). */
type Pending = Map<string, PutEntry>;

async function run(store: Store, plan: ImportPlan, opts: ApplyOptions): Promise<ImportReport> {
  storedKeys(plan);
  const r = startRun(store, plan, !!opts.dryRun);
  await placeItems(r);
  for (const f of plan.files ?? []) placeFile(f, r.report, r.manifest, r.counter);
  noteLeftAlone(r);
  recordImport(r, opts.actor);
  return finishReport(r);
}

/** The originals' keys as they will be stored (importKey). */
function storedKeys(plan: ImportPlan): void {
  for (const item of plan.items) {
    if (item.imported_from) item.imported_from = importKey(item.imported_from);
    if (item.origin) item.origin = importKey(item.origin);
    if (item.earlier_key) item.earlier_key = importKey(item.earlier_key);
  }
}

/** An empty report and manifest, the plan's scopes refreshed, and what earlier imports brought in. */
function startRun(store: Store, plan: ImportPlan, dryRun: boolean): Run {
  const report: ImportReport = {
    import_id: dryRun ? null : ulid(),
    source: plan.source,
    from: plan.from,
    dry_run: dryRun,
    found: plan.items.length,
    created: 0,
    updated: 0,
    merged: 0,
    already: 0,
    redactions: 0,
    truncated: 0,
    files: { created: 0, rules_added: 0, kept: 0 },
    by_scope: [],
    samples: [],
    skipped: plan.skipped,
    ...(plan.warnings?.length ? { warnings: plan.warnings } : {}),
  };
  const manifest: Manifest | undefined = dryRun
    ? undefined
    : {
        import_id: report.import_id!,
        source: plan.source,
        from: plan.from,
        at: isoNow(),
        created: [],
        merged: [],
        folded: [],
        files: [],
        rule_lines: [],
        updated: [],
      };

  const scopes = [...new Set([...plan.items.map((i) => i.scope), ...(plan.files ?? []).map((f) => f.scope)])];
  refreshScopes(store, scopes);

  const manifests = listManifests();
  const projects = new Map<ScopeKey, ProjectScope>();
  for (const i of plan.items) if (i.project) projects.set(i.scope, i.project);
  return {
    store,
    plan,
    report,
    manifest,
    counter: { redactions: 0, truncated: 0, found: new Map() },
    done: importedKeys(manifests),
    createdBy: createdByKey(manifests),
    origins: originIndex(manifests),
    counts: new Map(),
    projects,
    seen: new Map(),
    placed: new Set(),
    leftAlone: 0,
  };
}

/** Nothing added, folded or changed (a re-import, an empty file): no import to list or undo. */
const recorded = (r: Run) => r.manifest && hasContent(r.manifest);

/**
 * Place the items chunk by chunk, each chunk in one bulk transaction; after each, the manifest is
 * written and then the chunk's files, so an interrupted import can still be undone.
 */
async function placeItems(r: Run): Promise<void> {
  const { plan, manifest } = r;
  const bar = progressBar(`Importing from ${plan.source}`, plan.items.length);
  let processed = 0;
  for (let i = 0; i < plan.items.length; i += CHUNK) {
    const chunk = plan.items.slice(i, i + CHUNK);
    const pending: Pending = new Map();
    withBulk(r.store, false, (w) => {
      for (const item of chunk) {
        bar.tick(++processed);
        placeItem(r, w, item, pending);
      }
    });
    if (manifest && recorded(r)) {
      // The manifest names the entries before they exist, so an interrupted import can still be undone.
      try {
        writeManifest(manifest);
        await putEntries(r.store, [...pending.values()]);
      } catch (err) {
        bar.done();
        throw partialImport(err, manifest, plan.items.length);
      }
    }
  }
  bar.done();
}

/**
 * One item: already in (skipped), a changed original (its entry rewritten), a near-duplicate of an
 * entry in its scope (folded into it) or new (created).
 */
function placeItem(r: Run, w: BulkWriter, item: ImportItem, pending: Pending): void {
  const { report } = r;
  if (item.imported_from && r.done.has(item.imported_from)) {
    report.already++;
    return;
  }
  const p = prepare(r.store, r.plan.source, item, r.counter);
  if (!p.entry.body) return;
  const prev = item.origin ? r.origins.get(item.origin) : undefined;
  if (prev && item.origin && item.imported_from) {
    updateFromOrigin(r, p, prev, { origin: item.origin, from: item.imported_from }, pending);
    return;
  }
  const scope = item.scope;
  if (item.id && (r.seen.has(`${scope}\0id\0${p.entry.id}`) || w.has(scope, p.entry.id))) {
    report.already++;
    return;
  }
  const key = `${scope}\0${normHash(p.entry.body)}`;
  // A Coffer export keeps its entries as they were: fold them only into what was there before.
  let dup = item.id ? undefined : r.seen.get(key);
  dup ??= w.findDuplicate(scope, p.entry.body);
  if (dup && item.id && r.placed.has(`${scope}\0${dup.id}`)) dup = undefined;
  // Imported by an earlier Coffer under a key without the content hash: already in when that
  // import created the very entry this text is (a row whose text differs is no duplicate).
  if (dup && item.earlier_key && r.createdBy.get(item.earlier_key) === `${scope}\0${dup.id}`) {
    report.already++;
    if (item.imported_from) r.done.add(item.imported_from);
    return;
  }
  if (dup) foldInto(r, p, dup, key, pending);
  else create(r, p, key, pending);
}

/** The original changed since an earlier import: rewrite the entry it became, unless edited or forgotten in Coffer. */
function updateFromOrigin(
  r: Run,
  p: Prepared,
  prev: OriginRecord,
  keys: { origin: string; from: string },
  pending: Pending,
): void {
  const { manifest } = r;
  r.done.add(keys.from);
  const k = `${prev.scope}\0${prev.id}`;
  let current: Entry | undefined;
  try {
    current = pending.get(k)?.entry ?? parseEntry(readMemoryFile(entryPath(prev.scope, prev.id)).text, prev.id);
    current.id = prev.id;
  } catch {}
  if (!current || editedSince(prev, current)) {
    // Forgotten, or edited in Coffer since: the user's version stays.
    r.leftAlone++;
    manifest?.folded.push(keys.from);
    return;
  }
  r.report.updated++;
  const next: Entry = {
    ...current,
    kind: p.entry.kind,
    title: p.entry.title,
    body: p.entry.body,
    imported_from: keys.from,
    updated: p.entry.updated > current.updated ? p.entry.updated : isoNow(),
  };
  const sum = textSum(next);
  r.origins.set(keys.origin, { scope: prev.scope, id: prev.id, updated: next.updated, from: keys.from, sum });
  if (!manifest) return;
  pending.set(k, { scope: prev.scope, entry: next });
  manifest.updated!.push({
    scope: prev.scope,
    id: prev.id,
    from: keys.from,
    origin: keys.origin,
    updated: next.updated,
    sum,
    before: current,
  });
}

/** A near-duplicate: the store's rule, the existing entry stays and its `updated` moves forward. */
function foldInto(r: Run, p: Prepared, dup: { id: string; updated: string }, key: string, pending: Pending): void {
  const { manifest } = r;
  const { item } = p;
  const scope = item.scope;
  r.report.merged++;
  if (p.entry.updated > dup.updated) {
    if (manifest) {
      const k = `${scope}\0${dup.id}`;
      const queued = pending.get(k);
      if (queued) {
        queued.entry = { ...queued.entry, updated: p.entry.updated };
        queued.text = undefined;
      } else {
        try {
          const existing = parseEntry(readMemoryFile(entryPath(scope, dup.id)).text, dup.id);
          existing.id = dup.id;
          pending.set(k, { scope, entry: { ...existing, updated: p.entry.updated } });
        } catch {}
      }
      if (!r.placed.has(k)) manifest.merged.push({ scope, id: dup.id, before: dup.updated, after: p.entry.updated });
    }
    r.seen.set(key, { id: dup.id, updated: p.entry.updated });
  }
  if (item.imported_from) {
    r.done.add(item.imported_from);
    manifest?.folded.push(item.imported_from);
  }
}

/** A new entry: counted for the summary, queued for writing, and recorded in the manifest. */
function create(r: Run, p: Prepared, key: string, pending: Pending): void {
  const { report, manifest } = r;
  const { item, entry } = p;
  const scope = item.scope;
  report.created++;
  const c = r.counts.get(scope) ?? {
    scope,
    label: projectLabel(scope, r.projects.get(scope), r.plan),
    total: 0,
    kinds: {},
  };
  c.total++;
  c.kinds[entry.kind] = (c.kinds[entry.kind] ?? 0) + 1;
  r.counts.set(scope, c);
  if (report.samples.length < 3) {
    report.samples.push({
      scope: c.label,
      kind: entry.kind,
      title: entry.title,
      body: cut(entry.body.replace(/\s+/g, " "), 200),
      from: item.label ?? item.imported_from,
    });
  }
  r.seen.set(key, { id: entry.id, updated: entry.updated });
  r.placed.add(`${scope}\0${entry.id}`);
  if (item.id) r.seen.set(`${scope}\0id\0${entry.id}`, { id: entry.id, updated: entry.updated });
  if (item.imported_from) r.done.add(item.imported_from);
  if (!manifest) return;
  const project = r.projects.get(scope);
  if (scope !== GLOBAL && project) {
    // project.md for a project first written by an import: the import created it, so undo removes it
    const text = ensureProjectFile(project);
    if (text !== undefined) manifest.files.push({ scope: project.id, name: "project.md", sha256: sha256(text) });
  }
  pending.set(`${scope}\0${entry.id}`, { scope, entry, text: p.text });
  manifest.created.push({
    scope,
    id: entry.id,
    from: item.imported_from,
    ...(item.origin ? { origin: item.origin, updated: entry.updated, sum: textSum(entry) } : {}),
  });
  if (item.origin) r.origins.set(item.origin, { scope, id: entry.id, updated: entry.updated, sum: textSum(entry) });
}

/** Originals left alone because their entry was edited or forgotten in Coffer: one skipped line says so. */
function noteLeftAlone(r: Run): void {
  const n = r.leftAlone;
  if (!n) return;
  r.report.skipped = [
    ...r.report.skipped,
    {
      reason: `${n} changed ${n === 1 ? "original's entry was" : "originals' entries were"} edited or forgotten in Coffer since: left as ${n === 1 ? "it is" : "they are"}`,
      count: n,
    },
  ];
}

/** The manifest written for good and one audit record, when the import added anything; else no id. */
function recordImport(r: Run, actor: string | undefined): void {
  const { manifest, report, plan } = r;
  if (manifest && !recorded(r)) report.import_id = null;
  else if (manifest) {
    writeManifest(manifest);
    audit({
      event: "import",
      id: manifest.import_id,
      source: plan.source,
      actor: actor ?? `import:${plan.source}`,
      created: manifest.created.length,
      updated: report.updated,
      merged: report.merged,
      already: report.already,
      files: manifest.files.length,
      rule_lines: manifest.rule_lines.length,
    });
  }
}

/** The report's totals: secrets removed and what they were, bodies cut, entries per scope. */
function finishReport(r: Run): ImportReport {
  const { report, counter } = r;
  report.redactions = counter.redactions;
  if (counter.redactions)
    report.scrubbed = describeFound([...counter.found].map(([family, count]) => ({ family, count })));
  report.truncated = counter.truncated;
  report.by_scope = [...r.counts.values()].sort((a, b) => b.total - a.total || a.label.localeCompare(b.label));
  return report;
}

/**
 * An import that failed part-way (a full disk): the error says how many entries it did write and
 * how to take them back out, never "nothing was written". Nothing written yet: the error as it is.
 */
function partialImport(err: unknown, m: Manifest, total: number): unknown {
  const written = m.created.filter((c) => pathExists(entryPath(c.scope, c.id))).length;
  if (!written || !existsSync(manifestPath(m.import_id))) return err;
  const cause = (storageError(err)?.message ?? (err as Error)?.message ?? String(err)).replace(
    /: nothing was written$/,
    "",
  );
  return new CofferError(
    `the import stopped part-way: ${cause}. ${written} of ${total} entries were written (import ${m.import_id})`,
    1,
    `Free some space and run the same import again (what is already in is skipped), or take these out with \`coffer import --undo ${m.import_id}\`.`,
    "unavailable",
  );
}

const bullet = (l: string) => /^\s*[-*]\s+\S/.test(l);
const ruleKey = (l: string) =>
  l
    .replace(/^\s*[-*]\s+/, "")
    .trim()
    .toLowerCase();

/** Restore one whole file: written when absent; rules.md gains the bullets it lacks; others are kept. */
function placeFile(f: ImportFile, report: ImportReport, manifest: Manifest | undefined, counter: Counter) {
  if (!/^(?:project\.md|rules\.md|handoff\/[A-Za-z0-9._-]+\.md)$/.test(f.name) || f.name.includes("..")) return;
  const file = join(scopeDir(f.scope), f.name);
  const text = clean(f.text, counter);
  let current: string | undefined;
  try {
    current = readMemoryFile(file).text; // never through a link (its target would be copied into memory/)
  } catch {}
  if (current === undefined) {
    report.files.created++;
    // a rules.md written whole adds its rules too: "0 rules added" beside it was wrong (issue 37)
    if (f.name === "rules.md") report.files.rules_added += text.split("\n").filter(bullet).length;
    if (!manifest) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomic(file, text);
    manifest.files.push({ scope: f.scope, name: f.name, sha256: sha256(text) });
    return;
  }
  if (f.name !== "rules.md") {
    if (current !== text) report.files.kept++;
    return;
  }
  const have = new Set(current.split("\n").filter(bullet).map(ruleKey));
  const missing = text.split("\n").filter((l) => bullet(l) && !have.has(ruleKey(l)));
  if (!missing.length) return;
  report.files.rules_added += missing.length;
  if (!manifest) return;
  const next = `${current && !current.endsWith("\n") ? `${current}\n` : current}${missing.join("\n")}\n`;
  writeFileAtomic(file, next);
  for (const line of missing) manifest.rule_lines.push({ scope: f.scope, line });
}
