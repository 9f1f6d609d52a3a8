/**
 * `coffer import coffer <file>`: a `coffer export` JSONL file back into a store. Entries keep
 * their id, kind, tags, applies_to, actor, source and times (the exported file text is written
 * as it was); project.md, rules and handoffs are restored where absent, rules merged by bullet.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as v from "valibot";
import { CofferError } from "../lib/errors";
import { normTimestamp } from "../lib/time";
import { GLOBAL, KINDS, SOURCES } from "../store";
import { EXPORT_VERSION } from "./export";
import type { ImportFile, ImportItem, ImportPlan } from "./types";

const Scope = v.union([v.literal(GLOBAL), v.pipe(v.string(), v.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/))]);
const Text = v.pipe(v.string(), v.maxLength(4 * 1024 * 1024));
/** A timestamp as a timestamp: anything else is refused, never written into frontmatter. */
const Stamp = v.pipe(
  v.string(),
  v.check((s) => normTimestamp(s) !== undefined, "not an ISO-8601 timestamp"),
  v.transform((s) => normTimestamp(s)!),
);
const Header = v.object({ type: v.literal("coffer-export"), version: v.number() });
const Entry = v.looseObject({
  type: v.literal("entry"),
  scope: Scope,
  id: v.pipe(v.string(), v.regex(/^[0-9A-Za-z_.-]{1,64}$/)),
  kind: v.picklist(KINDS),
  title: v.string(),
  tags: v.array(v.string()),
  applies_to: v.array(v.string()),
  actor: v.string(),
  source: v.picklist(SOURCES),
  origin_session: v.optional(v.string()),
  imported_from: v.optional(v.string()),
  created: Stamp,
  updated: Stamp,
  body: Text,
  file: v.optional(Text),
});
const Project = v.looseObject({ type: v.literal("project"), scope: Scope, file: Text });
const Rules = v.looseObject({ type: v.literal("rules"), scope: Scope, file: Text });
const Handoff = v.looseObject({
  type: v.literal("handoff"),
  scope: Scope,
  name: v.pipe(v.string(), v.regex(/^handoff\/[A-Za-z0-9._-]+\.md$/)),
  file: Text,
});
const Record_ = v.variant("type", [Entry, Project, Rules, Handoff]);

export type CofferOptions = { file: string; text?: string; cwd?: string };

export function planCoffer(opts: CofferOptions): ImportPlan {
  const path = opts.file === "-" ? "stdin" : resolve(opts.cwd ?? process.cwd(), opts.file);
  let text: string;
  try {
    text = opts.text ?? readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new CofferError(`${path} does not exist`, 1, "Give the file `coffer export` wrote.");
    throw new CofferError(`cannot read ${path}: ${(err as Error).message}`, 1, "Give the file `coffer export` wrote.");
  }
  const lines = text.split("\n").filter((l) => l.trim());
  const fail = (n: number, why: string): never => {
    throw new CofferError(`${path} line ${n}: ${why}`, 1, "Give the file `coffer export --format jsonl` wrote.");
  };
  const parse = (line: string, n: number): unknown => {
    try {
      return JSON.parse(line);
    } catch {
      return fail(n, "not JSON");
    }
  };
  if (!lines.length) fail(1, "empty file");
  const head = v.safeParse(Header, parse(lines[0]!, 1));
  if (!head.success) fail(1, "not a Coffer export (the first line names the format)");
  if (head.success && head.output.version > EXPORT_VERSION)
    fail(1, `export format version ${head.output.version} is newer than this Coffer reads (${EXPORT_VERSION})`);

  const items: ImportItem[] = [];
  const files: ImportFile[] = [];
  for (const [i, line] of lines.slice(1).entries()) {
    const res = v.safeParse(Record_, parse(line, i + 2));
    if (!res.success) {
      const issue = res.issues[0];
      const where = issue?.path?.map((p) => String(p.key)).join(".");
      fail(i + 2, `${where ? `${where}: ` : ""}${issue?.message ?? "unexpected record"}`);
      continue;
    }
    const r = res.output;
    if (r.type === "entry") {
      items.push({
        scope: r.scope,
        id: r.id,
        kind: r.kind,
        title: r.title,
        body: r.body,
        tags: r.tags,
        applies_to: r.applies_to,
        actor: r.actor,
        source: r.source,
        origin_session: r.origin_session,
        imported_from: r.imported_from,
        created: r.created,
        updated: r.updated,
        file: r.file,
        label: `entry ${r.id}`,
      });
    } else if (r.type === "project") files.push({ scope: r.scope, name: "project.md", text: r.file });
    else if (r.type === "rules") files.push({ scope: r.scope, name: "rules.md", text: r.file });
    else files.push({ scope: r.scope, name: r.name, text: r.file });
  }
  return { source: "coffer", from: path, items, files, skipped: [] };
}
