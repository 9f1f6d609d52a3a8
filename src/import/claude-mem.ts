/**
 * claude-mem (`~/.claude-mem/claude-mem.db`): observations and session summaries, read-only.
 * Schema as created by the published `claude-mem` package's migrations (13.x): `observations`
 * (type, title, subtitle, facts/concepts/files_* as JSON arrays, narrative, created_at ISO),
 * `session_summaries` (request, investigated, learned, completed, next_steps, notes),
 * `sdk_sessions` (memory_session_id -> content_session_id = the agent's own session id), and the
 * working directories it saw in `tool_uses.cwd` / `pending_messages.cwd`. Older databases lack some
 * columns; only the ones present are read.
 */
import { isAbsolute, join, relative } from "node:path";
import { homeDir } from "../lib/paths";
import { scrub } from "../scrub";
import { deriveTitle, type Kind, openClaudeMemDb } from "../store";
import { originalKey, type Placement, parseProjectMap, placeProject, sourceId } from "./scopes";
import type { ImportItem, ImportPlan } from "./types";

function defaultClaudeMemDb(): string {
  return join(process.env.CLAUDE_MEM_DATA_DIR || join(homeDir(), ".claude-mem"), "claude-mem.db");
}

/** claude-mem observation types (its "code" mode and the security ones) -> Coffer kinds. */
const KIND_OF: Record<string, Kind> = {
  decision: "decision",
  bugfix: "gotcha",
  security_alert: "gotcha",
  discovery: "fact",
  security_note: "fact",
  feature: "note",
  refactor: "note",
  change: "note",
};

/** Observation types never brought over: claude-mem itself flags them as sensitive. */
const SKIPPED_TYPES = new Set(["sensitive"]);

function jsonList(raw: unknown): string[] {
  if (typeof raw !== "string" || !raw.trim()) return [];
  try {
    const v = JSON.parse(raw);
    if (Array.isArray(v)) return v.filter((x) => typeof x === "string" && x.trim()).map((x) => x.trim());
  } catch {}
  return [raw.trim()];
}

/** ISO time with second precision, from claude-mem's ISO string or its epoch milliseconds. */
/** Latest time Coffer accepts (9999-12-31T23:59:59Z); anything past it is not a time. */
const MAX_MS = 253402300799000;

/** A row's time from its epoch (seconds or ms) or its text; undefined when neither is a real time. */
function isoTime(text: unknown, epoch: unknown): string | undefined {
  const ok = (ms: number) => Number.isFinite(ms) && ms > 0 && ms <= MAX_MS;
  const fromEpoch = typeof epoch === "number" ? (epoch < 1e12 ? epoch * 1000 : epoch) : Number.NaN;
  const ms = ok(fromEpoch) ? fromEpoch : Date.parse(String(text ?? ""));
  return ok(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z") : undefined;
}

/** A concept as a tag; none for one that holds a secret (scrubbed as written: lowercased, no rule knows it). */
function tagOf(concept: string): string | undefined {
  if (scrub(concept).redactions) return undefined;
  const t = concept
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return t || undefined;
}

/** File lists shown relative to the project root when they are under it. */
function fileLine(files: string[], root: string | undefined): string | undefined {
  const shown = [...new Set(files)]
    .slice(0, 10)
    .map((f) => (root && isAbsolute(f) && !relative(root, f).startsWith("..") ? relative(root, f) : f));
  return shown.length ? `Files: ${shown.join(", ")}${files.length > 10 ? ", …" : ""}` : undefined;
}

export type ClaudeMemOptions = { db?: string; project?: string; cwd?: string };

/** Read claude-mem's database into an import plan (nothing is written). */
export function planClaudeMem(opts: ClaudeMemOptions = {}): ImportPlan {
  const path = opts.db ?? defaultClaudeMemDb();
  const cwd = opts.cwd ?? process.cwd();
  const map = parseProjectMap(opts.project);
  const db = openClaudeMemDb(path);
  try {
    // Keys name the database too (another machine's database reuses the same row ids), and each
    // row's content (a copy of this one shares its first rows, so its source id).
    const source = sourceId(db.identity());
    const sessions = db.agentSessions();
    const dirs = db.directories();
    const counts = db.counts();
    // Absolute file paths an observation touched point at the project too (a sample per project).
    for (const name of counts.keys()) {
      const list = dirs.get(name) ?? [];
      for (const r of db.fileLists(name, 50)) {
        if (list.length >= 3) break;
        const f = [...jsonList(r.files_modified), ...jsonList(r.files_read)].find((x) => isAbsolute(x));
        const dir = f ? f.slice(0, f.lastIndexOf("/")) || "/" : undefined;
        if (dir && !list.includes(dir)) list.push(dir);
      }
      dirs.set(name, list);
    }
    const placement = new Map<string, Placement>();
    for (const [name, n] of counts)
      placement.set(name, placeProject(name, dirs.get(name) ?? [], map, cwd, "claude-mem", n));

    const items: ImportItem[] = [];
    const skipped: ImportPlan["skipped"] = [];
    for (const [name, p] of placement) if ("skip" in p) skipped.push({ reason: p.skip, count: counts.get(name)! });
    let sensitive = 0;
    // Rows whose time is not a time (an epoch past the year 9999, text that is no date): dated now.
    let badTimes = 0;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    const undated = () => {
      badTimes++;
      return now;
    };

    for (const o of db.observations()) {
      const p = placement.get(o.proj)!;
      if ("skip" in p) continue;
      const type = typeof o.type === "string" ? o.type : "";
      if (SKIPPED_TYPES.has(type)) {
        sensitive++;
        continue;
      }
      const facts = jsonList(o.facts);
      const narrative = typeof o.narrative === "string" ? o.narrative.trim() : "";
      const parts: string[] = [];
      if (typeof o.subtitle === "string" && o.subtitle.trim()) parts.push(o.subtitle.trim());
      if (narrative) parts.push(narrative);
      if (facts.length) parts.push(facts.map((f) => `- ${f}`).join("\n"));
      if (!narrative && !facts.length && typeof o.text === "string" && o.text.trim()) parts.push(o.text.trim());
      const files = fileLine([...jsonList(o.files_modified), ...jsonList(o.files_read)], p.project?.root);
      if (!parts.length) continue;
      if (files) parts.push(files);
      const body = parts.join("\n\n");
      const title = typeof o.title === "string" && o.title.trim() ? o.title.trim() : deriveTitle(body);
      const time = isoTime(o.created_at, o.created_at_epoch) ?? undated();
      const concepts = jsonList(o.concepts)
        .map(tagOf)
        .filter((t): t is string => !!t);
      items.push({
        scope: p.scope,
        project: p.project,
        kind: KIND_OF[type] ?? "note",
        title,
        body,
        tags: ["claude-mem", ...(type && type !== "discovery" ? [tagOf(type)!] : []), ...concepts].slice(0, 8),
        created: time,
        updated: time,
        // The row's place and content: a copy of this database numbers its later rows on its own.
        imported_from: originalKey(`claude-mem:${source}:observation:${o.id}`, o),
        earlier_key: `claude-mem:${source}:observation:${o.id}`,
        origin_session: o.session ? sessions.get(o.session) : undefined,
        label: `claude-mem observation ${o.id} (${o.proj})`,
      });
    }
    for (const s of db.summaries()) {
      const p = placement.get(s.proj)!;
      if ("skip" in p) continue;
      const section = (label: string, v: unknown) =>
        typeof v === "string" && v.trim() ? `**${label}:** ${v.trim()}` : undefined;
      const parts = [
        section("Request", s.request),
        section("Investigated", s.investigated),
        section("Learned", s.learned),
        section("Completed", s.completed),
        section("Next steps", s.next_steps),
        section("Notes", s.notes),
        fileLine(jsonList(s.files_edited), p.project?.root),
      ].filter((x): x is string => !!x);
      if (!parts.length || parts.length === 1) continue;
      const time = isoTime(s.created_at, s.created_at_epoch) ?? undated();
      const request = typeof s.request === "string" ? s.request.trim() : "";
      items.push({
        scope: p.scope,
        project: p.project,
        kind: "note",
        title: request ? `Session: ${deriveTitle(request)}` : `Session summary ${time.slice(0, 10)}`,
        body: parts.join("\n\n"),
        tags: ["claude-mem", "session-summary"],
        created: time,
        updated: time,
        imported_from: originalKey(`claude-mem:${source}:summary:${s.id}`, s),
        earlier_key: `claude-mem:${source}:summary:${s.id}`,
        origin_session: s.session ? sessions.get(s.session) : undefined,
        label: `claude-mem session summary ${s.id} (${s.proj})`,
      });
    }
    const warnings = db.notRead.map((t) => `${t} in ${path} is a view or virtual table, not a table: not read`);
    if (badTimes)
      warnings.push(
        `${badTimes} original${badTimes === 1 ? " has" : "s have"} no valid time (epoch or date out of range): dated now`,
      );
    if (sensitive)
      skipped.push({ reason: `${sensitive} observations of type "sensitive" not imported`, count: sensitive });
    return { source: "claude-mem", from: path, items, skipped, ...(warnings.length ? { warnings } : {}) };
  } finally {
    db.close();
  }
}
