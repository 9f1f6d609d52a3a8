/**
 * Contradictions for a person: when distillation finds an insight that contradicts an existing
 * entry and the session does not settle which is right, nothing is overwritten. The insight and
 * a copy of the entry wait in `inbox/conflict-<id>.json` until someone decides: approve (the
 * insight becomes an entry and supersedes the old one) or reject (the old entry stays).
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../lib/atomic";
import { namesId } from "../lib/handle";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";
import { audit } from "../scrub/write";
import { findEntry, remember } from "../store/entries";
import { activeScopes, closeStore } from "../store/store";
import { openProjectStore } from "./project";

const ID = v.pipe(v.string(), v.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/));

export const ConflictSchema = v.object({
  version: v.literal(1),
  kind: v.literal("conflict"),
  id: ID,
  created: v.string(),
  host: v.string(),
  session: v.string(),
  project: v.object({ id: v.string(), label: v.string(), origin: v.optional(v.string()) }),
  /** The entry as it was when the contradiction was found. */
  existing: v.object({ id: v.string(), kind: v.string(), title: v.string(), body: v.string() }),
  /** The new insight (already scrubbed). */
  insight: v.object({ kind: v.string(), title: v.string(), body: v.string() }),
});
export type Conflict = v.InferOutput<typeof ConflictSchema>;

const PREFIX = "conflict-";
const file = (id: string) => join(paths.inbox(), `${PREFIX}${id}.json`);

function ids(): string[] {
  try {
    return readdirSync(paths.inbox())
      .filter((n) => n.startsWith(PREFIX) && n.endsWith(".json"))
      .map((n) => n.slice(PREFIX.length, -5))
      .filter((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))
      .sort();
  } catch {
    return [];
  }
}

export function readConflict(id: string): Conflict | undefined {
  try {
    const r = v.safeParse(ConflictSchema, JSON.parse(readOwnText(file(id))));
    return r.success ? r.output : undefined;
  } catch {
    return undefined;
  }
}

/** Every readable conflict, oldest first. */
export function listConflicts(): Conflict[] {
  return ids()
    .map(readConflict)
    .filter((c): c is Conflict => Boolean(c));
}

/** A conflict by id, or 4+ of its first or last characters (its handle) when unique. */
export function findConflict(idOrPrefix: string): Conflict | undefined {
  const want = idOrPrefix.trim().toUpperCase();
  if (!/^[0-9A-Z]{4,26}$/.test(want)) return undefined;
  const hits = ids().filter((id) => namesId(id, want));
  return hits.length === 1 ? readConflict(hits[0]!) : undefined;
}

export function writeConflict(c: Conflict): void {
  writeFileAtomic(file(c.id), `${JSON.stringify(c, null, 2)}\n`, 0o600);
}

export function deleteConflict(id: string): boolean {
  const f = file(id);
  if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(id) || !existsSync(f)) return false;
  rmSync(f, { force: true });
  return true;
}

/** Keep the existing entry: the contradiction is dropped. */
export function rejectConflict(c: Conflict): void {
  deleteConflict(c.id);
  audit({ event: "conflict_rejected", actor: "user", id: c.id, entry: c.existing.id });
}

/**
 * The new insight wins: it becomes an entry in the conflict's project and supersedes the old one
 * (kept on disk, never routed again). If the old entry is gone or was superseded meanwhile, the
 * insight is written on its own.
 */
export function approveConflict(c: Conflict): { entry: string; superseded?: string } {
  const store = openProjectStore(c.project);
  try {
    const current = findEntry(store, c.existing.id, { scopes: activeScopes(store) });
    const res = remember(store, {
      text: c.insight.body,
      title: c.insight.title,
      kind: c.insight.kind,
      scope: "project",
      actor: "user",
      source: "distill",
      origin_session: c.session,
      ...(current && current.entry.status !== "superseded" ? { supersedes: current.entry.id } : {}),
    });
    deleteConflict(c.id);
    audit({ event: "conflict_approved", actor: "user", id: c.id, entry: res.id, superseded: res.superseded });
    return { entry: res.id, ...(res.superseded ? { superseded: res.superseded } : {}) };
  } finally {
    closeStore(store);
  }
}
