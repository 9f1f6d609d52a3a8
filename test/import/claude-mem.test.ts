import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";
import { ClaudeMemDb } from "./claude-mem-db";
import { allText, entriesOf, storedEntries } from "./helpers";

const SECRET = "ghp_Zk3v9QmT2xW8rL5nB1cY7pD4sF6gH0jK2aE9";

describe("coffer import claude-mem", () => {
  let sb: Sandbox;
  let app: string;
  let tool: string;
  let cm: ClaudeMemDb;
  let firstImport = "";

  beforeAll(() => {
    sb = sandbox("coffer-import-cm-");
    app = sb.repo("app", "git@github.com:acme/app.git");
    tool = sb.repo("tool");
    mkdirSync(join(tool, "pkg"), { recursive: true });
    cm = new ClaudeMemDb(join(sb.root, "claude-mem.db"));
    cm.session("s1", "app", app);
    cm.session("s2", "app");
    cm.session("s3", "tool", join(tool, "pkg")); // a subdirectory: still the tool repository
    cm.session("s4", "gone", join(sb.root, "work", "gone")); // directory no longer exists
    cm.observation({
      project: "app",
      session: "s1",
      type: "decision",
      title: "Use bun:sqlite for the index",
      narrative: "We chose bun:sqlite over better-sqlite3 because it ships with the runtime.",
      facts: ["No native dependencies", "WAL mode with a busy timeout"],
      concepts: ["trade-off", "why-it-exists"],
      files_modified: [join(app, "src", "db.ts")],
      at: "2025-06-01T10:05:00.000Z",
    });
    cm.observation({
      project: "app",
      session: "s1",
      type: "bugfix",
      title: "Deploy script leaked a token",
      narrative: `The deploy script printed GITHUB_TOKEN; the value was ${SECRET} and is now masked.`,
      at: "2025-06-01T10:06:00.000Z",
    });
    cm.observation({
      project: "app",
      session: "s2",
      type: "discovery",
      title: "Tests drive the binary",
      narrative: "Tests drive the compiled binary, never the sources.",
      at: "2025-06-02T09:00:00.000Z",
    });
    cm.observation({
      project: "app",
      session: "s2",
      type: "feature",
      title: "Export command",
      narrative: "Added coffer export with JSONL and Markdown formats.",
      at: "2025-06-02T09:30:00.000Z",
    });
    cm.observation({
      project: "app",
      session: "s2",
      type: "sensitive",
      title: "Customer data",
      narrative: "Customer list lives in the private bucket.",
      at: "2025-06-02T09:40:00.000Z",
    });
    cm.summary({
      project: "app",
      session: "s2",
      request: "Add an export command",
      learned: "citty runs a parent's run after its sub-command.",
      completed: "Export in JSONL and Markdown.",
      next_steps: "Round-trip test.",
      at: "2025-06-02T10:00:00.000Z",
    });
    cm.observation({
      project: "tool",
      session: "s3",
      type: "refactor",
      title: "Split the parser",
      narrative: "The parser now lives in three modules.",
      at: "2025-07-01T08:00:00.000Z",
    });
    cm.observation({
      project: "tool",
      session: "s3",
      type: "change",
      title: "Bumped Node",
      narrative: "CI runs on Node 22.",
      at: "2025-07-01T08:10:00.000Z",
    });
    cm.summary({
      project: "tool",
      session: "s3",
      request: "Clean up the parser",
      completed: "Parser split into lexer, parser and printer.",
      at: "2025-07-01T09:00:00.000Z",
    });
    cm.observation({
      project: "gone",
      session: "s4",
      type: "discovery",
      title: "Old service port",
      narrative: "The old service listened on port 8081.",
      at: "2024-01-01T00:00:00.000Z",
    });
    cm.observation({
      project: "gone",
      session: "s4",
      type: "decision",
      title: "Retired the old service",
      narrative: "We retired the old service in favour of the new API.",
      at: "2024-01-02T00:00:00.000Z",
    });
    // Something the user already knows in the app project: the import folds into it.
    expect(sb.run(["remember", "Tests drive the compiled binary, never the sources."], { cwd: app }).code).toBe(0);
  });
  afterAll(() => {
    cm.close();
    sb.cleanup();
  });

  test("--dry-run counts per scope and kind, shows samples, writes nothing", () => {
    const r = sb.run(["import", "claude-mem", "--db", cm.path, "--dry-run", "--json"], { cwd: app });
    expect(r.code).toBe(0);
    const rep = r.json();
    expect(rep.dry_run).toBe(true);
    expect(rep.import_id).toBeNull();
    expect(rep.found).toBe(8);
    expect(rep.created).toBe(7);
    expect(rep.merged).toBe(1);
    const byLabel = Object.fromEntries(rep.by_scope.map((s: any) => [s.label, s.kinds]));
    expect(byLabel.app).toEqual({ decision: 1, gotcha: 1, note: 2 });
    expect(byLabel.tool).toEqual({ note: 3 });
    expect(rep.samples).toHaveLength(3);
    expect(rep.skipped.map((s: any) => s.reason).join("\n")).toContain('project "gone"');
    expect(storedEntries(sb.cofferHome)).toHaveLength(1);
    const human = sb.run(["import", "claude-mem", "--db", cm.path, "--dry-run"], { cwd: app });
    expect(human.stdout).toContain("Would import from claude-mem");
    expect(human.stdout).toContain("Samples:");
    expect(human.stdout).toContain('--project "gone=<repo dir>"');
  });

  test("imports observations and summaries into the right projects, kinds mapped, secrets scrubbed", () => {
    // claude-mem's worker holds a write transaction on its WAL database while we read.
    cm.db.run("BEGIN IMMEDIATE");
    cm.observation({
      project: "app",
      session: "s1",
      type: "discovery",
      title: "In flight",
      narrative: "Written while the import ran.",
      at: "2025-08-01T00:00:00Z",
    });
    const r = sb.run(["import", "claude-mem", "--db", cm.path, "--json"], { cwd: sb.home });
    cm.db.run("COMMIT");
    expect(r.code).toBe(0);
    const rep = r.json();
    firstImport = rep.import_id;
    expect(rep.created).toBe(7);
    expect(rep.merged).toBe(1);
    expect(rep.redactions).toBeGreaterThanOrEqual(1);

    const appEntries = entriesOf(sb.cofferHome, "app");
    expect(appEntries).toHaveLength(5); // 4 new + the one already there
    const decision = appEntries.find((e) => e.meta.title === "Use bun:sqlite for the index")!;
    expect(decision.meta.kind).toBe("decision");
    expect(decision.meta.source).toBe("import");
    expect(decision.meta.actor).toBe("import:claude-mem");
    expect(decision.meta.imported_from).toMatch(/^claude-mem:[0-9a-f]{12}:observation:1:[0-9a-f]{12}$/);
    expect(decision.meta.origin_session).toBe("claude-s1");
    expect(decision.meta.created).toBe("2025-06-01T10:05:00Z");
    expect(decision.meta.tags).toEqual(["claude-mem", "decision", "trade-off", "why-it-exists"]);
    expect(decision.body).toContain("it ships with the runtime");
    expect(decision.body).toContain("- No native dependencies");
    expect(decision.body).toContain("Files: src/db.ts");
    const bug = appEntries.find((e) =>
      /^claude-mem:[0-9a-f]{12}:observation:2:[0-9a-f]{12}$/.test(String(e.meta.imported_from)),
    )!;
    expect(bug.meta.kind).toBe("gotcha");
    expect(bug.body).toContain("[redacted]");
    const summary = appEntries.find((e) =>
      /^claude-mem:[0-9a-f]{12}:summary:1:[0-9a-f]{12}$/.test(String(e.meta.imported_from)),
    )!;
    expect(summary.meta.kind).toBe("note");
    expect(summary.meta.title).toBe("Session: Add an export command");
    expect(summary.body).toContain("**Learned:** citty runs");
    expect(appEntries.some((e) => String(e.body).includes("private bucket"))).toBe(false); // "sensitive" stays out

    const toolEntries = entriesOf(sb.cofferHome, "tool");
    expect(toolEntries.map((e) => e.meta.kind).sort()).toEqual(["note", "note", "note"]);
    expect(entriesOf(sb.cofferHome, "global")).toHaveLength(0);

    expect(allText(sb.cofferHome)).not.toContain(SECRET);
    expect(allText(join(sb.cofferHome, "memory"))).not.toContain("In flight");

    // The index knows them: recall from inside the repository finds an imported entry.
    const rec = sb.run(["recall", "bun:sqlite runtime", "--json"], { cwd: app });
    expect(rec.code).toBe(0);
    expect(rec.stdout).toContain("Use bun:sqlite for the index");

    // One audit record for the whole import.
    const auditLines = allText(join(sb.cofferHome, "state"))
      .split("\n")
      .filter((l) => l.includes('"event":"import"'));
    expect(auditLines).toHaveLength(1);
  });

  test("remembering an imported memory again keeps its provenance", () => {
    const decision = entriesOf(sb.cofferHome, "app").find((e) =>
      /^claude-mem:[0-9a-f]{12}:observation:1:[0-9a-f]{12}$/.test(String(e.meta.imported_from)),
    )!;
    const r = sb.run(["remember", "-", "--json"], { cwd: app, stdin: decision.body });
    expect(r.json().status).toBe("duplicate");
    const again = entriesOf(sb.cofferHome, "app").find((e) => e.id === decision.id)!;
    expect(again.meta.imported_from).toMatch(/^claude-mem:[0-9a-f]{12}:observation:1:[0-9a-f]{12}$/);
    expect(again.meta.actor).toBe("import:claude-mem");
  });

  test("a second run imports nothing (except the observation committed meanwhile)", () => {
    const r = sb.run(["import", "claude-mem", "--db", cm.path, "--json"], { cwd: sb.home });
    expect(r.code).toBe(0);
    const rep = r.json();
    expect(rep.already).toBe(8);
    expect(rep.created).toBe(1); // "In flight", committed after the first run
    expect(rep.merged).toBe(0);
    const again = sb.run(["import", "claude-mem", "--db", cm.path, "--json"], { cwd: sb.home }).json();
    expect(again.created).toBe(0);
    expect(again.already).toBe(9);
    expect(again.import_id).toBeNull(); // nothing added: no import recorded
  });

  test("--project maps a project whose directory is gone", () => {
    const r = sb.run(["import", "claude-mem", "--db", cm.path, "--project", "gone=global", "--json"], { cwd: sb.home });
    expect(r.code).toBe(0);
    expect(r.json().created).toBe(2);
    const global = entriesOf(sb.cofferHome, "global");
    expect(global.map((e) => e.meta.kind).sort()).toEqual(["decision", "fact"]);
    const bad = sb.run(["import", "claude-mem", "--db", cm.path, "--project", `gone=${sb.home}`], { cwd: sb.home });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("not inside a git repository");
  });

  test("--undo removes exactly what that import added", () => {
    const before = storedEntries(sb.cofferHome).length;
    const r = sb.run(["import", "--undo", firstImport], { cwd: sb.home });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("removed 7 entries");
    const after = storedEntries(sb.cofferHome);
    expect(after).toHaveLength(before - 7);
    expect(after.some((e) => e.body === "Tests drive the compiled binary, never the sources.")).toBe(true);
    expect(
      after.filter((e) => /^claude-mem:[0-9a-f]{12}:observation:1:[0-9a-f]{12}$/.test(String(e.meta.imported_from))),
    ).toHaveLength(0);
    expect(entriesOf(sb.cofferHome, "global")).toHaveLength(2); // the later import stays
    const list = sb.run(["list", "--scope", "project", "--json"], { cwd: app }).json();
    expect(list.total).toBe(2); // the remembered entry + "In flight" from the second import
    const twice = sb.run(["import", "--undo", firstImport], { cwd: sb.home });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("already undone");
    const listed = sb.run(["import", "--list", "--json"], { cwd: sb.home }).json();
    expect(listed).toHaveLength(3); // the run that added nothing left no record
  });

  test("a missing database is a clear error", () => {
    const r = sb.run(["import", "claude-mem"], { cwd: sb.home });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no claude-mem database");
  });
});

test("keys from an earlier Coffer (no content hash) still recognise the same rows; a changed row is imported", () => {
  const sb = sandbox("coffer-import-cm-keys-");
  try {
    const repo = sb.repo("keys", "git@github.com:acme/keys.git");
    const cm = new ClaudeMemDb(join(sb.root, "keys.db"));
    cm.session("k1", "keys", repo);
    for (const [title, narrative] of [
      ["Queue", "The queue is drained by one worker at a time."],
      ["Ports", "The admin API listens on port 7443 only."],
    ])
      cm.observation({
        project: "keys",
        session: "k1",
        type: "decision",
        title,
        narrative,
        at: "2025-06-01T10:00:00Z",
      });
    const imp = () => sb.run(["import", "claude-mem", "--db", cm.path, "--json"], { cwd: repo }).json();
    const first = imp();
    expect(first.created).toBe(2);
    // What an earlier Coffer recorded: `claude-mem:<source>:observation:<rowid>`, no content hash.
    const manifest = join(sb.cofferHome, "state", "imports", `${first.import_id}.json`);
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace(/(:observation:\d+):[0-9a-f]{12}"/g, '$1"'));
    expect(imp()).toMatchObject({ created: 0, merged: 0, already: 2 });
    // A row whose content changed is not "already imported", whatever its key.
    cm.db.query("UPDATE observations SET narrative = ? WHERE id = 2").run("The admin API moved to port 9443.");
    expect(imp()).toMatchObject({ created: 1, already: 1 });
    expect(imp()).toMatchObject({ created: 0, already: 2 });
    cm.close();
  } finally {
    sb.cleanup();
  }
});

test("a database from before claude-mem's column renames and structured observations", () => {
  const sb = sandbox("coffer-import-cm-old-");
  try {
    const repo = sb.repo("old", "git@github.com:acme/old.git");
    const path = join(sb.root, "old.db");
    const db = new Database(path, { create: true });
    // The columns claude-mem's v17 migration renamed (claude_session_id, sdk_session_id), and
    // observations as they were before title/facts/narrative existed: one `text`.
    db.run(`CREATE TABLE sdk_sessions (id INTEGER PRIMARY KEY AUTOINCREMENT, claude_session_id TEXT NOT NULL,
      sdk_session_id TEXT UNIQUE, project TEXT NOT NULL, user_prompt TEXT, started_at TEXT NOT NULL,
      started_at_epoch INTEGER NOT NULL, completed_at TEXT, completed_at_epoch INTEGER, status TEXT NOT NULL DEFAULT 'active')`);
    db.run(`CREATE TABLE observations (id INTEGER PRIMARY KEY AUTOINCREMENT, sdk_session_id TEXT NOT NULL,
      project TEXT NOT NULL, text TEXT NOT NULL, type TEXT NOT NULL, created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL)`);
    db.run(`CREATE TABLE session_summaries (id INTEGER PRIMARY KEY AUTOINCREMENT, sdk_session_id TEXT NOT NULL,
      project TEXT NOT NULL, request TEXT, investigated TEXT, learned TEXT, completed TEXT, next_steps TEXT,
      files_read TEXT, files_edited TEXT, notes TEXT, created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL)`);
    db.run(`INSERT INTO sdk_sessions(claude_session_id, sdk_session_id, project, started_at, started_at_epoch)
      VALUES ('claude-old-1', 'sdk-1', 'old', '2024-03-01T00:00:00Z', 1709251200000)`);
    db.run(`INSERT INTO observations(sdk_session_id, project, text, type, created_at, created_at_epoch)
      VALUES ('sdk-1', 'old', 'The cache is invalidated on every deploy.', 'discovery', '2024-03-01T00:01:00.000Z', 1709251260000)`);
    db.run(`INSERT INTO session_summaries(sdk_session_id, project, request, learned, created_at, created_at_epoch)
      VALUES ('sdk-1', 'old', 'Speed up deploys', 'The cache is the slow part.', '2024-03-01T01:00:00.000Z', 1709254800000)`);
    db.close();
    const r = sb.run(["import", "claude-mem", "--db", path, "--project", repo, "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().created).toBe(2);
    const entries = entriesOf(sb.cofferHome, "old");
    const fact = entries.find((e) => e.meta.kind === "fact")!;
    expect(fact.body).toBe("The cache is invalidated on every deploy.");
    expect(fact.meta.title).toBe("The cache is invalidated on every deploy.");
    expect(fact.meta.origin_session).toBe("claude-old-1");
    expect(entries.find((e) => e.meta.kind === "note")!.body).toContain("**Learned:** The cache is the slow part.");
  } finally {
    sb.cleanup();
  }
});

test("an import alongside concurrent writers loses nothing", async () => {
  const sb = sandbox("coffer-import-cm-busy-");
  try {
    const repo = sb.repo("busy", "git@github.com:acme/busy.git");
    const cm = new ClaudeMemDb(join(sb.root, "busy.db"));
    cm.session("b1", "busy", repo);
    cm.db.run("BEGIN");
    for (let i = 0; i < 800; i++)
      cm.observation({
        project: "busy",
        session: "b1",
        type: "discovery",
        title: `Finding ${i}`,
        narrative: `Observation number ${i} about module m${i % 37}.`,
        at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
      });
    cm.db.run("COMMIT");
    cm.close();
    expect(sb.run(["remember", "warm up", "--scope", "global"]).code).toBe(0);
    const importing = sb.spawn(["import", "claude-mem", "--db", cm.path, "--json"]);
    const writers = Array.from({ length: 10 }, (_, i) =>
      sb.spawn(["remember", `written during the import ${i}`], { cwd: repo }),
    );
    const codes = await Promise.all(writers.map((w) => w.exited));
    expect(codes.every((c) => c === 0)).toBe(true);
    expect(await importing.exited).toBe(0);
    expect(JSON.parse(await new Response(importing.stdout).text()).created).toBe(800);
    expect(entriesOf(sb.cofferHome, "busy")).toHaveLength(810);
    const listed = sb.run(["list", "--scope", "project", "--json", "--limit", "1"], { cwd: repo }).json();
    expect(listed.total).toBe(810); // the index agrees with the files
  } finally {
    sb.cleanup();
  }
});

test("an import killed mid-way can still be undone completely", async () => {
  const sb = sandbox("coffer-import-cm-kill-");
  try {
    const repo = sb.repo("killed", "git@github.com:acme/killed.git");
    const cm = new ClaudeMemDb(join(sb.root, "k.db"));
    cm.session("k1", "killed", repo);
    cm.db.run("BEGIN");
    for (let i = 0; i < 3000; i++)
      cm.observation({
        project: "killed",
        session: "k1",
        type: "change",
        title: `Change ${i}`,
        narrative: `Change number ${i} in file f${i}.ts, ${"detail ".repeat(20)}`,
        at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
      });
    cm.db.run("COMMIT");
    cm.close();
    const p = sb.spawn(["import", "claude-mem", "--db", cm.path]);
    const projects = join(sb.cofferHome, "memory", "projects");
    const written = () => {
      try {
        return readdirSync(projects).reduce((n, id) => n + readdirSync(join(projects, id, "entries")).length, 0);
      } catch {
        return 0;
      }
    };
    for (let t = 0; t < 400 && written() < 200; t++) await Bun.sleep(25);
    p.kill(9);
    await p.exited;
    const list = sb.run(["import", "--list", "--json"]).json();
    expect(list).toHaveLength(1);
    const u = sb.run(["import", "--undo", list[0].import_id]);
    expect(u.code).toBe(0);
    expect(written()).toBe(0); // no entry and no temp file left
    expect(existsSync(join(projects, readdirSync(projects)[0] ?? "none", "project.md"))).toBe(false);
    expect(sb.run(["list", "--scope", "project", "--json"], { cwd: repo }).json().total).toBe(0);
  } finally {
    sb.cleanup();
  }
});
