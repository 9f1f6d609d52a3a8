/**
 * Fault-injection suite, hostile input to the write paths (issue 25): fields that reach an entry's
 * frontmatter from an import, the CLI, MCP or HTTP. Each value is validated for what it is
 * (timestamps as timestamps, ids as ids) and every scalar is written so that it reads back as the
 * same string: no value can add a line to the frontmatter, end it, or touch another entry.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";
import { record } from "./_fault";

let sb: Sandbox;
let globalDir: string;
let cases = 0;

beforeAll(() => {
  sb = sandbox("coffer-fault-input-");
  expect(sb.run(["remember", "Deploy with make release, never git push --tags", "--scope", "global"]).code).toBe(0);
  globalDir = join(sb.cofferHome, "memory", "global", "entries");
});
afterAll(() => {
  record("input.cases", cases);
  sb.cleanup();
});

function globalFiles(): Map<string, string> {
  return new Map(readdirSync(globalDir).map((n) => [n, readFileSync(join(globalDir, n), "utf8")]));
}

const HEADER = JSON.stringify({ type: "coffer-export", version: 1 });

function exportLine(fields: Record<string, unknown>): string {
  return JSON.stringify({
    type: "entry",
    scope: "global",
    id: "01JMP00000000000000000000R",
    kind: "note",
    title: "Deploy with make release",
    tags: [],
    applies_to: [],
    actor: "user",
    source: "cli",
    created: "2026-01-01T00:00:00Z",
    updated: "2026-01-01T00:00:00Z",
    body: "Deploy with make release, never git push --tags",
    ...fields,
  });
}

test("import coffer: a timestamp that is not one is refused, and no other entry changes", () => {
  const before = globalFiles();
  const injections = [
    { updated: "9999-12-31T00:00:00Z\nstatus: superseded\n---\nHIJACKED BODY" },
    { created: "2026-01-01T00:00:00Z\nkind: gotcha" },
    { updated: "not a date" },
    { id: "01JMP00000000000000000000R\nstatus: superseded" },
  ];
  for (const fields of injections) {
    const file = join(sb.root, "evil.jsonl");
    writeFileSync(file, `${HEADER}\n${exportLine(fields)}\n`);
    const r = sb.run(["import", "coffer", file]);
    cases++;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 2: (updated|created|id)/);
    expect(globalFiles()).toEqual(before);
  }
});

test("every scalar a write path takes reads back as itself (no extra frontmatter lines)", () => {
  const file = join(sb.root, "odd.jsonl");
  const odd = {
    id: "01JQDD00000000000000000000",
    body: "An entry with odd metadata values",
    title: "Odd: values # here",
    actor: "agent:x\nstatus: superseded",
    origin_session: "s1\n---\nINJECTED",
    imported_from: "x: y\nkind: gotcha",
  };
  writeFileSync(file, `${HEADER}\n${exportLine(odd)}\n`);
  const r = sb.run(["import", "coffer", file, "--json"]);
  cases++;
  expect(r.code).toBe(0);
  const shown = sb.run(["show", odd.id, "--json"]).json();
  expect(shown.status).toBeUndefined();
  expect(shown.kind).toBe("note");
  expect(shown.body).toBe(odd.body);
  expect(shown.origin_session).toBe(odd.origin_session);
  expect(shown.imported_from).toBe(odd.imported_from);
  expect(readFileSync(join(globalDir, `${odd.id}.md`), "utf8")).not.toContain("\nINJECTED");
});

test("a secret in any field of any write path never reaches memory/ or the audit log", async () => {
  // One distinct key per field, so a leak names its way in.
  const key = (n: number) =>
    `sk_live_${
      [
        "4eC39HqLyjWDarjtT1zdp7dc",
        "9xQ2mB7vK4pL8nR3tY6wZ1cF",
        "h5J8kN2qW7eR4tY9uI3oP6aS",
        "Zx7Cv4Bn1Mq8Wr5Et2Yu9Io6",
        "pL3kJ8hG5fD2sA9qW6eR1tY4",
        "mN7bV4cX1zL8kJ5hG2fD9sA3",
        "qW4eR7tY1uI8oP5aS2dF9gH6",
        "aS9dF6gH3jK7lZ4xC1vB8nM5",
        "tY2uI9oP6aS3dF7gH4jK1lZ8",
        "vB5nM2qW9eR6tY3uI7oP4aS1",
        "nM8bV5cX2zL9kJ6hG3fD1sA7",
      ][n]
    }`;
  const keys = Array.from({ length: 11 }, (_, i) => key(i));
  const repo = sb.repo("leaky", "https://github.com/acme/leaky.git");
  // CLI: applies_to.
  expect(sb.run(["remember", "Routes are compiled at build time", "--applies-to", keys[0]!], { cwd: repo }).code).toBe(
    0,
  );
  cases++;
  // MCP: the client name becomes `actor:` (and the audit log's actor); applies_to, origin_session.
  const { stdioClient } = await import("../kit");
  const mcp = await stdioClient(sb, repo, keys[1]!);
  try {
    await mcp.ok("remember", { text: "The cache is warmed at start", applies_to: [keys[2]!] });
  } finally {
    await mcp.close();
  }
  cases++;
  // HTTP: applies_to.
  const { startServe } = await import("../kit");
  const served = await startServe(sb, repo, ["--no-worker"]);
  try {
    const res = await served.api("/api/v1/entries", {
      method: "POST",
      body: { text: "Logs rotate daily", applies_to: [keys[3]!], cwd: repo },
    });
    expect(res.status).toBe(201);
  } finally {
    await served.stop();
  }
  cases++;
  // coffer edit: fields added by hand (keywords, origin_session, applies_to, one this version does not know).
  const id = sb.run(["remember", "Edited entry about deploys", "--scope", "global", "--json"]).json().id as string;
  const edited = join(sb.root, "edited.md");
  const text = readFileSync(join(globalDir, `${id}.md`), "utf8").replace(
    "\nactor:",
    `\nkeywords: [${keys[4]}]\norigin_session: ${keys[5]}\nowner: ${keys[6]}\nactor:`,
  );
  writeFileSync(edited, text);
  const ed = sb.run(["edit", id], { env: { EDITOR: `cp '${edited}'` } });
  expect(ed.code).toBe(0);
  cases++;
  // A Coffer export: project.md and the verbatim file's frontmatter.
  const exp = join(sb.root, "secret-export.jsonl");
  const proj = "01JPRJ00000000000000000000";
  const file = `---\nid: 01JVRB00000000000000000000\nkind: note\ntitle: verbatim\ntags: [${keys[8]}]\nactor: user\nsource: cli\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nA verbatim entry\n`;
  writeFileSync(
    exp,
    [
      HEADER,
      JSON.stringify({ type: "project", scope: proj, file: `---\nlabel: "x"\n---\n# token ${keys[7]}\n` }),
      exportLine({
        id: "01JVRB00000000000000000000",
        title: "verbatim",
        body: "A verbatim entry",
        tags: [keys[8]],
        file,
      }),
      "",
    ].join("\n"),
  );
  expect(sb.run(["import", "coffer", exp]).code).toBe(0);
  cases++;
  // engram: topic_key, session id (origin_session), observation id (imported_from).
  const engram = join(sb.root, "engram.json");
  writeFileSync(
    engram,
    JSON.stringify({
      version: "0.1.0",
      sessions: [{ id: keys[9], project: "leaky", directory: repo, started_at: "2026-01-10 09:00:00" }],
      observations: [
        {
          id: keys[9],
          session_id: keys[9],
          type: "decision",
          title: "Queue retries",
          content: "Retries back off exponentially.",
          project: "leaky",
          scope: "project",
          topic_key: keys[9],
          created_at: "2026-01-10 09:30:00",
          updated_at: "2026-01-10 09:30:00",
        },
      ],
    }),
  );
  expect(sb.run(["import", "engram", engram], { cwd: repo }).code).toBe(0);
  cases++;
  // claude-mem: a concept (becomes a tag) and the session id (origin_session).
  const { ClaudeMemDb } = await import("../import/claude-mem-db");
  const cm = new ClaudeMemDb(join(sb.root, "claude-mem.db"));
  cm.session(keys[10]!, "leaky", repo);
  cm.observation({
    project: "leaky",
    session: keys[10]!,
    type: "decision",
    title: "Workers scale by queue depth",
    narrative: "Workers scale by queue depth, not CPU.",
    concepts: [keys[10]!],
    at: "2025-06-01T10:05:00.000Z",
  });
  cm.close();
  expect(sb.run(["import", "claude-mem", "--db", join(sb.root, "claude-mem.db")], { cwd: repo }).code).toBe(0);
  cases++;
  // The edit kept the field this version does not know (scrubbed).
  expect(readFileSync(join(globalDir, `${id}.md`), "utf8")).toContain("\nowner: ");
  const { allText } = await import("../import/helpers");
  const disk = allText(join(sb.cofferHome, "memory")) + allText(join(sb.cofferHome, "state"));
  const leaked = keys.map((k, i) => (disk.includes(k.slice(8)) ? i : -1)).filter((i) => i >= 0);
  expect(leaked).toEqual([]);
});

test("fields the user added survive every rewrite: near-duplicate, import fold, supersede", () => {
  const id = sb.run(["remember", "Staging deploys run every night at two", "--scope", "global", "--json"]).json()
    .id as string;
  const file = join(globalDir, `${id}.md`);
  const own = "priority: high\nowner: alice\nreview: {every: 30d, by: [alice, bob]}\n";
  writeFileSync(file, readFileSync(file, "utf8").replace("\ncreated:", `\n${own.trimEnd()}\ncreated:`));
  const keeps = (what: string) => {
    const text = readFileSync(file, "utf8");
    cases++;
    for (const line of ["priority: high", "owner: alice"])
      expect({ what, has: text.includes(line) }).toEqual({ what, has: true });
    expect((Bun.YAML.parse(/^---\n([\s\S]*?)\n---/.exec(text)![1]!) as { review: unknown }).review).toEqual({
      every: "30d",
      by: ["alice", "bob"],
    });
  };
  expect(sb.run(["remember", "Staging deploys run every night at two.", "--scope", "global"]).code).toBe(0);
  keeps("near-duplicate remember");
  const exp = join(sb.root, "fold.jsonl");
  writeFileSync(
    exp,
    `${HEADER}\n${exportLine({ id: "01JF0LD0000000000000000000", body: "staging deploys run every night at two", updated: "2099-01-01T00:00:00Z" })}\n`,
  );
  expect(sb.run(["import", "coffer", exp]).code).toBe(0);
  keeps("import fold");
  expect(sb.run(["remember", "Staging deploys run at three now", "--scope", "global", "--supersedes", id]).code).toBe(
    0,
  );
  keeps("supersede");
  expect(readFileSync(file, "utf8")).toContain("status: superseded");
});

test("a second claude-mem database or engram export is imported, not skipped as 'already imported'", async () => {
  const { ClaudeMemDb } = await import("../import/claude-mem-db");
  const repo = sb.repo("twodbs", "https://github.com/acme/twodbs.git");
  const dbs = ["laptop", "desktop"].map((machine) => {
    const cm = new ClaudeMemDb(join(sb.root, `cm-${machine}.db`));
    cm.session(`s-${machine}`, "twodbs", repo);
    cm.observation({
      project: "twodbs",
      session: `s-${machine}`,
      type: "decision",
      title: `Chosen on the ${machine}`,
      narrative: `The ${machine} decided to keep queue workers stateless (${machine} only).`,
      at: machine === "laptop" ? "2025-06-01T10:05:00.000Z" : "2025-07-01T08:00:00.000Z",
    });
    cm.close();
    return cm.path;
  });
  const imp = (db: string) => sb.run(["import", "claude-mem", "--db", db, "--json"], { cwd: repo }).json();
  expect(imp(dbs[0]!).created).toBe(1);
  const second = imp(dbs[1]!);
  cases++;
  expect({ created: second.created, already: second.already }).toEqual({ created: 1, already: 0 });
  // The same database again is still recognised.
  expect(imp(dbs[0]!).already).toBe(1);
  const engram = (machine: string) => {
    const file = join(sb.root, `engram-${machine}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        version: "0.1.0",
        sessions: [{ id: `sess-${machine}`, project: "twodbs", directory: repo, started_at: "2026-01-10 09:00:00" }],
        observations: [
          {
            id: 1,
            session_id: `sess-${machine}`,
            type: "decision",
            title: `Engram on the ${machine}`,
            content: `Engram on the ${machine}: retries are capped at five.`,
            project: "twodbs",
            scope: "project",
            created_at: machine === "laptop" ? "2026-01-10 09:30:00" : "2026-02-11 10:30:00",
            updated_at: "2026-02-11 10:30:00",
          },
        ],
      }),
    );
    return sb.run(["import", "engram", file, "--json"], { cwd: repo }).json();
  };
  expect(engram("laptop").created).toBe(1);
  expect(engram("desktop").created).toBe(1);
  expect(engram("laptop").already).toBe(1);
  cases++;
});

test("a claude-mem database copied to a second machine: each machine's later rows are imported, none twice", async () => {
  const { ClaudeMemDb } = await import("../import/claude-mem-db");
  const repo = sb.repo("copied", "https://github.com/acme/copied.git");
  const laptop = join(sb.root, "cm-copied-laptop.db");
  const first = new ClaudeMemDb(laptop);
  first.session("s-shared", "copied", repo);
  first.observation({
    project: "copied",
    session: "s-shared",
    type: "decision",
    title: "Shared first observation",
    narrative: "Both machines keep the migration scripts idempotent.",
    at: "2025-05-01T10:00:00.000Z",
  });
  first.close();
  const desktop = join(sb.root, "cm-copied-desktop.db");
  copyFileSync(laptop, desktop);
  // Each copy goes on numbering rows on its own: row 2 is another memory on each machine.
  for (const [path, machine] of [
    [laptop, "laptop"],
    [desktop, "desktop"],
  ] as const) {
    const cm = new ClaudeMemDb(path, true);
    cm.observation({
      project: "copied",
      session: "s-shared",
      type: "discovery",
      title: `Found on the ${machine}`,
      narrative: `Only the ${machine} knows that its cache lives in /var/cache/${machine}-build.`,
      at: "2025-06-01T10:00:00.000Z",
    });
    cm.close();
  }
  const imp = (db: string) => sb.run(["import", "claude-mem", "--db", db, "--json"], { cwd: repo }).json();
  expect(imp(laptop).created).toBe(2);
  const second = imp(desktop);
  cases++;
  expect({ created: second.created, already: second.already }).toEqual({ created: 1, already: 1 });
  const shown = sb.run(["recall", "cache lives", "--json"], { cwd: repo }).stdout;
  expect(shown).toContain("desktop-build");
  expect(shown).toContain("laptop-build");
  // Both databases again: recognised, nothing added.
  for (const db of [laptop, desktop]) expect(imp(db)).toMatchObject({ created: 0, merged: 0, already: 2 });
  // engram likewise: a copied store's later observations reuse the same ids.
  const engram = (machine: string) => {
    const file = join(sb.root, `engram-copied-${machine}.json`);
    const obs = (id: number, content: string, at: string) => ({
      id,
      session_id: "sess-shared",
      type: "decision",
      content,
      project: "copied",
      scope: "project",
      created_at: at,
      updated_at: at,
    });
    writeFileSync(
      file,
      JSON.stringify({
        version: "0.1.0",
        sessions: [{ id: "sess-shared", project: "copied", directory: repo, started_at: "2026-01-10 09:00:00" }],
        observations: [
          obs(1, "Engram shared: releases are tagged from main only.", "2026-01-10 09:30:00"),
          obs(2, `Engram on the ${machine}: its fixtures live in fixtures/${machine}.`, "2026-02-11 10:30:00"),
        ],
      }),
    );
    return sb.run(["import", "engram", file, "--json"], { cwd: repo }).json();
  };
  expect(engram("laptop").created).toBe(2);
  expect(engram("desktop")).toMatchObject({ created: 1, already: 1 });
  expect(engram("laptop")).toMatchObject({ created: 0, already: 2 });
  cases++;
});

test("an edit in the web UI keeps the entry's origin (source, actor); stats count no new entry", async () => {
  const fresh = sandbox("coffer-fault-origin-");
  try {
    const id = fresh.run(["remember", "Builds cache node_modules", "--scope", "global", "--json"]).json().id as string;
    const path = join(fresh.cofferHome, "memory", "global", "entries", `${id}.md`);
    writeFileSync(path, readFileSync(path, "utf8").replace("\ncreated:", "\nowner: alice\ncreated:"));
    const { startServe } = await import("../kit");
    const served = await startServe(fresh, fresh.home, ["--no-worker"]);
    try {
      const edit = await served.api(`/api/v1/ui/entries/${id}`, {
        method: "PATCH",
        body: { text: "Builds cache node_modules and the bun install cache" },
      });
      expect(edit.status).toBe(200);
      const retag = await served.api("/api/v1/ui/bulk", {
        method: "POST",
        body: { ids: [id], action: "retag", add: ["ci"] },
      });
      expect(retag.status).toBe(200);
    } finally {
      await served.stop();
    }
    cases++;
    const file = readFileSync(path, "utf8");
    expect(file).toContain("bun install cache");
    expect(file).toContain("tags: [ci]");
    expect(file).toContain("\nsource: cli\n");
    expect(file).toContain("\nactor: user\n");
    expect(file).toContain("\nowner: alice\n");
    const stats = fresh.run(["stats", "--json"]).json();
    expect(stats.entries.added).toEqual({ cli: 1 });
  } finally {
    fresh.cleanup();
  }
});

test("a remember that fails writes nothing (NUL, lone surrogates, binary stdin); doctor --fix clears an unreadable file", async () => {
  const fresh = sandbox("coffer-fault-nul-");
  const dir = join(fresh.cofferHome, "memory", "global", "entries");
  const files = () => {
    try {
      return readdirSync(dir).filter((n) => n.endsWith(".md")).length;
    } catch {
      return 0;
    }
  };
  try {
    expect(fresh.run(["remember", "one good entry", "--scope", "global"]).code).toBe(0);
    const bad = [
      { text: "nul \u0000 inside" },
      { text: "fine text", title: "lone \ud800 surrogate" },
      { text: "fine text two", tags: ["ok", "t\u0000g"] },
      { text: "fine text three", applies_to: ["src/\udc00/**"] },
      { text: "lone \udfff low surrogate in text" },
    ];
    const { stdioClient, startServe } = await import("../kit");
    const mcp = await stdioClient(fresh, fresh.home);
    try {
      for (const args of bad) {
        const res = await mcp.call("remember", { ...args, scope: "global" });
        cases++;
        expect(res.isError).toBe(true);
        expect(files()).toBe(1);
      }
    } finally {
      await mcp.close();
    }
    const served = await startServe(fresh, fresh.home, ["--no-worker"]);
    try {
      const res = await served.api("/api/v1/entries", { method: "POST", body: { ...bad[1], scope: "global" } });
      expect(res.status).toBe(400);
      cases++;
    } finally {
      await served.stop();
    }
    const p = Bun.spawnSync(
      [
        process.env.COFFER_BIN ?? join(import.meta.dir, "..", "..", "dist", "coffer"),
        "remember",
        "-",
        "--scope",
        "global",
      ],
      {
        env: fresh.env,
        stdin: new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff, 0xfe, 0, 0x41]),
      },
    );
    cases++;
    expect(p.exitCode).toBe(1);
    expect(files()).toBe(1);
    // A file Coffer cannot parse (written by hand): doctor names it, doctor --fix moves it to the trash.
    writeFileSync(join(dir, "01JBR0KEN00000000000000000.md"), "---\ntitle: [unclosed\n---\nbody\n");
    const doc = fresh.run(["doctor"]);
    expect(doc.stdout + doc.stderr).toContain("01JBR0KEN00000000000000000.md");
    const fix = fresh.run(["doctor", "--fix"]);
    expect(fix.stdout + fix.stderr).toContain("01JBR0KEN00000000000000000");
    expect(files()).toBe(1);
    expect(fresh.run(["trash", "--json"]).stdout).toContain("01JBR0KEN00000000000000000");
    cases++;
  } finally {
    fresh.cleanup();
  }
});

test("claude-mem: an out-of-range time is dated with a message; a recursive observations view ends", async () => {
  const { ClaudeMemDb } = await import("../import/claude-mem-db");
  const { Database } = await import("bun:sqlite");
  const repo = sb.repo("badtimes", "https://github.com/acme/badtimes.git");
  const cm = new ClaudeMemDb(join(sb.root, "cm-badtime.db"));
  cm.session("s-bad", "badtimes", repo);
  cm.observation({
    project: "badtimes",
    session: "s-bad",
    type: "decision",
    title: "Far future",
    narrative: "An observation with an impossible timestamp.",
    at: "2025-06-01T10:05:00.000Z",
  });
  cm.db.run("UPDATE observations SET created_at_epoch = 1e17, created_at = 'garbage'");
  cm.close();
  for (const dry of [["--dry-run"], []]) {
    const r = sb.run(["import", "claude-mem", "--db", cm.path, ...dry], { cwd: repo });
    cases++;
    expect(r.stderr).not.toMatch(/RangeError|^\s+at /m);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/time/i);
  }
  // A database whose observations "table" is a view that never ends.
  const path = join(sb.root, "cm-view.db");
  const v = new ClaudeMemDb(path);
  v.close();
  const db = new Database(path);
  db.run("DROP TABLE observations");
  db.run(
    `CREATE VIEW observations AS WITH RECURSIVE r(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM r)
     SELECT id, 's' AS memory_session_id, 'p' AS project, 'x' AS text, 'decision' AS type, 't' AS title,
       NULL AS subtitle, NULL AS facts, 'n' AS narrative, NULL AS concepts, NULL AS files_read,
       NULL AS files_modified, '2025-01-01' AS created_at, 1 AS created_at_epoch FROM r`,
  );
  db.close();
  const p = sb.spawn(["import", "claude-mem", "--db", path, "--dry-run"], { cwd: repo });
  const timer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  cases++;
  expect(p.signalCode).toBeNull();
  expect(code).toBe(0);
  expect(out + err).toMatch(/observations .* not read/);
  expect(err).not.toMatch(/^\s+at /m);
}, 60_000);
