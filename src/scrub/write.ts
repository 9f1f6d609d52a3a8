/**
 * The scrubber on the way into the store: every string field of a write (an entry's body, title,
 * tags, applies_to, actor, origin_session, any field a later version adds, a handoff, a rule, an
 * audit record) is scrubbed, and the caller learns what was removed so it can say "scrubbed 1
 * secret (stripe)". `allowSecret` (the CLI's --allow-secret) keeps the text as given.
 */
import { type AuditEvent, appendAudit } from "../lib/audit";
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

/**
 * Scrub every string of `fields`, at any depth (strings in lists and nested objects too), except
 * the fields named in `keep` (ids, enums, times: never free text); other values pass through. The
 * strings are scrubbed together: a value found as a secret in one field (`token = '…'` in the body)
 * is redacted in every other field too (the title that repeats it bare).
 */
export function scrubFields<T extends Record<string, unknown>>(
  fields: T,
  allowSecret = false,
  keep: readonly string[] = [],
): ScrubbedWrite<T> {
  if (allowSecret) return { fields, found: [], note: undefined };
  const { describeFound, scrubTogether } = scrubber();
  /** `fields` with `each` applied to every string to scrub; unchanged parts stay the same objects. */
  const rebuild = (v: unknown, depth: number, each: (s: string) => string): unknown => {
    if (typeof v === "string") return each(v);
    if (depth > 16 || v === null || typeof v !== "object" || v instanceof Date) return v;
    if (Array.isArray(v)) {
      const list = v.map((x) => rebuild(x, depth + 1, each));
      return list.some((x, i) => x !== v[i]) ? list : v;
    }
    const obj = v as Record<string, unknown>;
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(obj)) {
      out[k] = depth === 0 && keep.includes(k) ? x : rebuild(x, depth + 1, each);
      changed ||= out[k] !== x;
    }
    return changed ? out : obj;
  };
  const strings: string[] = [];
  rebuild(fields, 0, (s) => {
    strings.push(s);
    return s;
  });
  const results = scrubTogether(strings);
  const counts = new Map<string, number>();
  let k = 0;
  const out = rebuild(fields, 0, (s) => {
    const r = results[k++]!;
    if (!r.redactions) return s;
    for (const f of r.found) counts.set(f.family, (counts.get(f.family) ?? 0) + f.count);
    return r.text;
  }) as T;
  const found = [...counts].map(([family, count]) => ({ family, count }));
  return { fields: out, found, note: found.length ? `scrubbed ${describeFound(found)}` : undefined };
}

/** Append an audit record (state/audit.jsonl) with every string in it scrubbed: a client name, a path. */
export function audit(record: AuditEvent): void {
  appendAudit(scrubFields(record).fields);
}
