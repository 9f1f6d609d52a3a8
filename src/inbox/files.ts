/**
 * The inbox on disk: what distillation and capture leave for a person, one file per item,
 * `inbox/<prefix><ULID>.json`, read through a valibot schema (an unreadable or foreign file is
 * skipped, never fatal), written atomically and privately. Contradictions (conflicts.ts) and team-lane proposals (team-proposals.ts)
 * are two kinds; session traces (traces.ts) are a third, with no prefix.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../lib/atomic";
import { namesId } from "../lib/handle";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** An inbox item's id: a ULID. */
export const ITEM_ID = v.pipe(v.string(), v.regex(ULID_RE));

/** The project an item belongs to, as a session knows it: no machine path. */
export const ITEM_PROJECT = v.object({ id: v.string(), label: v.string(), origin: v.optional(v.string()) });
export type ItemProject = v.InferOutput<typeof ITEM_PROJECT>;

/** A project reference cut down to what an inbox item may hold (`root` is a machine path). */
export function itemProject(ref: ItemProject & { root?: string }): ItemProject {
  return { id: ref.id, label: ref.label, ...(ref.origin ? { origin: ref.origin } : {}) };
}

export type InboxFiles<T extends { id: string }> = {
  read: (id: string) => T | undefined;
  /** Every readable item, oldest first. */
  list: () => T[];
  /** Items on disk (read or not). */
  count: () => number;
  /** An item by id, or 4+ of its first or last characters (its handle) when unique. */
  find: (idOrPrefix: string) => T | undefined;
  write: (item: T) => void;
  remove: (id: string) => boolean;
};

export function inboxFiles<T extends { id: string }>(
  prefix: string,
  schema: v.GenericSchema<unknown, T>,
): InboxFiles<T> {
  const file = (id: string) => join(paths.inbox(), `${prefix}${id}.json`);
  const ids = (): string[] => {
    try {
      return readdirSync(paths.inbox())
        .filter((n) => n.startsWith(prefix) && n.endsWith(".json"))
        .map((n) => n.slice(prefix.length, -5))
        .filter((id) => ULID_RE.test(id))
        .sort();
    } catch {
      return [];
    }
  };
  const read = (id: string): T | undefined => {
    try {
      const r = v.safeParse(schema, JSON.parse(readOwnText(file(id))));
      return r.success ? r.output : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    read,
    list: () =>
      ids()
        .map(read)
        .filter((x): x is T => Boolean(x)),
    count: () => ids().length,
    find: (idOrPrefix) => {
      const want = idOrPrefix.trim().toUpperCase();
      if (!/^[0-9A-Z]{4,26}$/.test(want)) return undefined;
      const hits = ids().filter((id) => namesId(id, want));
      return hits.length === 1 ? read(hits[0]!) : undefined;
    },
    write: (item) => writeFileAtomic(file(item.id), `${JSON.stringify(item, null, 2)}\n`, 0o600),
    remove: (id) => {
      const f = file(id);
      if (!ULID_RE.test(id) || !existsSync(f)) return false;
      rmSync(f, { force: true });
      return true;
    },
  };
}
