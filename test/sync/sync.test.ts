import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BIN,
  claudePrompt,
  contextOf,
  git,
  hook,
  type Machine,
  mustGit,
  running,
  SYNCED_PATH,
  until,
  type World,
  world,
} from "../kit";

let w: World | undefined;
afterEach(() => {
  w?.cleanup();
  w = undefined;
});

function remember(m: Machine, text: string, extra: string[] = []): string {
  return m.ok(["remember", text, "--json", ...extra]).json().id;
}

function recallIds(m: Machine, query: string): string[] {
  return m
    .ok(["recall", query, "--json", "--limit", "20"])
    .json()
    .hits.map((h: { id: string }) => h.id);
}

function projectId(m: Machine): string {
  return m.ok(["status", "--json"]).json().project.id;
}

function entryFile(m: Machine, scope: string, id: string): string {
  return join(m.memory, scope === "global" ? "global" : `projects/${scope}`, "entries", `${id}.md`);
}

/** Rewrite an entry by hand (hand edits are honoured), with a chosen `updated`. */
function handEdit(m: Machine, scope: string, id: string, body: string, updated: string): void {
  const file = entryFile(m, scope, id);
  const text = readFileSync(file, "utf8")
    .replace(/^updated: .*$/m, `updated: ${updated}`)
    .replace(/\n---\n[\s\S]*$/, `\n---\n${body}\n`);
  writeFileSync(file, text);
}

function syncJson(m: Machine, extra: string[] = []) {
  return m.ok(["sync", "--json", ...extra]).json();
}

/** A and B both set up against the remote, sharing one project entry. */
function setUp(): { w: World; shared: string; pid: string } {
  w = world();
  const shared = remember(w.a, "We deploy with make release, never git push --tags", ["--kind", "convention"]);
  w.a.ok(["sync", "--init", w.remote]);
  w.b.ok(["sync", "--init", w.remote]);
  return { w, shared, pid: projectId(w.a) };
}

describe("coffer sync across two machines", () => {
  test("remember on A, sync A, sync B: recalled on B in the same project (same origin, different clone paths)", () => {
    w = world();
    const { a, b } = w;
    expect(a.project).not.toBe(b.project);
    const id = remember(a, "The staging database is reset every Monday at 06:00 UTC", ["--kind", "fact"]);
    const gid = remember(a, "Prefer small commits with descriptive messages", ["--scope", "global"]);

    const first = a.run(["sync", "--init", w.remote]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Sync set up");
    // Nothing on a pipe: no progress bar.
    expect(first.stderr).not.toMatch(/\r|\[#/);

    b.ok(["status"]); // B has been used before: its index exists
    const second = b.ok(["sync", "--init", w.remote, "--json"]).json();
    expect(second.initialized).toBe(true);
    expect(second.received.commits).toBeGreaterThanOrEqual(1);
    expect(second.reindexed).toBe(2);

    expect(projectId(b)).toBe(projectId(a));
    const hits = b.ok(["recall", "staging database", "--json"]).json().hits;
    expect(hits[0].id).toBe(id);
    expect(hits[0].scope).toBe("project");
    expect(recallIds(b, "small commits")).toContain(gid);

    // The commit message says what changed, with counts per scope.
    const msg = a.git("log", "-1", "--format=%B");
    expect(msg).toContain("1 entry added");
    expect(msg).toMatch(/global: 1 entry added/);
    expect(msg).toMatch(/proj \([0-9A-Z]{8}\): 1 entry added/);
    // B had no git identity configured: Coffer supplied one.
    expect(() => b.git("log", "-1")).not.toThrow();
  });

  test("concurrent edits of different entries merge on both machines", () => {
    const { w, shared, pid } = setUp();
    const { a, b } = w;
    const other = remember(a, "Integration tests need docker compose up first");
    const obsolete = remember(a, "The legacy Jenkins job still runs nightly");
    a.ok(["sync"]);
    b.ok(["sync"]);
    expect(recallIds(b, "Jenkins")).toEqual([obsolete]);
    a.ok(["forget", obsolete]);

    // A: a new entry and an edit of `shared`; B: a new entry, an edit of `other`, a global entry.
    const fromA = remember(a, "Feature flags live in config/flags.yaml");
    handEdit(a, pid, shared, "We deploy with make release (edited on A)", "2030-01-01T00:00:00Z");
    const fromB = remember(b, "The CI cache key includes bun.lock");
    const globalB = remember(b, "Answer in English", ["--scope", "global"]);
    handEdit(b, pid, other, "Integration tests need docker compose up first (edited on B)", "2030-01-02T00:00:00Z");

    expect(syncJson(a).conflicts).toEqual([]);
    const rb = syncJson(b);
    expect(rb.conflicts).toEqual([]);
    expect(rb.received.scopes[0].edited + rb.received.scopes[0].added).toBe(2);
    a.ok(["sync"]);

    for (const m of [a, b]) {
      expect(recallIds(m, "feature flags")).toContain(fromA);
      expect(recallIds(m, "CI cache key")).toContain(fromB);
      expect(recallIds(m, "English")).toContain(globalB);
      expect(m.ok(["show", shared, "--json"]).json().body).toContain("edited on A");
      expect(m.ok(["show", other]).stdout).toContain("edited on B");
    }
    // Forgotten on A, gone on both ("Jenkins" may still find other CI entries through the vocabulary).
    for (const m of [a, b]) {
      expect(recallIds(m, "Jenkins")).not.toContain(obsolete);
      expect(m.run(["show", obsolete]).code).not.toBe(0);
    }
    expect(a.git("rev-parse", "HEAD")).toBe(b.git("rev-parse", "HEAD"));
    expect(b.ok(["status", "--json"]).json().sync).toMatchObject({
      enabled: true,
      ahead: 0,
      behind: 0,
      uncommitted: 0,
    });
  });

  test("a rules conflict keeps both sides' bullets, deduplicated, and says so", () => {
    const { w, pid } = setUp();
    const { a, b } = w;
    a.ok(["rules", "add", "Run bun test before committing"]);
    a.ok(["rules", "add", "Never commit .env files"]);
    a.ok(["sync"]);
    b.ok(["sync"]);

    a.ok(["rules", "add", "Use pnpm, never npm"]);
    a.ok(["rules", "add", "Keep PRs under 400 lines"]);
    b.ok(["rules", "add", "Write commit messages in English"]);
    b.ok(["rules", "add", "Keep PRs under 400 lines"]); // the same rule on both sides
    // A deleted a rule both had: it stays deleted.
    const rulesA = join(a.memory, "projects", pid, "rules.md");
    writeFileSync(rulesA, readFileSync(rulesA, "utf8").replace("- Never commit .env files\n", ""));
    a.ok(["sync"]);

    const res = b.run(["sync"]);
    expect(res.code).toBe(0);
    expect(res.stdout + res.stderr).toContain("kept both sides' bullets");
    const merged = b.ok(["rules", "show", "--scope", "project", "--json"]).json().rules[0].text as string;
    const bullets = merged.split("\n").filter((l) => l.startsWith("- "));
    expect(bullets.sort()).toEqual(
      [
        "- Keep PRs under 400 lines",
        "- Run bun test before committing",
        "- Use pnpm, never npm",
        "- Write commit messages in English",
      ].sort(),
    );
    expect(merged).not.toContain("<<<<<<<");

    a.ok(["sync"]);
    expect(readFileSync(rulesA, "utf8")).toBe(merged);
    // Global rules changed on both sides too (add/add on a fresh file).
    a.ok(["rules", "add", "Be brief", "--scope", "global"]);
    b.ok(["rules", "add", "Be precise", "--scope", "global"]);
    a.ok(["sync"]);
    const rg = syncJson(b);
    expect(rg.conflicts.map((c: { kind: string }) => c.kind)).toEqual(["rules"]);
    expect(readFileSync(join(b.memory, "global", "rules.md"), "utf8")).toBe("- Be brief\n- Be precise\n");
  });

  test("an entry edited on both sides keeps the newer version and saves the other as a sibling entry", () => {
    const { w, shared, pid } = setUp();
    const { a, b } = w;
    const second = remember(a, "Release notes go to CHANGELOG.md");
    const third = remember(a, "Hotfixes branch from the last release tag");
    a.ok(["sync"]);
    b.ok(["sync"]);
    // third: forgotten on A, edited on B -> the edit survives.
    a.ok(["forget", third]);
    handEdit(b, pid, third, "Hotfixes branch from the last release tag (edited on B)", "2030-06-01T00:00:00Z");

    // shared: A's edit is newer. second: B's edit is newer.
    handEdit(a, pid, shared, "Deploy: make release (version from A, newer)", "2031-01-01T00:00:00Z");
    handEdit(b, pid, shared, "Deploy: make release (version from B, older)", "2030-06-01T00:00:00Z");
    handEdit(a, pid, second, "Release notes: CHANGELOG.md (version from A, older)", "2030-06-01T00:00:00Z");
    handEdit(b, pid, second, "Release notes: CHANGELOG.md (version from B, newer)", "2031-01-01T00:00:00Z");
    a.ok(["sync"]);
    const human = b.run(["sync"]);
    expect(human.code).toBe(0);
    const text = human.stdout + human.stderr;
    expect(text).toContain(`entry ${shared}`);
    expect(text).toContain("kept the newer version (from the remote) and saved this machine's as entry");
    expect(text).toContain("kept the newer version (from this machine) and saved the remote's as entry");
    expect(text).toContain(`entry ${third} in proj (`);
    expect(text).toContain("was forgotten on the remote and edited on this machine; kept the edited version");
    a.ok(["sync"]);

    for (const m of [a, b]) {
      expect(m.ok(["show", shared]).stdout).toContain("version from A, newer");
      expect(m.ok(["show", second]).stdout).toContain("version from B, newer");
      expect(m.ok(["show", third]).stdout).toContain("edited on B");
      const files = readdirSync(join(m.memory, "projects", pid, "entries"));
      expect(files.length).toBe(5);
      // Both losing versions survive as their own entries, tagged and superseded by the kept ones (never recalled).
      const siblings = files.map((f) => f.slice(0, -3)).filter((id) => ![shared, second, third].includes(id));
      expect(siblings.length).toBe(2);
      const bodies = siblings.map((id) => m.ok(["show", id]).stdout);
      expect(bodies.some((t) => t.includes("version from B, older"))).toBe(true);
      expect(bodies.some((t) => t.includes("version from A, older"))).toBe(true);
      for (const id of siblings) {
        const file = readFileSync(entryFile(m, pid, id), "utf8");
        expect(file).toMatch(/^tags: \[.*sync-conflict.*\]$/m);
        expect(file).toMatch(/^status: superseded$/m);
        expect(file).toMatch(new RegExp(`^superseded_by: (${shared}|${second})$`, "m"));
      }
      expect(recallIds(m, "older")).toEqual([]);
    }
  });

  test("a both-sides edit injects one version, marked, listed by doctor and the inbox until the copy is forgotten", () => {
    const { w, shared, pid } = setUp();
    const { a, b } = w;
    handEdit(a, pid, shared, "Deploy: make release (version from A, newer)", "2031-01-01T00:00:00Z");
    handEdit(b, pid, shared, "Deploy: make release (version from B, older)", "2030-06-01T00:00:00Z");
    a.ok(["sync"]);
    b.ok(["sync"]);
    a.ok(["sync"]);
    const copyId = readdirSync(join(b.memory, "projects", pid, "entries"))
      .map((f) => f.slice(0, -3))
      .find((id) => id !== shared)!;
    const copy = copyId.slice(-8);
    let n = 0;
    const prompt = (m: Machine) =>
      contextOf(
        hook(m.sb, "claude", "prompt", claudePrompt(`s${++n}`, m.project, "How do we deploy with make release?"), {
          cwd: m.project,
        }),
      );
    for (const m of [a, b]) {
      const ctx = prompt(m);
      expect(ctx).toContain("version from A, newer");
      expect(ctx).not.toContain("version from B, older");
      expect(ctx.split("make release (version").length).toBe(2); // one body
      expect(ctx).toContain(
        `sync conflict: edited on two machines; this is the newer version, the older is kept as [${copy}]`,
      );
      expect(ctx).toContain(`coffer forget ${copy}`);
      const doc = m.ok(["doctor", "--json"]).json();
      expect(doc.sync_conflicts.map((c: { copy: string; kept: string }) => [c.copy, c.kept])).toEqual([
        [copyId, shared],
      ]);
      expect(
        doc.warnings.some(
          (x: { where: string; fix: string }) => x.where === "sync" && x.fix.includes(`coffer forget ${copy}`),
        ),
      ).toBe(true);
      expect(
        m
          .ok(["inbox", "list", "--json"])
          .json()
          .sync.map((c: { copy: string }) => c.copy),
      ).toEqual([copyId]);
      expect(m.ok(["inbox", "list"]).stdout).toContain(`${copy}  sync`);
    }

    // Resolve on B: the copy goes, the kept entry loses its mark; A learns it by syncing.
    b.ok(["forget", copy]);
    expect(readFileSync(entryFile(b, pid, shared), "utf8")).not.toContain("sync-conflict");
    b.ok(["sync"]);
    a.ok(["sync"]);
    for (const m of [a, b]) {
      const ctx = prompt(m);
      expect(ctx).toContain("version from A, newer");
      expect(ctx).not.toContain("sync conflict");
      const doc = m.ok(["doctor", "--json"]).json();
      expect(doc.sync_conflicts).toEqual([]);
      expect(doc.warnings.some((x: { where: string }) => x.where === "sync")).toBe(false);
      expect(m.ok(["inbox", "list", "--json"]).json().sync).toEqual([]);
    }
  });

  test("git ls-files never lists anything outside memory/ content, locally or on the remote", () => {
    const { w, pid } = setUp();
    const { a, b } = w;
    const strays = [
      ".DS_Store",
      "Thumbs.db",
      "notes.txt",
      "state/index.db",
      "inbox/trace.json",
      "queue/session-queue.json",
      "global/.DS_Store",
      "global/scratch.md",
      "global/entries/.01JD3K0000000000000000000A.md.4242.abc0.tmp",
      "global/entries/01JD3K0000000000000000000B.md.swp",
      `projects/${pid}/entries/notes.txt`,
      `projects/${pid}/entries/.#lock.md`,
      `projects/${pid}/state/index.db`,
      `projects/${pid}/handoff/main.md~`,
    ];
    for (const p of strays) {
      mkdirSync(join(a.memory, p, ".."), { recursive: true });
      writeFileSync(join(a.memory, p), "machine-local\n");
    }
    remember(a, "A real entry written next to the strays");
    a.ok(["handoff", "set", "Half-way through the sync tests"]);
    a.ok(["sync"]);
    b.ok(["sync"]);

    for (const listing of [
      a.git("ls-files"),
      mustGit(w.root, w.gitEnv, "--git-dir", w.remote, "ls-tree", "-r", "--name-only", "main"),
    ]) {
      const paths = listing.split("\n").filter(Boolean);
      expect(paths.length).toBeGreaterThan(3);
      for (const p of paths) expect(p).toMatch(SYNCED_PATH);
    }
    expect(a.git("ls-files")).toContain(`projects/${pid}/handoff/main.md`);
    expect(b.ok(["resume"]).stdout).toContain("Half-way through the sync tests");
    // No machine path leaves the machine.
    for (const path of [a.sb.root, b.sb.root, a.project]) {
      expect(git(w.root, w.gitEnv, "--git-dir", w.remote, "grep", "-I", "-F", "-e", path, "main").stdout).toBe("");
    }
    // Strays stay on disk, untouched.
    for (const p of strays) expect(existsSync(join(a.memory, p))).toBe(true);
  });

  test("machine-local files tracked by an adopted clone or arriving from the remote stop being tracked", () => {
    w = world();
    const { a, b } = w;
    const seed = join(w.root, "seed");
    mustGit(w.root, w.gitEnv, "clone", "-q", w.remote, seed);
    mkdirSync(join(seed, "state"), { recursive: true });
    mkdirSync(join(seed, "global", "entries"), { recursive: true });
    writeFileSync(join(seed, "state", "index.db"), "sqlite");
    writeFileSync(
      join(seed, "global", "entries", "01JD3K0000000000000000000C.md"),
      "---\nid: 01JD3K0000000000000000000C\nkind: fact\ntitle: Seeded\ntags: []\nactor: user\nsource: import\ncreated: 2030-01-01T00:00:00Z\nupdated: 2030-01-01T00:00:00Z\n---\nSeeded by hand into the remote\n",
    );
    mustGit(seed, w.gitEnv, "add", "-A");
    mustGit(seed, w.gitEnv, "commit", "-qm", "hand-made");
    mustGit(seed, w.gitEnv, "push", "-q", "origin", "HEAD:main");

    // A: memory/ already is a clone of the remote; --init adopts it.
    mustGit(w.root, w.gitEnv, "clone", "-q", w.remote, a.memory);
    const ra = syncJson(a, ["--init", w.remote]);
    expect(ra.untracked).toEqual(["state/index.db"]);
    expect(a.git("log", "-1", "--format=%B")).toContain("state/index.db");
    // B: a plain memory/ whose first pull brings the stray in (already untracked on the remote by now,
    // so seed a second one).
    writeFileSync(join(seed, "inbox.json"), "{}");
    mustGit(seed, w.gitEnv, "pull", "-q", "--rebase", "origin", "main");
    mustGit(seed, w.gitEnv, "add", "-f", "inbox.json"); // forced past Coffer's .gitignore, as a careless tool might
    mustGit(seed, w.gitEnv, "commit", "-qm", "another stray");
    mustGit(seed, w.gitEnv, "push", "-q", "origin", "HEAD:main");
    const rb = syncJson(b, ["--init", w.remote]);
    expect(rb.untracked).toEqual(["inbox.json"]);

    for (const m of [a, b]) {
      for (const p of m.git("ls-files").split("\n").filter(Boolean)) expect(p).toMatch(SYNCED_PATH);
      expect(recallIds(m, "seeded")).toEqual(["01JD3K0000000000000000000C"]);
    }
    const remoteFiles = mustGit(w.root, w.gitEnv, "--git-dir", w.remote, "ls-tree", "-r", "--name-only", "main");
    expect(remoteFiles).not.toContain("state/");
    expect(remoteFiles).not.toContain("inbox.json");
    expect(existsSync(join(a.memory, "state", "index.db"))).toBe(true);
  });

  test("a missing remote or no network gives a clear error and loses nothing", () => {
    w = world();
    const { a, b } = w;
    const before = remember(a, "Written before any sync");

    const notSetUp = a.run(["sync"]);
    expect(notSetUp.code).toBe(1);
    expect(notSetUp.stderr).toContain("sync is not set up");
    expect(notSetUp.stderr).toContain("coffer sync --init <remote-url>");

    // --init against a remote that does not exist: error, and memory/ is left as it was.
    const missing = a.run(["sync", "--init", join(w.root, "nope.git")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("does not exist or is not a git repository");
    expect(missing.stderr).toContain("Nothing was lost");
    expect(existsSync(join(a.memory, ".git"))).toBe(false);
    expect(recallIds(a, "before any sync")).toEqual([before]);

    // --init against an unreachable host.
    const offline = a.run(["sync", "--init", "http://127.0.0.1:9/memory.git"]);
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain("could not reach the remote http://127.0.0.1:9/memory.git");
    expect(existsSync(join(a.memory, ".git"))).toBe(false);

    a.ok(["sync", "--init", w.remote]);
    // The remote disappears (unmounted drive, deleted repo).
    const during = remember(a, "Written while the remote was gone");
    renameSync(w.remote, `${w.remote}.away`);
    const gone = a.run(["sync"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("does not exist or is not a git repository");
    expect(gone.stderr).toContain("1 local commit is kept in memory/ and will be pushed by the next sync");
    expect(recallIds(a, "remote was gone")).toEqual([during]);
    const st = a.ok(["status", "--json"]).json().sync;
    expect(st.ahead).toBe(1);
    expect(st.last_error).toContain("does not exist");
    expect(a.ok(["status"]).stdout).toMatch(
      /Sync: on, origin .*; 1 ahead, 0 behind as of the last fetch; .*last attempt .* failed/,
    );

    // No network: the origin points at a port nobody listens on; a failed --init keeps the old origin.
    const keep = a.run(["sync", "--init", "http://127.0.0.1:9/memory.git"]);
    expect(keep.code).toBe(1);
    expect(a.git("remote", "get-url", "origin").trim()).toBe(w.remote);
    a.git("remote", "set-url", "origin", "http://127.0.0.1:9/memory.git");
    const during2 = remember(a, "Written while offline");
    const noNet = a.run(["sync"]);
    expect(noNet.code).toBe(1);
    expect(noNet.stderr).toContain("could not reach the remote");
    expect(noNet.stderr).toContain("2 local commits are kept");
    a.git("remote", "set-url", "origin", w.remote);

    // Back online: everything arrives.
    renameSync(`${w.remote}.away`, w.remote);
    const back = syncJson(a);
    expect(back.pushed).toBe(2);
    expect(a.ok(["status", "--json"]).json().sync).toMatchObject({ ahead: 0, behind: 0, last_error: null });
    b.ok(["sync", "--init", w.remote]);
    expect(recallIds(b, "written").sort()).toEqual([before, during, during2].sort());
  });

  test("a clear error when git is not on PATH", () => {
    w = world();
    const r = w.a.run(["sync", "--init", w.remote], { env: { PATH: join(w.root, "no-bin") } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("git was not found on PATH");
  });

  test("coffer status shows sync state", () => {
    w = world();
    const { a, b } = w;
    expect(a.ok(["status", "--json"]).json().sync).toMatchObject({ enabled: false });
    expect(a.ok(["status"]).stdout).toContain("Sync: off");
    a.ok(["sync", "--init", w.remote]);
    b.ok(["sync", "--init", w.remote]);
    remember(a, "Something new on A");
    a.ok(["sync"]);
    remember(b, "Something new on B");
    b.git("fetch", "-q", "origin");
    const st = b.ok(["status", "--json"]).json().sync;
    expect(st).toMatchObject({ enabled: true, remote: w.remote, branch: "main", ahead: 0, behind: 1 });
    expect(st.uncommitted).toBeGreaterThanOrEqual(1);
    expect(st.last_sync).toMatch(/^\d{4}-\d\d-\d\dT/);
    b.ok(["sync"]);
    expect(b.ok(["status"]).stdout).toMatch(
      /Sync: on, origin .* \(main\); 0 ahead, 0 behind as of the last fetch; last sync \d{4}-/,
    );
  });
  test("a sync interrupted mid-merge is recovered by the next one", () => {
    const { w, pid } = setUp();
    const { a, b } = w;
    a.ok(["rules", "add", "Rule from A"]);
    a.ok(["sync"]);
    b.ok(["rules", "add", "Rule from B"]);
    // What a killed sync leaves behind: a local commit and a rebase stopped on a conflict.
    const env = { ...b.sb.env, ...w.gitEnv };
    mustGit(b.memory, env, "add", "-A");
    mustGit(b.memory, env, "commit", "-qm", "local");
    mustGit(b.memory, env, "fetch", "-q", "origin");
    expect(git(b.memory, env, "rebase", "origin/main").code).not.toBe(0);
    expect(existsSync(join(b.memory, ".git", "rebase-merge"))).toBe(true);

    const r = b.run(["sync"]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain("interrupted");
    expect(readFileSync(join(b.memory, "projects", pid, "rules.md"), "utf8")).toBe("- Rule from A\n- Rule from B\n");
    expect(existsSync(join(b.memory, ".git", "rebase-merge"))).toBe(false);

    // A sync killed mid-commit: its lock (dead pid) and git's index.lock are left behind.
    writeFileSync(
      join(b.sb.cofferHome, "state", "sync.lock"),
      JSON.stringify({ pid: 2 ** 22 + 12345, at: Date.now() }),
    );
    writeFileSync(join(b.memory, ".git", "index.lock"), "");
    const id = remember(b, "Written after a crashed sync");
    const again = b.run(["sync"]);
    expect(again.code).toBe(0);
    expect(again.stdout + again.stderr).toContain("index.lock");
    a.ok(["sync"]);
    expect(recallIds(a, "crashed sync")).toEqual([id]);
  });

  test("a sync killed while its git still runs: the next sync stops that git before touching memory/", async () => {
    const { w } = setUp();
    const { a, b } = w;
    const id = remember(a, "Written just before the sync that was killed");
    // A git that stalls in `commit` (a slow disk, a big index) and notes its pid.
    const slow = join(w.root, "slow-git");
    mkdirSync(slow);
    const pidFile = join(w.root, "commit.pid");
    writeFileSync(
      join(slow, "git"),
      `#!/bin/sh
case " $* " in *" commit "*) echo $$ > "${pidFile}"; while :; do sleep 0.1; done;; esac
exec "${Bun.which("git")}" "$@"
`,
      { mode: 0o755 },
    );
    const killed = a.sb.spawn(["sync"], { cwd: a.project, env: { PATH: `${slow}:${a.sb.env.PATH}` } });
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"), {
      what: "the commit",
      ms: 30_000,
    });
    killed.kill("SIGKILL");
    await killed.exited;
    const orphan = Number(readFileSync(pidFile, "utf8"));
    const alive = () => running(orphan);
    expect(alive()).toBe(true); // kill -9 reaches coffer only: its git runs on

    const r = a.run(["sync"]);
    expect(r.code).toBe(0);
    expect(alive()).toBe(false);
    expect(r.stdout + r.stderr).toContain(`left git running (pid ${orphan})`);
    b.ok(["sync"]);
    expect(recallIds(b, "killed")).toEqual([id]);
  });

  test("two syncs at once on one machine: one waits its turn or says so, nothing is lost", async () => {
    const { w } = setUp();
    const { a, b } = w;
    const ids = [remember(a, "Concurrent one"), remember(a, "Concurrent two")];
    const procs = [0, 1].map(() => a.sb.spawn(["sync"], { cwd: a.project }));
    const results = await Promise.all(
      procs.map(async (p) => ({ code: await p.exited, err: await new Response(p.stderr).text() })),
    );
    for (const r of results) if (r.code !== 0) expect(r.err).toContain("another coffer sync is running");
    expect(results.some((r) => r.code === 0)).toBe(true);
    b.ok(["sync"]);
    expect(recallIds(b, "concurrent").sort()).toEqual(ids.sort());
  });

  test.skipIf(!Bun.which("script"))("a progress bar on a terminal", () => {
    const { w } = setUp();
    remember(w.a, "Shown with a progress bar");
    const p = Bun.spawnSync(["script", "-qec", `'${BIN}' sync`, "/dev/null"], {
      cwd: w.a.project,
      env: w.a.sb.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = p.stdout.toString();
    expect(out).toContain("syncing [");
    expect(out).toContain("100% 5/5");
  });
});
