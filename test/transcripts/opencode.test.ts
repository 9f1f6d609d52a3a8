/**
 * OpenCode's sessions, read from its `opencode.db` with Kilo's reader (the same schema): a database
 * made here with the tables and rows OpenCode 1.18.33 wrote in a real run
 * (test/fixtures/transcripts/opencode/observed-1.18.33.json). Listed as `<opencode.db>#<id>` under
 * the host `opencode`, parsed, its acts; reasons name OpenCode's database; `coffer distill list/show`
 * through the binary.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { kiloSessions } from "../../src/store/foreign/kilo";
import { ADAPTERS, detectHost, parseSessionFile, resolveSession } from "../../src/transcripts/discovery";
import { listOpencodeSessions, readKilo } from "../../src/transcripts/kilo";
import { type Sandbox, sandbox } from "../kit";

const FIXTURE = JSON.parse(
  readFileSync(join(import.meta.dir, "..", "fixtures", "transcripts", "opencode", "observed-1.18.33.json"), "utf8"),
) as { schema: Record<string, string>; rows: Record<string, Record<string, unknown>[]> };
const ID = "ses_dc20a330fffeS99JVlYt5Qdn29";

let sb: Sandbox;
let repo: string;
let db: string;
const saved = { HOME: process.env.HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME };

beforeAll(() => {
  sb = sandbox("coffer-opencode-");
  repo = sb.repo("shop");
  process.env.HOME = sb.home;
  delete process.env.XDG_DATA_HOME;
  db = join(sb.home, ".local", "share", "opencode", "opencode.db");
  mkdirSync(join(db, ".."), { recursive: true });
  const d = new Database(db, { create: true });
  d.exec("PRAGMA journal_mode = WAL");
  for (const sql of Object.values(FIXTURE.schema)) d.exec(sql);
  for (const [table, rows] of Object.entries(FIXTURE.rows))
    for (const row of rows) {
      const cols = Object.keys(row);
      const values = cols.map((c) => {
        const v = row[c];
        return typeof v === "string" ? v.replaceAll("/home/u/proj", repo) : (v as string | number | null);
      });
      d.query(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...values);
    }
  d.close();
});
afterAll(() => {
  process.env.HOME = saved.HOME;
  if (saved.XDG_DATA_HOME !== undefined) process.env.XDG_DATA_HOME = saved.XDG_DATA_HOME;
  sb.cleanup();
});

test("OpenCode's sessions are read with Kilo's reader, under their own host", () => {
  const files = listOpencodeSessions();
  expect(files.map((f) => [f.host, f.session_id, f.path])).toEqual([["opencode", ID, `${db}#${ID}`]]);
  expect(detectHost(files[0]!.path)).toBe("opencode");
  expect(resolveSession(ID)).toEqual(files[0]!);
  const p = parseSessionFile(files[0]!);
  expect(p).toMatchObject({ host: "opencode", session_id: ID, cwd: repo });
  expect(p.turns.map((t) => [t.role, t.text])).toEqual([
    ["user", '"How do we deploy? Read notes.md"'],
    ["assistant", "Let me look."],
    ["assistant", "The notes say to deploy with make release."],
    ["user", '"And who tags the release?"'],
    ["assistant", "The notes say to deploy with make release."],
  ]);
  const acts = ADAPTERS.opencode.activity!(readKilo(files[0]!.path));
  expect(acts.filter((a) => a.kind === "tool").map((a) => [a.tool, a.text])).toEqual([
    ["read", JSON.stringify({ filePath: join(repo, "notes.md") })],
  ]);
});

test("a reason names OpenCode's database", () => {
  const r = kiloSessions(join(sb.root, "none", "opencode.db"));
  expect(r).toMatchObject({ ok: false });
  if (!r.ok) expect(r.reason).toStartWith("OpenCode's session database is not there");
});

test("coffer distill list and show find the OpenCode session", () => {
  const list = sb.run(["distill", "list", "--agent", "opencode", "--json"]);
  expect(list.code).toBe(0);
  expect(list.json().sessions).toEqual([expect.objectContaining({ session_id: ID, project: "shop", messages: 5 })]);
  const show = sb.run(["distill", "show", ID]);
  expect(show.code).toBe(0);
  expect(show.stdout).toStartWith("Transcript of a opencode session in project shop:");
});
