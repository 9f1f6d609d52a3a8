/**
 * Conflict resolution for a rebase of this machine's commits onto the remote. Pure functions over
 * file texts; `sync.ts` reads the index stages and writes the results.
 *
 * Rebase terms: "ours" (stage 2) is the remote side being built upon, "theirs" (stage 3) is the
 * local commit being replayed. Results are described as "remote" and "this machine".
 */
import { ulid } from "../lib/ulid";
import { type Entry, normHash, parseEntry, SYNC_CONFLICT_TAG, serializeEntry, TITLE_MAX } from "../store";

export type Side = "remote" | "local";
export const CONFLICT_TAG = SYNC_CONFLICT_TAG;

// ---------------------------------------------------------------------------------------------
// Rules: both sides' bullets, deduplicated; a bullet one side deleted stays deleted.

function bulletKey(line: string): string | undefined {
  const m = /^\s*[-*+]\s+(.*\S)\s*$/.exec(line);
  return m ? m[1]!.replace(/\s+/g, " ").toLowerCase() : undefined;
}

function keys(text: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const line of (text ?? "").split(/\r?\n/)) {
    const k = bulletKey(line);
    if (k) out.add(k);
  }
  return out;
}

export type RulesMerge = { text: string; fromLocal: number; fromRemote: number; duplicates: number };

/**
 * Merge two versions of a rules.md. The remote's text is kept in its order; bullets (and other new
 * lines, such as headings) only this machine has are appended in their order. A bullet present in
 * the common base but removed by one side is left out; a bullet both sides have appears once.
 */
export function mergeRules(base: string | undefined, remote: string, local: string): RulesMerge {
  const baseKeys = keys(base);
  const remoteKeys = keys(remote);
  const localKeys = keys(local);
  const removedByLocal = new Set([...baseKeys].filter((k) => !localKeys.has(k)));
  const removedByRemote = new Set([...baseKeys].filter((k) => !remoteKeys.has(k)));
  const out: string[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  let fromRemote = 0;
  for (const line of remote.replace(/\s+$/, "").split(/\r?\n/)) {
    const k = bulletKey(line);
    if (!k) {
      out.push(line);
      continue;
    }
    if (removedByLocal.has(k)) continue;
    if (seen.has(k)) {
      duplicates++;
      continue;
    }
    seen.add(k);
    out.push(line);
    if (!localKeys.has(k)) fromRemote++;
  }
  const remoteLines = new Set(
    remote
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean),
  );
  let fromLocal = 0;
  for (const line of local.replace(/\s+$/, "").split(/\r?\n/)) {
    const k = bulletKey(line);
    if (!k) {
      if (line.trim() && !remoteLines.has(line.trim())) {
        out.push(line);
        remoteLines.add(line.trim());
      }
      continue;
    }
    if (seen.has(k)) {
      duplicates++;
      continue;
    }
    if (removedByRemote.has(k)) continue;
    seen.add(k);
    out.push(line.replace(/^\s+/, ""));
    fromLocal++;
  }
  while (out.length && !out[0]!.trim()) out.shift();
  return { text: out.length ? `${out.join("\n").replace(/\s+$/, "")}\n` : "", fromLocal, fromRemote, duplicates };
}

// ---------------------------------------------------------------------------------------------
// Entries: the newer `updated` keeps the id; the other version becomes a sibling entry, a copy
// superseded by the kept one (never injected twice), and both carry CONFLICT_TAG until the copy is
// forgotten (store/sync-conflicts.ts).

export type EntryMerge = {
  /** Text for the conflicted path. */
  text: string;
  winner: Side;
  /**
   * The other version, saved under a new id, `status: superseded` by `id` and tagged CONFLICT_TAG
   * (the kept text is tagged too); absent when both versions say the same.
   */
  sibling?: { id: string; text: string };
};

function stamp(e: Entry | undefined): number {
  const t = e ? Date.parse(e.updated || e.created) : NaN;
  return Number.isNaN(t) ? -Infinity : t;
}

function tryParse(text: string, id: string): Entry | undefined {
  try {
    const e = parseEntry(text, id);
    e.id = id;
    return e;
  } catch {
    return undefined;
  }
}

const withTag = (tags: string[]) => (tags.includes(CONFLICT_TAG) ? tags : [...tags, CONFLICT_TAG]);

/** Resolve an entry both sides changed. Ties go to the remote (it is what everyone else already has). */
export function mergeEntry(id: string, remote: string, local: string, newId: () => string = () => ulid()): EntryMerge {
  const r = tryParse(remote, id);
  const l = tryParse(local, id);
  const winner: Side = stamp(l) > stamp(r) ? "local" : "remote";
  const [keep, keepText, other, otherText] = winner === "local" ? [l, local, r, remote] : [r, remote, l, local];
  if (keep && other && normHash(keep.body) === normHash(other.body) && keep.title === other.title) {
    return { text: keepText, winner };
  }
  const sid = newId();
  if (!other) {
    // Not a valid entry: kept byte for byte under the new name, so nothing is lost.
    return { text: keepText, winner, sibling: { id: sid, text: otherText } };
  }
  const sibling: Entry = {
    ...other,
    id: sid,
    title: other.title.slice(0, TITLE_MAX),
    tags: withTag(other.tags),
    status: "superseded",
    superseded_by: id,
  };
  // The kept version is marked (same `updated`: the mark is not an edit) so the hooks say a copy exists.
  const marked =
    keep && !keep.tags.includes(CONFLICT_TAG) ? serializeEntry({ ...keep, tags: withTag(keep.tags) }) : keepText;
  return { text: marked, winner, sibling: { id: sid, text: serializeEntry(sibling) } };
}

// ---------------------------------------------------------------------------------------------
// Handoffs: one per branch; the newer one stays.

function handoffStamp(text: string): number {
  const m = /^updated:\s*"?([^"\n]+)"?\s*$/m.exec(text);
  const t = m ? Date.parse(m[1]!) : NaN;
  return Number.isNaN(t) ? -Infinity : t;
}

export function mergeHandoff(remote: string, local: string): { text: string; winner: Side } {
  return handoffStamp(local) > handoffStamp(remote)
    ? { text: local, winner: "local" }
    : { text: remote, winner: "remote" };
}
