/**
 * The scrubber on the way into the store: every text field of a write (an entry's body and
 * title, a handoff, a rule) is scrubbed, and the caller learns what was removed so it can say
 * "scrubbed 1 secret (stripe)". `allowSecret` (the CLI's --allow-secret) keeps the text as given.
 */
import type { Found } from "./index";

/**
 * The scrubber's rule tables, loaded on the first scrub rather than with this module: the store
 * imports this file on every command and hook, and one that only reads never scrubs (~0.3 ms).
 */
const scrubber = () => require("./index") as typeof import("./index");

export type ScrubbedWrite<T> = { fields: T; found: Found[]; note: string | undefined };

/** Several scrubs' findings as one list, each family once with its total, in first-seen order. */
export function mergeFound(...lists: (Found[] | undefined)[]): Found[] {
  const counts = new Map<string, number>();
  for (const list of lists) for (const f of list ?? []) counts.set(f.family, (counts.get(f.family) ?? 0) + f.count);
  return [...counts].map(([family, count]) => ({ family, count }));
}

/** "scrubbed 2 secrets (password, token)" for what was found, or undefined when nothing was. */
export function scrubbedNote(found: Found[]): string | undefined {
  return found.length ? `scrubbed ${scrubber().describeFound(found)}` : undefined;
}

/** Scrub every string (and string-array) field of `fields`; other fields pass through. */
export function scrubFields<T extends Record<string, unknown>>(fields: T, allowSecret = false): ScrubbedWrite<T> {
  if (allowSecret) return { fields, found: [], note: undefined };
  const { describeFound, scrub } = scrubber();
  const counts = new Map<string, number>();
  const add = (found: Found[]) => {
    for (const f of found) counts.set(f.family, (counts.get(f.family) ?? 0) + f.count);
  };
  const out: Record<string, unknown> = { ...fields };
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === "string") {
      const r = scrub(v);
      if (r.redactions) {
        out[k] = r.text;
        add(r.found);
      }
    } else if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
      let changed = false;
      const list = (v as string[]).map((x) => {
        const r = scrub(x);
        if (!r.redactions) return x;
        changed = true;
        add(r.found);
        return r.text;
      });
      if (changed) out[k] = list;
    }
  }
  const found = [...counts].map(([family, count]) => ({ family, count }));
  return { fields: out as T, found, note: found.length ? `scrubbed ${describeFound(found)}` : undefined };
}
