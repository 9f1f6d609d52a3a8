/**
 * Applying an import: every item is scrubbed, fitted to the store's limits, folded into a
 * near-duplicate already in its scope (the store's normalized-text rule) or written as a new
 * entry. An import is one audit record and one manifest (`state/imports/<id>.json`) listing exactly
 * what it added, so `coffer import --undo <id>` can take it back out.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import { paths } from "../lib/paths";
import { progressBar } from "../lib/progress";
import { pathExists, readOwnText } from "../lib/small-file";
import { storageError } from "../lib/storage-error";
import { isoNow, normTimestamp } from "../lib/time";
import { ULID_RE, ulid } from "../lib/ulid";
import { describeFound, scrub } from "../scrub";
import { audit, scrubFields } from "../scrub/write";
import { parseProjectMeta, projectMeta } from "../store/browse";
import { type BulkWriter, type PutEntry, putEntries, refreshScopes, withBulk } from "../store/bulk";
import { deriveTitle, type Entry, KINDS, normHash, parseEntry, TITLE_MAX } from "../store/entry";
import { entryPath, readMemoryFile, scopeDir } from "../store/indexer";
import { GLOBAL, type ProjectScope, type ScopeKey } from "../store/scope";
import { bodyMax, closeStore, openStore, type Store } from "../store/store";
import { moveToTrash } from "../store/trash";
import type { ImportFile, ImportItem, ImportPlan, ImportSource } from "./types";

/** What an import added, kept so that `--undo` removes exactly that. */
export type Manifest = {
  import_id: string;
  source: ImportSource;
  from: string;
  at: string;
  undone_at?: string;
  /** Entries this import created (`origin`/`updated`: an original that may change, and the entry's `updated` as written). */
  created: { scope: ScopeKey; id: string; from?: string; origin?: string; updated?: string; sum?: string }[];
  /**
   * Entries this import rewrote because their original changed (`import native`): the entry as it
   * was before, so `--undo` can put it back while nobody changed it since.
   */
  updated?: {
    scope: ScopeKey;
    id: string;
    from: string;
    origin: string;
    updated: string;
    sum?: string;
    before: Entry;
  }[];
  /** Existing entries a folded near-duplicate moved forward in time: `updated` before and after. */
  merged: { scope: ScopeKey; id: string; before: string; after: string }[];
  /** Originals folded into an existing entry (kept so a re-run counts them as already imported). */
  folded: string[];
  /** Whole files this import created (scope-relative name + content hash). */
  files: { scope: ScopeKey; name: string; sha256: string }[];
  /** Bullet lines appended to an existing rules.md. */
  rule_lines: { scope: ScopeKey; line: string }[];
};

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

const CHUNK = 500;

function importsDir(): string {
  return join(paths.state(), "imports");
}

function manifestPath(id: string): string {
  return join(importsDir(), `${id}.json`);
}

function readManifest(id: string): Manifest | undefined {
  if (!ULID_RE.test(id)) return undefined;
  try {
    return JSON.parse(readOwnText(manifestPath(id))) as Manifest;
  } catch {
    return undefined;
  }
}

/** Every import on this machine, newest first. */
export function listManifests(): Manifest[] {
  let names: string[] = [];
  try {
    names = readdirSync(importsDir()).filter((n) => n.endsWith(".json"));
  } catch {}
  const out: Manifest[] = [];
  for (const n of names.sort().reverse()) {
    const m = readManifest(n.slice(0, -5));
    if (m) out.push(m);
  }
  return out;
}

function writeManifest(m: Manifest): void {
  mkdirSync(importsDir(), { recursive: true });
  writeFileAtomic(manifestPath(m.import_id), `${JSON.stringify(m)}\n`, 0o600);
}

/** The scrubber every write goes through: secrets become [redacted], `<private>` spans go. */
function clean(text: string, counter: Counter): string {
  const s = scrub(text);
  if (!s.redactions) return text;
  counter.redactions += s.redactions;
  for (const f of s.found) counter.found.set(f.family, (counter.found.get(f.family) ?? 0) + f.count);
  return s.text;
}

type Counter = { redactions: number; truncated: number; found: Map<string, number> };

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

const validTag = (t: string) => t.trim() && t.length <= 64 && !/[\n,]/.test(t);
const validGlob = (g: string) => g.trim() && !g.startsWith("/") && !g.includes("..");

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

/** `project.md` for a project first written by an import: label and origin, never a machine path. */
function ensureProjectFile(project: ProjectScope, manifest: Manifest | undefined): void {
  const file = join(paths.projectScope(project.id), "project.md");
  if (existsSync(file)) return;
  const lines = ["---", `label: ${JSON.stringify(project.label)}`];
  if (project.origin) lines.push(`origin: ${JSON.stringify(project.origin)}`);
  lines.push("---", `# ${project.label}`, "");
  const text = lines.join("\n");
  writeFileAtomic(file, text);
  manifest?.files.push({ scope: project.id, name: "project.md", sha256: sha256(text) });
}

/** Originals already brought in by earlier imports that were not undone. */
function importedKeys(manifests: Manifest[]): Set<string> {
  const keys = new Set<string>();
  for (const m of manifests) {
    if (m.undone_at) continue;
    for (const c of m.created) if (c.from) keys.add(c.from);
    for (const u of m.updated ?? []) keys.add(u.from);
    for (const f of m.folded ?? []) keys.add(f);
  }
  return keys;
}

/** The entry (`scope\0id`) each original's key created, over every import not undone. */
function createdByKey(manifests: Manifest[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of manifests) {
    if (m.undone_at) continue;
    for (const c of m.created) if (c.from) out.set(c.from, `${c.scope}\0${c.id}`);
  }
  return out;
}

/** `sum`: the hash of the title and body as imported (an edit within the same second moves no `updated`). */
type OriginRecord = { scope: ScopeKey; id: string; updated?: string; from?: string; sum?: string };

/** The text an import wrote, as one hash: a hand edit of the title or body changes it. */
const textSum = (e: Pick<Entry, "title" | "body">) => normHash(`${e.title}\n${e.body}`);

/** The entry's text or `updated` moved since the import wrote it: it was edited in Coffer. */
const editedSince = (prev: OriginRecord, current: Entry) =>
  (prev.updated !== undefined && current.updated !== prev.updated) ||
  (prev.sum !== undefined && textSum(current) !== prev.sum);

/** The entry each original (by origin) last became, over every import not undone, oldest first. */
function originIndex(manifests: Manifest[] = listManifests()): Map<string, OriginRecord> {
  const out = new Map<string, OriginRecord>();
  for (const m of [...manifests].reverse()) {
    if (m.undone_at) continue;
    for (const c of m.created) if (c.origin) out.set(c.origin, c);
    for (const u of m.updated ?? []) out.set(u.origin, u);
  }
  return out;
}

type Prepared = { item: ImportItem; entry: Entry; text?: string };

/** Scrub, fit and validate one item into the entry it would become. */
function prepare(store: Store, source: ImportSource, item: ImportItem, counter: Counter): Prepared {
  const max = bodyMax(store);
  // Every field that reaches frontmatter is scrubbed, not only the text, and all of them together:
  // a value the body gives away goes from the title and the tags too.
  const scrubbed = scrubFields({
    body: item.body,
    title: item.title,
    tags: item.tags,
    applies_to: item.applies_to ?? [],
    actor: item.actor ?? `import:${source}`,
    origin_session: item.origin_session,
  });
  for (const f of scrubbed.found) {
    counter.redactions += f.count;
    counter.found.set(f.family, (counter.found.get(f.family) ?? 0) + f.count);
  }
  const fields = scrubbed.fields;
  let body = fields.body.trim();
  if (body.length > max) {
    body = cut(body, max);
    counter.truncated++;
  }
  const title = cut(fields.title.replace(/\s+/g, " ").trim() || deriveTitle(body), TITLE_MAX);
  // Times as times, whatever the importer handed over (a bad one is never written as given).
  const created = normTimestamp(item.created) ?? isoNow();
  const updated = normTimestamp(item.updated) ?? created;
  const entry: Entry = {
    id: item.id && ULID_RE.test(item.id) ? item.id : ulid(Date.parse(created)),
    kind: (KINDS as readonly string[]).includes(item.kind) ? item.kind : "note",
    title,
    tags: [...new Set(fields.tags.map((t) => t.trim()).filter(validTag))],
    applies_to: fields.applies_to.filter(validGlob),
    actor: fields.actor,
    source: item.source ?? "import",
    origin_session: fields.origin_session,
    imported_from: item.imported_from,
    created,
    updated,
    body,
  };
  // A Coffer export carries the file itself: keep it byte for byte when it holds no secret anywhere
  // (frontmatter included), is this entry (same id, body, title) and its times are times.
  let text: string | undefined;
  if (item.file) {
    try {
      const parsed = parseEntry(item.file, entry.id);
      if (
        parsed.id === entry.id &&
        parsed.body === body &&
        parsed.title === title &&
        normTimestamp(parsed.created) !== undefined &&
        normTimestamp(parsed.updated) !== undefined &&
        !scrub(item.file).redactions
      )
        text = item.file.endsWith("\n") ? item.file : `${item.file}\n`;
    } catch {}
  }
  return { item, entry, text };
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

const hasContent = (m: Manifest) =>
  m.created.length || m.merged.length || m.folded.length || m.files.length || m.rule_lines.length || m.updated?.length;

async function run(store: Store, plan: ImportPlan, opts: ApplyOptions): Promise<ImportReport> {
  for (const item of plan.items) {
    if (item.imported_from) item.imported_from = importKey(item.imported_from);
    if (item.origin) item.origin = importKey(item.origin);
    if (item.earlier_key) item.earlier_key = importKey(item.earlier_key);
  }
  const dryRun = !!opts.dryRun;
  const counter: Counter = { redactions: 0, truncated: 0, found: new Map() };
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
  const done = importedKeys(manifests);
  const createdBy = createdByKey(manifests);
  const origins = originIndex(manifests);
  /** Originals that changed while their entry was changed or removed in Coffer: left alone. */
  let leftAlone = 0;
  const counts = new Map<ScopeKey, ScopeCount>();
  const projects = new Map<ScopeKey, ProjectScope>();
  for (const i of plan.items) if (i.project) projects.set(i.scope, i.project);
  /** normalized-text hashes and ids this run already placed, per scope (a dry run writes nothing). */
  const seen = new Map<string, { id: string; updated: string }>();

  /** Entries this run created (`scope\0id`). */
  const placed = new Set<string>();
  // Nothing added, folded or changed (a re-import, an empty file): no import to list or undo.
  const record = () => manifest && hasContent(manifest);
  if (record()) writeManifest(manifest!);
  const bar = progressBar(`Importing from ${plan.source}`, plan.items.length);
  let processed = 0;
  for (let i = 0; i < plan.items.length; i += CHUNK) {
    const chunk = plan.items.slice(i, i + CHUNK);
    /** Files this chunk writes, by `scope\0id` (an entry folded into twice is written once). */
    const pending = new Map<string, PutEntry>();
    const step = (w: BulkWriter) => {
      for (const item of chunk) {
        bar.tick(++processed);
        if (item.imported_from && done.has(item.imported_from)) {
          report.already++;
          continue;
        }
        const p = prepare(store, plan.source, item, counter);
        if (!p.entry.body) continue;
        const prev = item.origin ? origins.get(item.origin) : undefined;
        if (prev && item.origin && item.imported_from) {
          // The original changed since an earlier import: rewrite the entry it became.
          done.add(item.imported_from);
          const k = `${prev.scope}\0${prev.id}`;
          let current: Entry | undefined;
          try {
            current = pending.get(k)?.entry ?? parseEntry(readMemoryFile(entryPath(prev.scope, prev.id)).text, prev.id);
            current.id = prev.id;
          } catch {}
          if (!current || editedSince(prev, current)) {
            // Forgotten, or edited in Coffer since: the user's version stays.
            leftAlone++;
            manifest?.folded.push(item.imported_from);
            continue;
          }
          report.updated++;
          const next: Entry = {
            ...current,
            kind: p.entry.kind,
            title: p.entry.title,
            body: p.entry.body,
            imported_from: item.imported_from,
            updated: p.entry.updated > current.updated ? p.entry.updated : isoNow(),
          };
          const sum = textSum(next);
          origins.set(item.origin, {
            scope: prev.scope,
            id: prev.id,
            updated: next.updated,
            from: item.imported_from,
            sum,
          });
          if (!manifest) continue;
          pending.set(k, { scope: prev.scope, entry: next });
          manifest.updated!.push({
            scope: prev.scope,
            id: prev.id,
            from: item.imported_from,
            origin: item.origin,
            updated: next.updated,
            sum,
            before: current,
          });
          continue;
        }
        const scope = item.scope;
        if (item.id && (seen.has(`${scope}\0id\0${p.entry.id}`) || w.has(scope, p.entry.id))) {
          report.already++;
          continue;
        }
        const hash = normHash(p.entry.body);
        const key = `${scope}\0${hash}`;
        // A Coffer export keeps its entries as they were: fold them only into what was there before.
        let dup = item.id ? undefined : seen.get(key);
        dup ??= w.findDuplicate(scope, p.entry.body);
        if (dup && item.id && placed.has(`${scope}\0${dup.id}`)) dup = undefined;
        // Imported by an earlier Coffer under a key without the content hash: already in when that
        // import created the very entry this text is (a row whose text differs is no duplicate).
        if (dup && item.earlier_key && createdBy.get(item.earlier_key) === `${scope}\0${dup.id}`) {
          report.already++;
          if (item.imported_from) done.add(item.imported_from);
          continue;
        }
        if (dup) {
          report.merged++;
          // The store's rule for a near-duplicate: the existing entry stays, its `updated` moves forward.
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
              if (!placed.has(k))
                manifest.merged.push({ scope, id: dup.id, before: dup.updated, after: p.entry.updated });
            }
            seen.set(key, { id: dup.id, updated: p.entry.updated });
          }
          if (item.imported_from) {
            done.add(item.imported_from);
            manifest?.folded.push(item.imported_from);
          }
          continue;
        }
        report.created++;
        const c = counts.get(scope) ?? {
          scope,
          label: projectLabel(scope, projects.get(scope), plan),
          total: 0,
          kinds: {},
        };
        c.total++;
        c.kinds[p.entry.kind] = (c.kinds[p.entry.kind] ?? 0) + 1;
        counts.set(scope, c);
        if (report.samples.length < 3) {
          report.samples.push({
            scope: c.label,
            kind: p.entry.kind,
            title: p.entry.title,
            body: cut(p.entry.body.replace(/\s+/g, " "), 200),
            from: item.label ?? item.imported_from,
          });
        }
        seen.set(key, { id: p.entry.id, updated: p.entry.updated });
        placed.add(`${scope}\0${p.entry.id}`);
        if (item.id) seen.set(`${scope}\0id\0${p.entry.id}`, { id: p.entry.id, updated: p.entry.updated });
        if (item.imported_from) done.add(item.imported_from);
        if (!manifest) continue;
        const project = projects.get(scope);
        if (scope !== GLOBAL && project) ensureProjectFile(project, manifest);
        pending.set(`${scope}\0${p.entry.id}`, { scope, entry: p.entry, text: p.text });
        manifest.created.push({
          scope,
          id: p.entry.id,
          from: item.imported_from,
          ...(item.origin ? { origin: item.origin, updated: p.entry.updated, sum: textSum(p.entry) } : {}),
        });
        if (item.origin)
          origins.set(item.origin, { scope, id: p.entry.id, updated: p.entry.updated, sum: textSum(p.entry) });
      }
    };
    withBulk(store, false, step);
    if (manifest && record()) {
      // The manifest names the entries before they exist, so an interrupted import can still be undone.
      try {
        writeManifest(manifest);
        await putEntries(store, [...pending.values()]);
      } catch (err) {
        bar.done();
        throw partialImport(err, manifest, plan.items.length);
      }
    }
  }
  bar.done();

  for (const f of plan.files ?? []) placeFile(f, report, manifest, counter);
  if (leftAlone)
    report.skipped = [
      ...report.skipped,
      {
        reason: `${leftAlone} changed ${leftAlone === 1 ? "original's entry was" : "originals' entries were"} edited or forgotten in Coffer since: left as ${leftAlone === 1 ? "it is" : "they are"}`,
        count: leftAlone,
      },
    ];

  if (manifest && !record()) report.import_id = null;
  else if (manifest) {
    writeManifest(manifest);
    audit({
      event: "import",
      id: manifest.import_id,
      source: plan.source,
      actor: opts.actor ?? `import:${plan.source}`,
      created: manifest.created.length,
      updated: report.updated,
      merged: report.merged,
      already: report.already,
      files: manifest.files.length,
      rule_lines: manifest.rule_lines.length,
    });
  }
  report.redactions = counter.redactions;
  if (counter.redactions)
    report.scrubbed = describeFound([...counter.found].map(([family, count]) => ({ family, count })));
  report.truncated = counter.truncated;
  report.by_scope = [...counts.values()].sort((a, b) => b.total - a.total || a.label.localeCompare(b.label));
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

/** Take an import back out: its entries, files and rule lines; folded entries get their old date back. */
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
