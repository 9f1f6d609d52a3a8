/**
 * claude-mem (`~/.claude-mem/claude-mem.db`): observations and session summaries, read-only.
 * Schema as created by the published `claude-mem` package's migrations (13.x): `observations`
 * (type, title, subtitle, facts/concepts/files_* as JSON arrays, narrative, created_at ISO),
 * `session_summaries` (request, investigated, learned, completed, next_steps, notes),
 * `sdk_sessions` (memory_session_id -> content_session_id = the agent's own session id), and the
 * working directories it saw in `tool_uses.cwd` / `pending_messages.cwd`. Older databases lack some
 * columns; only the ones present are read.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { CofferError } from "../lib/errors";
import { homeDir } from "../lib/paths";
import { deriveTitle, type Kind } from "../store/entry";
import { type Placement, parseProjectMap, placeProject } from "./scopes";
import type { ImportItem, ImportPlan } from "./types";

export function defaultClaudeMemDb(): string {
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

function openReadOnly(path: string): Database {
  if (!existsSync(path)) {
    throw new CofferError(
      `no claude-mem database at ${path}`,
      1,
      "Point at it with --db <path> (claude-mem keeps it in ~/.claude-mem/claude-mem.db).",
    );
  }
  try {
    const db = new Database(path, { readonly: true });
    // claude-mem's worker may be writing (WAL): wait for its locks instead of failing.
    db.run("PRAGMA busy_timeout = 5000");
    db.query("SELECT count(*) FROM sqlite_master").get();
    return db;
  } catch (err) {
    throw new CofferError(`cannot read ${path}: ${(err as Error).message}`, 1, "Is it a claude-mem database?");
  }
}

function columns(db: Database, table: string): Set<string> {
  return new Set((db.query(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((r) => r.name));
}

function jsonList(raw: unknown): string[] {
  if (typeof raw !== "string" || !raw.trim()) return [];
  try {
    const v = JSON.parse(raw);
    if (Array.isArray(v)) return v.filter((x) => typeof x === "string" && x.trim()).map((x) => x.trim());
  } catch {}
  return [raw.trim()];
}

/** ISO time with second precision, from claude-mem's ISO string or its epoch milliseconds. */
function isoTime(text: unknown, epoch: unknown): string {
  const ms =
    typeof epoch === "number" && epoch > 0 ? (epoch < 1e12 ? epoch * 1000 : epoch) : Date.parse(String(text ?? ""));
  const d = Number.isFinite(ms) ? new Date(ms) : new Date(0);
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function tagOf(concept: string): string | undefined {
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

type ObsRow = Record<string, unknown> & { id: number; proj: string; type: string; memory_session_id: string };
type SumRow = Record<string, unknown> & { id: number; proj: string; memory_session_id: string };

export type ClaudeMemOptions = { db?: string; project?: string; cwd?: string };

/** Read claude-mem's database into an import plan (nothing is written). */
export function planClaudeMem(opts: ClaudeMemOptions = {}): ImportPlan {
  const path = opts.db ?? defaultClaudeMemDb();
  const cwd = opts.cwd ?? process.cwd();
  const map = parseProjectMap(opts.project);
  const db = openReadOnly(path);
  try {
    const obsCols = columns(db, "observations");
    const sumCols = columns(db, "session_summaries");
    if (!obsCols.size && !sumCols.size) {
      throw new CofferError(
        `${path} has no observations or session_summaries table`,
        1,
        "Is it a claude-mem database?",
      );
    }
    const pick = (cols: Set<string>, names: string[]) =>
      names
        .filter((n) => cols.has(n))
        .map((n) => `, ${n}`)
        .join("");
    // Before claude-mem's rename migration the session column was `sdk_session_id`.
    const sessionCol = (cols: Set<string>) =>
      cols.has("memory_session_id") ? "memory_session_id" : cols.has("sdk_session_id") ? "sdk_session_id" : "NULL";
    const projExpr = (cols: Set<string>) =>
      cols.has("merged_into_project") ? "COALESCE(NULLIF(merged_into_project, ''), project)" : "project";

    // Rows are streamed (iterate), never all held at once: a database of years weighs tens of MB.
    const obsSql = obsCols.size
      ? `SELECT id, ${projExpr(obsCols)} AS proj, ${sessionCol(obsCols)} AS memory_session_id, type${pick(obsCols, [
          "text",
          "title",
          "subtitle",
          "facts",
          "narrative",
          "concepts",
          "files_read",
          "files_modified",
          "created_at",
          "created_at_epoch",
        ])} FROM observations ORDER BY id`
      : undefined;
    const sumSql = sumCols.size
      ? `SELECT id, ${projExpr(sumCols)} AS proj, ${sessionCol(sumCols)} AS memory_session_id${pick(sumCols, [
          "request",
          "investigated",
          "learned",
          "completed",
          "next_steps",
          "notes",
          "files_edited",
          "created_at",
          "created_at_epoch",
        ])} FROM session_summaries ORDER BY id`
      : undefined;
    const obs = (): Iterable<ObsRow> => (obsSql ? (db.query(obsSql).iterate() as Iterable<ObsRow>) : []);
    const sums = (): Iterable<SumRow> => (sumSql ? (db.query(sumSql).iterate() as Iterable<SumRow>) : []);
    // The agent's own session id for each claude-mem memory session.
    const sessions = new Map<string, string>();
    const sessCols = columns(db, "sdk_sessions");
    const sessKey = sessCols.has("memory_session_id") ? "memory_session_id" : "sdk_session_id";
    const agentKey = sessCols.has("content_session_id") ? "content_session_id" : "claude_session_id";
    if (sessCols.has(sessKey) && sessCols.has(agentKey)) {
      for (const r of db.query(`SELECT ${sessKey} AS m, ${agentKey} AS c FROM sdk_sessions`).all() as {
        m: string | null;
        c: string | null;
      }[])
        if (r.m && r.c) sessions.set(r.m, r.c);
    }

    // Directories claude-mem saw per project, most used first.
    const dirs = new Map<string, string[]>();
    const addDirs = (sql: string) => {
      for (const r of db.query(sql).all() as { proj: string; cwd: string }[]) {
        if (!r.cwd) continue;
        const list = dirs.get(r.proj) ?? [];
        if (!list.includes(r.cwd)) list.push(r.cwd);
        dirs.set(r.proj, list);
      }
    };
    if (columns(db, "tool_uses").has("cwd"))
      addDirs("SELECT project AS proj, cwd FROM tool_uses WHERE cwd IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC");
    if (columns(db, "pending_messages").has("cwd") && sessCols.has("id"))
      addDirs(
        `SELECT s.project AS proj, p.cwd AS cwd FROM pending_messages p JOIN sdk_sessions s ON s.id = p.session_db_id
         WHERE p.cwd IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC`,
      );
    const counts = new Map<string, number>();
    for (const table of [obsCols.size ? "observations" : "", sumCols.size ? "session_summaries" : ""].filter(Boolean)) {
      const expr = projExpr(table === "observations" ? obsCols : sumCols);
      for (const r of db.query(`SELECT ${expr} AS proj, count(*) AS n FROM ${table} GROUP BY 1`).all() as {
        proj: string;
        n: number;
      }[])
        counts.set(r.proj, (counts.get(r.proj) ?? 0) + r.n);
    }
    // Absolute file paths an observation touched point at the project too (a sample per project).
    if (obsCols.has("files_modified") && obsCols.has("files_read")) {
      const sample = db.query(
        `SELECT files_modified, files_read FROM observations WHERE ${projExpr(obsCols)} = ? ORDER BY id DESC LIMIT 50`,
      );
      for (const name of counts.keys()) {
        const list = dirs.get(name) ?? [];
        for (const r of sample.all(name) as { files_modified: unknown; files_read: unknown }[]) {
          if (list.length >= 3) break;
          const f = [...jsonList(r.files_modified), ...jsonList(r.files_read)].find((x) => isAbsolute(x));
          const dir = f ? f.slice(0, f.lastIndexOf("/")) || "/" : undefined;
          if (dir && !list.includes(dir)) list.push(dir);
        }
        dirs.set(name, list);
      }
    }
    const placement = new Map<string, Placement>();
    for (const [name, n] of counts)
      placement.set(name, placeProject(name, dirs.get(name) ?? [], map, cwd, "claude-mem", n));

    const items: ImportItem[] = [];
    const skipped: ImportPlan["skipped"] = [];
    for (const [name, p] of placement) if ("skip" in p) skipped.push({ reason: p.skip, count: counts.get(name)! });
    let sensitive = 0;

    for (const o of obs()) {
      const p = placement.get(o.proj)!;
      if ("skip" in p) continue;
      if (SKIPPED_TYPES.has(o.type)) {
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
      const time = isoTime(o.created_at, o.created_at_epoch);
      const concepts = jsonList(o.concepts)
        .map(tagOf)
        .filter((t): t is string => !!t);
      items.push({
        scope: p.scope,
        project: p.project,
        kind: KIND_OF[o.type] ?? "note",
        title,
        body,
        tags: ["claude-mem", ...(o.type && o.type !== "discovery" ? [tagOf(o.type)!] : []), ...concepts].slice(0, 8),
        created: time,
        updated: time,
        imported_from: `claude-mem:observation:${o.id}`,
        origin_session: sessions.get(o.memory_session_id),
        label: `claude-mem observation ${o.id} (${o.proj})`,
      });
    }
    for (const s of sums()) {
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
      const time = isoTime(s.created_at, s.created_at_epoch);
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
        imported_from: `claude-mem:summary:${s.id}`,
        origin_session: sessions.get(s.memory_session_id),
        label: `claude-mem session summary ${s.id} (${s.proj})`,
      });
    }
    if (sensitive)
      skipped.push({ reason: `${sensitive} observations of type "sensitive" not imported`, count: sensitive });
    return { source: "claude-mem", from: path, items, skipped };
  } finally {
    db.close();
  }
}
