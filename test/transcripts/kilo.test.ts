/**
 * Kilo Code's sessions, read from its SQLite database: a `kilo.db` made here with the tables and
 * rows Kilo 7.7.7 wrote in a real run (test/fixtures/transcripts/kilo/observed-7.7.7.json), kept in
 * WAL mode with a writer connection open, as while Kilo runs. Listed as `<kilo.db>#<id>`, parsed,
 * its acts; the database never written; a locked database and an unknown schema give no sessions
 * and a reason; `coffer distill list/show` find the session through the binary.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { sessionSha256 } from "../../src/distill/ledger";
import { kiloSessions } from "../../src/store/foreign/kilo";
import { ADAPTERS, detectHost, parseSessionFile, resolveSession, sessionFileAt } from "../../src/transcripts/discovery";
import { kiloActivity, kiloDb, kiloHead, listKiloSessions, readKilo } from "../../src/transcripts/kilo";
import { type Sandbox, sandbox } from "../kit";

const FIXTURE = JSON.parse(
  readFileSync(join(import.meta.dir, "..", "fixtures", "transcripts", "kilo", "observed-7.7.7.json"), "utf8"),
) as { schema: Record<string, string>; rows: Record<string, Record<string, unknown>[]> };
const ID = "ses_dc2211f7dffeV1HHtAZVPzAh3M";

let sb: Sandbox;
let repo: string;
let writer: Database;
const saved = { HOME: process.env.HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME };

/** A kilo.db with the observed tables and rows (`cwd` for /home/u/proj). */
function makeDb(path: string, cwd: string, opts: { schema?: Record<string, string> } = {}): Database {
  mkdirSync(join(path, ".."), { recursive: true });
  const db = new Database(path, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  for (const sql of Object.values(opts.schema ?? FIXTURE.schema)) db.exec(sql);
  for (const [table, rows] of Object.entries(FIXTURE.rows)) {
    const have = new Set(
      (db.query(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => c.name),
    );
    for (const row of rows) {
      const cols = Object.keys(row).filter((c) => have.has(c));
      const values = cols.map((c) => {
        const v = row[c];
        return typeof v === "string" ? v.replaceAll("/home/u/proj", cwd) : (v as string | number | null);
      });
      db.query(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...values);
    }
  }
  return db;
}

beforeAll(() => {
  sb = sandbox("coffer-kilo-");
  repo = sb.repo("shop");
  process.env.HOME = sb.home;
  delete process.env.XDG_DATA_HOME;
  writer = makeDb(join(sb.home, ".local", "share", "kilo", "kilo.db"), repo);
});
afterAll(() => {
  writer.close();
  process.env.HOME = saved.HOME;
  if (saved.XDG_DATA_HOME !== undefined) process.env.XDG_DATA_HOME = saved.XDG_DATA_HOME;
  sb.cleanup();
});

test("sessions are listed from kilo.db as <db>#<id>, with rows and the last update as size and time", () => {
  const db = kiloDb();
  expect(db).toBe(join(sb.home, ".local", "share", "kilo", "kilo.db"));
  const files = listKiloSessions();
  expect(files).toEqual([
    {
      host: "kilo",
      path: `${db}#${ID}`,
      session_id: ID,
      size: FIXTURE.rows.message!.length + FIXTURE.rows.part!.length,
      mtimeMs: FIXTURE.rows.session![0]!.time_updated as number,
    },
  ]);
  expect(listKiloSessions((FIXTURE.rows.session![0]!.time_updated as number) + 1)).toEqual([]);
  expect(detectHost(files[0]!.path)).toBe("kilo");
  expect(sessionFileAt(files[0]!.path)).toEqual(files[0]!);
  expect(resolveSession(ID)).toEqual(files[0]!);
  expect(resolveSession(ID.slice(0, 10), ["kilo"])).toEqual(files[0]!);
  expect(kiloHead(files[0]!.path)).toEqual({ session_id: ID, cwd: repo, first_activity: "2026-12-03T21:45:46.371Z" });
});

test("the conversation: typed prompts and the agent's words; tool calls and step parts are not text", () => {
  const file = resolveSession(ID);
  const p = parseSessionFile(file);
  expect(p).toMatchObject({ host: "kilo", session_id: ID, cwd: repo, title: "OK." }); // Kilo's title model answered "OK."
  expect(p.subagent).toBeUndefined();
  // `kilo run` stores a message given with spaces in quotes, as it was passed on.
  expect(p.turns.map((t) => [t.role, t.text])).toEqual([
    ["user", '"How do we deploy? Read notes.md"'],
    ["assistant", "Let me look."],
    ["assistant", "The notes say to deploy with make release."], // after the tool's result
    ["user", '"And who tags the release?"'],
    ["assistant", "The notes say to deploy with make release."],
  ]);
  expect(p.first_activity).toBe("2026-12-03T21:45:49.241Z");
  const acts = kiloActivity(readKilo(file.path));
  expect(acts.map((a) => [a.kind, a.tool ?? ""])).toEqual([
    ["prompt", ""],
    ["say", ""],
    ["tool", "read"],
    ["result", "read"],
    ["say", ""],
    ["prompt", ""],
    ["say", ""],
  ]);
  expect(acts[2]!.text).toBe(JSON.stringify({ filePath: join(repo, "notes.md") }));
  expect(acts[3]!.text).toContain("1: Deploy with make release");
  expect(ADAPTERS.kilo.activity).toBe(kiloActivity);
});

test("read-only: reading leaves kilo.db as it was; the ledger's hash follows the rows", () => {
  const dir = join(sb.home, ".local", "share", "kilo");
  // The database and its -wal (the -shm index is shared memory every reader marks: SQLite's own).
  const files = () =>
    ["kilo.db", "kilo.db-wal"].map((n) => [n, statSync(join(dir, n)).mtimeMs, statSync(join(dir, n)).size]);
  const before = files();
  const file = resolveSession(ID);
  const sha = sessionSha256(file);
  parseSessionFile(file);
  expect(files()).toEqual(before);
  expect(sessionSha256(file)).toBe(sha);
  writer
    .query("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)")
    .run("prt_zzzz", FIXTURE.rows.message!.at(-1)!.id as string, ID, 1, 1, '{"type":"text","text":"One more thing."}');
  expect(sessionSha256(file)).not.toBe(sha);
  expect(parseSessionFile(file).turns.at(-1)!.text).toBe(
    "The notes say to deploy with make release.\n\nOne more thing.",
  );
  writer.query("DELETE FROM part WHERE id = 'prt_zzzz'").run();
});

test("a subagent's session (parent_id) is marked so", () => {
  const dir = join(sb.root, "sub");
  const db = makeDb(join(dir, "kilo.db"), repo);
  db.query("UPDATE session SET parent_id = 'ses_parent'").run();
  db.close();
  const path = `${join(dir, "kilo.db")}#${ID}`;
  expect(kiloHead(path).subagent).toBe(true);
});

test("a locked database or an unknown schema: no sessions, and a reason", () => {
  const dir = join(sb.root, "locked");
  mkdirSync(dir, { recursive: true });
  const lockedPath = join(dir, "kilo.db");
  const locked = makeDb(lockedPath, repo);
  locked.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  locked.exec("PRAGMA journal_mode = DELETE");
  locked.exec("BEGIN EXCLUSIVE");
  locked.query("UPDATE session SET title = 'x'").run();
  const r = kiloSessions(lockedPath);
  expect(r.ok).toBe(false);
  if (!r.ok) expect(r.reason).toMatch(/^Kilo's session database is busy \(database is locked\)/);
  locked.exec("ROLLBACK");
  locked.close();
  expect(kiloSessions(lockedPath).ok).toBe(true);

  const oldPath = join(sb.root, "old", "kilo.db");
  const schema = { ...FIXTURE.schema, session: FIXTURE.schema.session!.replace("`directory` text NOT NULL,", "") };
  makeDb(oldPath, repo, { schema }).close();
  const old = kiloSessions(oldPath);
  expect(old).toEqual({
    ok: false,
    reason:
      "Kilo's session database has a schema Coffer does not know (the session table has no directory); a newer version may have changed it",
  });
  expect(kiloSessions(join(sb.root, "none", "kilo.db"))).toMatchObject({ ok: false });
});

test("coffer distill list and show find the Kilo session", () => {
  const list = sb.run(["distill", "list", "--agent", "kilo", "--json"]);
  expect(list.code).toBe(0);
  const rows = list.json().sessions as { session_id: string; project: string; messages: number; path: string }[];
  expect(rows).toEqual([expect.objectContaining({ session_id: ID, project: "shop", messages: 5 })]);
  expect(rows[0]!.path).toBe(`${join(sb.home, ".local", "share", "kilo", "kilo.db")}#${ID}`);
  const show = sb.run(["distill", "show", ID.slice(0, 12)]);
  expect(show.code).toBe(0);
  expect(show.stdout).toStartWith("Transcript of a kilo session in project shop:");
  expect(show.stdout).toContain("The notes say to deploy with make release.");
  expect(sb.run(["distill", "show", rows[0]!.path]).stdout).toBe(show.stdout);
});

test("distill list names a Kilo database it cannot read, and why", () => {
  const home = join(sb.root, "home-old");
  const schema = {
    ...FIXTURE.schema,
    part: FIXTURE.schema.part!.replace("`data` text NOT NULL,", "`body` text,"),
  };
  makeDb(join(home, ".local", "share", "kilo", "kilo.db"), repo, { schema }).close();
  const list = sb.run(["distill", "list", "--agent", "kilo", "--json"], { env: { HOME: home } });
  expect(list.code).toBe(0);
  expect(list.json()).toEqual({
    sessions: [],
    unreadable: [
      {
        host: "kilo",
        reason:
          "Kilo's session database has a schema Coffer does not know (the part table has no data); a newer version may have changed it",
      },
    ],
  });
  const human = sb.run(["distill", "list", "--agent", "kilo"], { env: { HOME: home } });
  expect(human.stderr).toContain("kilo: Kilo's session database has a schema Coffer does not know");
  expect(sb.run(["distill", "list", "--agent", "kilo", "--json"]).json().unreadable).toBeUndefined();
});
