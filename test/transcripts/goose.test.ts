/**
 * Goose's sessions, read from its SQLite database. Goose cannot run here, so the database is made
 * with the schema its source creates (block/goose `crates/goose/src/session/session_manager.rs` at
 * dbec1655c17720cb591291603f1337ed7856afbd, `create_schema`, schema version 9) and rows written as
 * its `create_session` / `add_message` write them (content as `crates/goose/src/conversation/
 * message.rs` at 05132966 serialises it). Listed as `<sessions.db>#<id>`, parsed, its acts; where
 * the database is; `coffer distill list/show` through the binary.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { gooseSessions } from "../../src/store/foreign/goose";
import { parseSessionFile, resolveSession } from "../../src/transcripts/discovery";
import { gooseActivity, gooseDb, gooseHead, listGooseSessions, readGoose } from "../../src/transcripts/goose";
import { type Sandbox, sandbox } from "../kit";

/** Goose's `create_schema` (the tables Coffer reads, and the version table), verbatim. */
const SCHEMA = [
  `CREATE TABLE schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
  )`,
  "INSERT INTO schema_version (version) VALUES (9)",
  `CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER,
    accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER,
    schedule_id TEXT,
    recipe_json TEXT,
    user_recipe_values_json TEXT,
    provider_name TEXT,
    model_config_json TEXT,
    tenant_id TEXT,
    user_id TEXT
  )`,
  `CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT
  )`,
  "CREATE INDEX idx_messages_session ON messages(session_id)",
  "CREATE INDEX idx_messages_timestamp ON messages(timestamp)",
  "CREATE INDEX idx_messages_message_id ON messages(message_id)",
  "CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC)",
  "CREATE INDEX idx_sessions_type ON sessions(session_type)",
];

const ID = "20261203_1";
const VISIBLE = '{"userVisible":true,"agentVisible":true}';
const text = (t: string) => ({ type: "text", text: t });

let sb: Sandbox;
let repo: string;
const saved = {
  HOME: process.env.HOME,
  XDG_DATA_HOME: process.env.XDG_DATA_HOME,
  GOOSE_PATH_ROOT: process.env.GOOSE_PATH_ROOT,
};

/** A sessions.db as Goose 1.10+ writes it: one person's session with a shell call, and a subagent's. */
function makeDb(path: string, cwd: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  const db = new Database(path, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  for (const sql of SCHEMA) db.exec(sql);
  const session = db.query(
    "INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, extension_data, created_at, updated_at) VALUES (?, ?, FALSE, ?, ?, '{}', ?, ?)",
  );
  session.run(ID, "Deploy script review", "user", cwd, "2026-12-03 10:00:00", "2026-12-03 10:05:00");
  session.run("20261203_2", "", "specialist", cwd, "2026-12-03 10:01:00", "2026-12-03 10:02:00");
  const message = db.query(
    "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const add = (sid: string, role: string, content: unknown[], at: number, meta = VISIBLE) =>
    message.run(
      `msg_${sid}_${at}`,
      sid,
      role,
      JSON.stringify(content),
      at,
      meta,
      new Date(at * 1000).toISOString().replace("T", " ").slice(0, 19),
    );
  const t0 = Date.parse("2026-12-03T10:00:10Z") / 1000;
  add(ID, "user", [text("Check the deploy script, please")], t0);
  add(
    ID,
    "assistant",
    [
      text("Let me look."),
      {
        type: "toolRequest",
        id: "call_1",
        toolCall: { status: "success", value: { name: "developer__shell", arguments: { command: "cat deploy.sh" } } },
      },
    ],
    t0 + 1,
  );
  add(
    ID,
    "user",
    [
      {
        type: "toolResponse",
        id: "call_1",
        toolResult: {
          status: "success",
          value: { content: [{ type: "text", text: "#!/bin/sh\nmake release" }], isError: false },
        },
      },
    ],
    t0 + 2,
  );
  add(
    ID,
    "assistant",
    [{ type: "thinking", thinking: "It is short.", signature: "x" }, text("It runs make release.")],
    t0 + 3,
  );
  // A compaction summary Goose keeps for the model, not shown to the user: not a turn.
  add(ID, "user", [text("Summary of the conversation so far")], t0 + 4, '{"userVisible":false,"agentVisible":true}');
  add(ID, "user", [text("And the tags?")], t0 + 5);
  add(
    ID,
    "assistant",
    [
      {
        type: "toolRequest",
        id: "call_2",
        toolCall: { status: "success", value: { name: "developer__shell", arguments: { command: "git tag" } } },
      },
    ],
    t0 + 6,
  );
  // The older shape of a result (a bare content array) and an error.
  add(
    ID,
    "user",
    [
      {
        type: "toolResponse",
        id: "call_2",
        toolResult: { status: "success", value: [{ type: "text", text: "v1.2.0" }] },
      },
    ],
    t0 + 7,
  );
  add(ID, "assistant", [text("Tags are pushed by CI.")], t0 + 8);
  add("20261203_2", "user", [text("Subtask: list files")], t0 + 60);
  db.close();
}

beforeAll(() => {
  sb = sandbox("coffer-goose-");
  repo = sb.repo("shop");
  process.env.HOME = sb.home;
  delete process.env.XDG_DATA_HOME;
  delete process.env.GOOSE_PATH_ROOT;
  makeDb(join(sb.home, ".local", "share", "goose", "sessions", "sessions.db"), repo);
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  sb.cleanup();
});

test("where Goose keeps sessions.db: its data folder, or $GOOSE_PATH_ROOT/data", () => {
  expect(gooseDb()).toBe(join(sb.home, ".local", "share", "goose", "sessions", "sessions.db"));
  process.env.GOOSE_PATH_ROOT = "/opt/goose-root";
  expect(gooseDb()).toBe("/opt/goose-root/data/sessions/sessions.db");
  process.env.GOOSE_PATH_ROOT = "relative/root"; // Goose ignores a relative root
  expect(gooseDb()).toBe(join(sb.home, ".local", "share", "goose", "sessions", "sessions.db"));
  delete process.env.GOOSE_PATH_ROOT;
});

test("sessions are listed as <sessions.db>#<id>, newest first; a specialist's is a subagent's", () => {
  const db = gooseDb();
  const files = listGooseSessions();
  expect(files.map((f) => [f.session_id, f.path, f.size, f.mtimeMs])).toEqual([
    [ID, `${db}#${ID}`, 9, Date.parse("2026-12-03T10:05:00Z")],
    ["20261203_2", `${db}#20261203_2`, 1, Date.parse("2026-12-03T10:02:00Z")],
  ]);
  expect(listGooseSessions(Date.parse("2026-12-03T10:03:00Z")).map((f) => f.session_id)).toEqual([ID]);
  expect(gooseHead(files[0]!.path)).toEqual({ session_id: ID, cwd: repo, first_activity: "2026-12-03T10:00:00.000Z" });
  expect(gooseHead(files[1]!.path).subagent).toBe(true);
  expect(resolveSession(ID)).toEqual(files[0]!);
});

test("the conversation: text items of visible messages; tool traffic and thinking are not text; acts keep the tools", () => {
  const file = resolveSession(ID);
  const p = parseSessionFile(file);
  expect(p).toMatchObject({ host: "goose", session_id: ID, cwd: repo, title: "Deploy script review" });
  expect(p.turns.map((t) => [t.role, t.text])).toEqual([
    ["user", "Check the deploy script, please"],
    ["assistant", "Let me look."],
    ["assistant", "It runs make release."],
    ["user", "And the tags?"],
    ["assistant", "Tags are pushed by CI."],
  ]);
  expect(p.first_activity).toBe("2026-12-03T10:00:10.000Z");
  const acts = gooseActivity(readGoose(file.path));
  expect(acts.map((a) => [a.kind, a.tool ?? "", a.text])).toEqual([
    ["prompt", "", "Check the deploy script, please"],
    ["say", "", "Let me look."],
    ["tool", "developer__shell", '{"command":"cat deploy.sh"}'],
    ["result", "developer__shell", "#!/bin/sh\nmake release"],
    ["say", "", "It runs make release."],
    ["prompt", "", "And the tags?"],
    ["tool", "developer__shell", '{"command":"git tag"}'],
    ["result", "developer__shell", "v1.2.0"],
    ["say", "", "Tags are pushed by CI."],
  ]);
  expect(acts[0]!.at).toBe(Date.parse("2026-12-03T10:00:10Z"));
});

test("a database of another schema gives no sessions and says so", () => {
  const path = join(sb.root, "old", "sessions.db");
  mkdirSync(join(path, ".."), { recursive: true });
  const db = new Database(path, { create: true });
  db.exec(
    "CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT, working_dir TEXT, created_at TIMESTAMP, updated_at TIMESTAMP)",
  );
  db.exec(
    "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content_json TEXT, created_timestamp INTEGER)",
  );
  db.close();
  expect(gooseSessions(path)).toEqual({
    ok: false,
    reason:
      "Goose's session database has a schema Coffer does not know (the sessions table has no name, session_type); a newer version may have changed it",
  });
});

test("coffer distill list and show find the Goose session", () => {
  const list = sb.run(["distill", "list", "--agent", "goose", "--json"]);
  expect(list.code).toBe(0);
  const rows = list.json().sessions as { session_id: string; project: string; messages: number }[];
  expect(rows).toEqual([
    expect.objectContaining({ session_id: ID, project: "shop", messages: 5, title: "Deploy script review" }),
  ]);
  const show = sb.run(["distill", "show", ID]);
  expect(show.code).toBe(0);
  expect(show.stdout).toStartWith("Transcript of a goose session in project shop:");
  expect(show.stdout).toContain("Tags are pushed by CI.");
});
