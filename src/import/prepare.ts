/**
 * One item made ready for the store: every field scrubbed, fitted to the store's limits and
 * validated into the entry it would become. Whatever an importer hands over, nothing reaches
 * memory/ unscrubbed or malformed.
 */
import { isoNow, normTimestamp } from "../lib/time";
import { ULID_RE, ulid } from "../lib/ulid";
import { scrub } from "../scrub";
import { scrubFields } from "../scrub/write";
import { bodyMax, deriveTitle, type Entry, KINDS, parseEntry, type Store, TITLE_MAX } from "../store";
import type { ImportItem, ImportSource } from "./types";

/** Secrets removed (per family) and bodies cut, over a whole import. */
export type Counter = { redactions: number; truncated: number; found: Map<string, number> };

/** The scrubber every write goes through: secrets become [redacted], `<private>` spans go. */
export function clean(text: string, counter: Counter): string {
  const s = scrub(text);
  if (!s.redactions) return text;
  counter.redactions += s.redactions;
  for (const f of s.found) counter.found.set(f.family, (counter.found.get(f.family) ?? 0) + f.count);
  return s.text;
}

/** The text, cut to `max` characters with an ellipsis when longer. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

const validTag = (t: string) => t.trim() && t.length <= 64 && !/[\n,]/.test(t);
const validGlob = (g: string) => g.trim() && !g.startsWith("/") && !g.includes("..");

export type Prepared = { item: ImportItem; entry: Entry; text?: string };

/** Scrub, fit and validate one item into the entry it would become. */
export function prepare(store: Store, source: ImportSource, item: ImportItem, counter: Counter): Prepared {
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
