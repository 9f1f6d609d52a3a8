/**
 * Import manifests (`state/imports/<id>.json`): what each import added, so `coffer import --undo`
 * takes exactly that back out and a re-run knows what is already in.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";
import { ULID_RE } from "../lib/ulid";
import { type Entry, normHash, type ScopeKey } from "../store";
import type { ImportSource } from "./types";

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

function importsDir(): string {
  return join(paths.state(), "imports");
}

export function manifestPath(id: string): string {
  return join(importsDir(), `${id}.json`);
}

export function readManifest(id: string): Manifest | undefined {
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

export function writeManifest(m: Manifest): void {
  mkdirSync(importsDir(), { recursive: true });
  writeFileAtomic(manifestPath(m.import_id), `${JSON.stringify(m)}\n`, 0o600);
}

/** Whether the import added, folded or changed anything (else there is nothing to list or undo). */
export const hasContent = (m: Manifest) =>
  m.created.length || m.merged.length || m.folded.length || m.files.length || m.rule_lines.length || m.updated?.length;

/** Originals already brought in by earlier imports that were not undone. */
export function importedKeys(manifests: Manifest[]): Set<string> {
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
export function createdByKey(manifests: Manifest[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of manifests) {
    if (m.undone_at) continue;
    for (const c of m.created) if (c.from) out.set(c.from, `${c.scope}\0${c.id}`);
  }
  return out;
}

/** `sum`: the hash of the title and body as imported (an edit within the same second moves no `updated`). */
export type OriginRecord = { scope: ScopeKey; id: string; updated?: string; from?: string; sum?: string };

/** The text an import wrote, as one hash: a hand edit of the title or body changes it. */
export const textSum = (e: Pick<Entry, "title" | "body">) => normHash(`${e.title}\n${e.body}`);

/** The entry's text or `updated` moved since the import wrote it: it was edited in Coffer. */
export const editedSince = (prev: OriginRecord, current: Entry) =>
  (prev.updated !== undefined && current.updated !== prev.updated) ||
  (prev.sum !== undefined && textSum(current) !== prev.sum);

/** The entry each original (by origin) last became, over every import not undone, oldest first. */
export function originIndex(manifests: Manifest[]): Map<string, OriginRecord> {
  const out = new Map<string, OriginRecord>();
  for (const m of [...manifests].reverse()) {
    if (m.undone_at) continue;
    for (const c of m.created) if (c.origin) out.set(c.origin, c);
    for (const u of m.updated ?? []) out.set(u.origin, u);
  }
  return out;
}
