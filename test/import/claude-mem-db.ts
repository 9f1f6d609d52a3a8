/**
 * Builds claude-mem databases for tests with the schema claude-mem's own migrations create
 * (test/fixtures/import/claude-mem-13.25.3.sql), filled the way its worker fills them.
 */
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const SCHEMA = readFileSync(join(import.meta.dir, "..", "fixtures", "import", "claude-mem-13.25.3.sql"), "utf8");

export type Obs = {
  project: string;
  session: string;
  type: string;
  title?: string;
  subtitle?: string;
  facts?: string[];
  narrative?: string;
  concepts?: string[];
  files_modified?: string[];
  at: string;
};

export type Summary = {
  project: string;
  session: string;
  request?: string;
  learned?: string;
  completed?: string;
  next_steps?: string;
  at: string;
};

export class ClaudeMemDb {
  readonly db: Database;
  private sessions = new Set<string>();

  /** `existing`: open a database built before (a copy of one), without creating the schema again. */
  constructor(
    readonly path: string,
    existing = false,
  ) {
    this.db = new Database(path, { create: !existing });
    this.db.run("PRAGMA journal_mode = WAL");
    if (!existing) this.db.run(SCHEMA);
    else
      for (const r of this.db.query("SELECT memory_session_id AS s FROM sdk_sessions").all() as { s: string }[])
        this.sessions.add(r.s);
  }

  session(memorySession: string, project: string, cwd?: string): void {
    if (this.sessions.has(memorySession)) return;
    this.sessions.add(memorySession);
    this.db
      .query(
        `INSERT INTO sdk_sessions(content_session_id, memory_session_id, project, started_at, started_at_epoch, status)
         VALUES(?, ?, ?, ?, ?, 'completed')`,
      )
      .run(`claude-${memorySession}`, memorySession, project, "2025-06-01T10:00:00.000Z", 1748772000000);
    if (cwd) {
      this.db
        .query(
          `INSERT INTO tool_uses(tool_use_id, content_session_id, memory_session_id, project, tool_name, cwd,
             created_at, created_at_epoch) VALUES(?, ?, ?, ?, 'Read', ?, ?, ?)`,
        )
        .run(
          `tu-${memorySession}`,
          `claude-${memorySession}`,
          memorySession,
          project,
          cwd,
          "2025-06-01T10:00:00.000Z",
          1748772000000,
        );
    }
  }

  observation(o: Obs): number {
    const res = this.db
      .query(
        `INSERT INTO observations(memory_session_id, project, text, type, title, subtitle, facts, narrative, concepts,
           files_read, files_modified, prompt_number, created_at, created_at_epoch)
         VALUES(?, ?, NULL, ?, ?, ?, ?, ?, ?, '[]', ?, 1, ?, ?)`,
      )
      .run(
        o.session,
        o.project,
        o.type,
        o.title ?? null,
        o.subtitle ?? null,
        JSON.stringify(o.facts ?? []),
        o.narrative ?? null,
        JSON.stringify(o.concepts ?? []),
        JSON.stringify(o.files_modified ?? []),
        o.at,
        Date.parse(o.at),
      );
    return Number(res.lastInsertRowid);
  }

  summary(s: Summary): number {
    const res = this.db
      .query(
        `INSERT INTO session_summaries(memory_session_id, project, request, investigated, learned, completed, next_steps,
           files_read, files_edited, notes, prompt_number, created_at, created_at_epoch)
         VALUES(?, ?, ?, NULL, ?, ?, ?, '[]', '[]', NULL, 1, ?, ?)`,
      )
      .run(
        s.session,
        s.project,
        s.request ?? null,
        s.learned ?? null,
        s.completed ?? null,
        s.next_steps ?? null,
        s.at,
        Date.parse(s.at),
      );
    return Number(res.lastInsertRowid);
  }

  close(): void {
    this.db.close();
  }
}
