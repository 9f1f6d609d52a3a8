/**
 * engram (`engram export` -> JSON): `{ version, exported_at, sessions[], observations[], prompts[] }`
 * as defined by its store's ExportData. Observations carry a type, title, content, project and
 * scope (`project` | `personal`); their session records the directory the agent ran in.
 * Soft-deleted observations (`deleted_at`) and user prompts are not imported.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as v from "valibot";
import { CofferError } from "../lib/errors";
import { scrub } from "../scrub";
import { deriveTitle, GLOBAL, type Kind } from "../store";
import { originalKey, type Placement, parseProjectMap, placeProject, sourceId } from "./scopes";
import type { ImportItem, ImportPlan } from "./types";

const Str = v.nullish(v.string());
const Session = v.looseObject({
  id: v.string(),
  project: Str,
  directory: Str,
  started_at: Str,
  ended_at: Str,
  summary: Str,
});
const Observation = v.looseObject({
  id: v.union([v.number(), v.string()]),
  session_id: Str,
  type: Str,
  title: Str,
  content: Str,
  project: Str,
  scope: Str,
  topic_key: Str,
  created_at: Str,
  updated_at: Str,
  deleted_at: Str,
});
const Export = v.looseObject({
  version: Str,
  sessions: v.nullish(v.array(Session)),
  observations: v.nullish(v.array(Observation)),
});

/** engram's suggested types -> Coffer kinds. */
const KIND_OF: Record<string, Kind> = {
  decision: "decision",
  architecture: "decision",
  bugfix: "gotcha",
  pattern: "convention",
  convention: "convention",
  config: "fact",
  discovery: "fact",
  learning: "fact",
  preference: "preference",
  todo: "todo",
};

/** engram writes `2006-01-02 15:04:05` in UTC (older builds RFC 3339): ISO with second precision. */
function isoTime(raw: string | null | undefined, fallback: string): string {
  if (!raw) return fallback;
  const s = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(raw) ? `${raw.replace(" ", "T")}Z` : raw;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z") : fallback;
}

const tag = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9_/-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);

export type EngramOptions = { file: string; project?: string; cwd?: string; text?: string };

export function planEngram(opts: EngramOptions): ImportPlan {
  const cwd = opts.cwd ?? process.cwd();
  const path = resolve(cwd, opts.file);
  let raw: unknown;
  try {
    raw = JSON.parse(opts.text ?? readFileSync(path, "utf8"));
  } catch (err) {
    // a missing file is said as such, not as a raw ENOENT (issue 37)
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new CofferError(`${path} does not exist`, 1, "Give the file `engram export <file>` wrote.");
    throw new CofferError(
      `cannot read ${path} as JSON: ${(err as Error).message.split("\n")[0]}`,
      1,
      "Give the file `engram export <file>` wrote.",
    );
  }
  const parsed = v.safeParse(Export, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = issue?.path?.map((p) => String(p.key)).join(".") ?? "";
    throw new CofferError(
      `${path} is not an engram export (${where ? `${where}: ` : ""}${issue?.message ?? "unexpected shape"})`,
      1,
      "Give the file `engram export <file>` wrote.",
    );
  }
  const data = parsed.output;
  const warnings: string[] = [];
  if (!data.observations?.length && !data.sessions?.length)
    warnings.push(
      `${path} holds no memories (no observations or sessions): is it the file \`engram export <file>\` wrote?`,
    );
  const map = parseProjectMap(opts.project);
  const sessions = new Map((data.sessions ?? []).map((s) => [s.id, s]));

  // Directories per project name, from the sessions that recorded one.
  const dirs = new Map<string, string[]>();
  for (const s of data.sessions ?? []) {
    if (!s.project || !s.directory) continue;
    const list = dirs.get(s.project) ?? [];
    if (!list.includes(s.directory)) list.push(s.directory);
    dirs.set(s.project, list);
  }
  const live = (data.observations ?? []).filter((o) => !o.deleted_at && (o.content ?? "").trim());
  const projectOf = (o: v.InferOutput<typeof Observation>) =>
    o.project || (o.session_id ? sessions.get(o.session_id)?.project : undefined) || "";
  const counts = new Map<string, number>();
  for (const o of live) if (o.scope !== "personal") counts.set(projectOf(o), (counts.get(projectOf(o)) ?? 0) + 1);
  for (const s of data.sessions ?? [])
    if (s.summary?.trim()) counts.set(s.project ?? "", (counts.get(s.project ?? "") ?? 0) + 1);
  const placement = new Map<string, Placement>();
  for (const [name, n] of counts)
    placement.set(name, placeProject(name || "(none)", dirs.get(name) ?? [], map, cwd, "engram", n));
  const skipped: ImportPlan["skipped"] = [];
  for (const [name, p] of placement) if ("skip" in p) skipped.push({ reason: p.skip, count: counts.get(name)! });

  // Keys name the export's store too (another machine's engram reuses the same observation ids),
  // and each original's content (a copy of this store shares its first rows).
  const firstBy = <T extends { id: unknown }>(list: T[]) =>
    [...list].sort((a, b) => String(a.id).localeCompare(String(b.id), "en", { numeric: true }))[0];
  const fo = firstBy(data.observations ?? []);
  const fs = firstBy(data.sessions ?? []);
  const source = sourceId(
    JSON.stringify([fo && [fo.id, fo.session_id, fo.created_at], fs && [fs.id, fs.started_at, fs.project]]),
  );
  const items: ImportItem[] = [];
  const epoch = "1970-01-01T00:00:00Z";
  for (const o of live) {
    const p: Placement = o.scope === "personal" ? { scope: GLOBAL } : placement.get(projectOf(o))!;
    if ("skip" in p) continue;
    const body = (o.content ?? "").trim();
    const type = (o.type ?? "").toLowerCase();
    const created = isoTime(o.created_at, epoch);
    const tags = ["engram"];
    // scrubbed as written: a secret lowercased into a tag is one no rule knows
    if (type && type !== "manual" && !scrub(type).redactions) tags.push(tag(type));
    if (o.topic_key && !scrub(o.topic_key).redactions) tags.push(tag(o.topic_key));
    items.push({
      scope: p.scope,
      project: p.project,
      kind: KIND_OF[type] ?? "note",
      title: o.title?.trim() || deriveTitle(body),
      body,
      tags: tags.filter(Boolean),
      created,
      updated: isoTime(o.updated_at, created),
      // Place and content: a copy of this engram store numbers its later observations on its own.
      imported_from: originalKey(`engram:${source}:observation:${o.id}`, [
        o.session_id,
        o.type,
        o.title,
        o.content,
        o.project,
        o.scope,
        o.topic_key,
        o.created_at,
      ]),
      earlier_key: `engram:${source}:observation:${o.id}`,
      origin_session: o.session_id ?? undefined,
      label: `engram observation ${o.id}${o.project ? ` (${o.project})` : ""}`,
    });
  }
  for (const s of data.sessions ?? []) {
    const summary = s.summary?.trim();
    if (!summary) continue;
    const p = placement.get(s.project ?? "");
    if (!p || "skip" in p) continue;
    const created = isoTime(s.ended_at ?? s.started_at, epoch);
    items.push({
      scope: p.scope,
      project: p.project,
      kind: "note",
      title: `Session: ${deriveTitle(summary)}`,
      body: summary,
      tags: ["engram", "session-summary"],
      created,
      updated: created,
      imported_from: originalKey(`engram:${source}:session:${s.id}`, [s.project, s.directory, s.started_at, summary]),
      earlier_key: `engram:${source}:session:${s.id}`,
      origin_session: s.id,
      label: `engram session ${s.id}`,
    });
  }
  return { source: "engram", from: path, items, skipped, ...(warnings.length ? { warnings } : {}) };
}
