/**
 * Contradictions for a person: when distillation finds an insight that contradicts an existing
 * entry and the session does not settle which is right, nothing is overwritten. The insight and
 * a copy of the entry wait in `inbox/conflict-<id>.json` until someone decides: approve (the
 * insight becomes an entry and supersedes the old one) or reject (the old entry stays).
 */
import * as v from "valibot";
import { audit } from "../scrub/write";
import { activeScopes, closeStore, findEntry, openProjectStore, remember } from "../store";
import { ITEM_ID, ITEM_PROJECT, inboxFiles } from "./files";

export const ConflictSchema = v.object({
  version: v.literal(1),
  kind: v.literal("conflict"),
  id: ITEM_ID,
  created: v.string(),
  host: v.string(),
  session: v.string(),
  project: ITEM_PROJECT,
  /** The entry as it was when the contradiction was found. */
  existing: v.object({ id: v.string(), kind: v.string(), title: v.string(), body: v.string() }),
  /** The new insight (already scrubbed). */
  insight: v.object({ kind: v.string(), title: v.string(), body: v.string() }),
});
export type Conflict = v.InferOutput<typeof ConflictSchema>;

const conflicts = inboxFiles("conflict-", ConflictSchema);

/** Every readable conflict, oldest first. */
export const listConflicts = conflicts.list;
/** A conflict by id, or 4+ of its first or last characters (its handle) when unique. */
export const findConflict = conflicts.find;
export const writeConflict = conflicts.write;

/** Keep the existing entry: the contradiction is dropped. */
export function rejectConflict(c: Conflict): void {
  conflicts.remove(c.id);
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
    conflicts.remove(c.id);
    audit({ event: "conflict_approved", actor: "user", id: c.id, entry: res.id, superseded: res.superseded });
    return { entry: res.id, ...(res.superseded ? { superseded: res.superseded } : {}) };
  } finally {
    closeStore(store);
  }
}
