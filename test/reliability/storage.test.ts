/**
 * A locked, read-only or full store (issue 12) gave raw SQLiteError stack traces and "This is a bug
 * in Coffer". Now each says what is wrong and how to fix it, and read commands (and hooks) work on
 * a read-only store. Read-only and full use tmpfs mounts (root only; skipped elsewhere, since as
 * root file permissions do not apply); the lock is held by this test process through bun:sqlite.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, claudeStart, contextOf, hook, type Mcp, type Sandbox, sandbox, stdioClient } from "../kit";

const NO_BUG = /bug in Coffer|SQLiteError|at .*\(\/\$bunfs|^\s+at /m;

function sh(...cmd: string[]): boolean {
  return Bun.spawnSync(cmd, { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
}

/** A sandbox whose COFFER_HOME is its own tmpfs of `size`, or undefined where mounting is not allowed. */
function mounted(size: string): (Sandbox & { mnt: string; unmount: () => void }) | undefined {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return undefined;
  const mnt = join(tmpdir(), `coffer-mnt-${process.pid}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(mnt, { recursive: true });
  if (!sh("mount", "-t", "tmpfs", "-o", `size=${size}`, "tmpfs", mnt)) {
    rmSync(mnt, { recursive: true, force: true });
    return undefined;
  }
  const sb = sandbox("coffer-rel-storage-");
  sb.env.COFFER_HOME = join(mnt, "coffer");
  return {
    ...sb,
    cofferHome: join(mnt, "coffer"),
    mnt,
    unmount: () => {
      sh("umount", "-l", mnt);
      rmSync(mnt, { recursive: true, force: true });
      sb.cleanup();
    },
  };
}

describe("read-only COFFER_HOME", () => {
  const sb = mounted("8m");
  let repo = "";
  beforeAll(() => {
    if (!sb) return;
    repo = sb.repo("proj");
    expect(sb.run(["remember", "READONLY-MARKER entry", "--scope", "global"], { cwd: repo }).code).toBe(0);
    expect(sb.run(["rules", "add", "RULE-RO run the tests", "--scope", "global"], { cwd: repo }).code).toBe(0);
    expect(sh("mount", "-o", "remount,ro", sb.mnt)).toBe(true);
  });
  afterAll(() => sb?.unmount());

  test.skipIf(!sb)("read commands and hooks work; writes say the store is read-only", async () => {
    const s = sb!;
    for (const args of [
      ["recall", "READONLY"],
      ["list"],
      ["status"],
      ["rules", "show"],
      ["recall", "/READ.*MARK/", "--mode", "grep"],
    ]) {
      const r = s.run(args, { cwd: repo });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(NO_BUG);
    }
    expect(s.run(["recall", "READONLY"], { cwd: repo }).stdout).toContain("READONLY-MARKER");
    const h = hook(s, "claude", "session-start", claudeStart("s-ro", repo), { cwd: repo });
    expect(h.code).toBe(0);
    expect(contextOf(h)).toContain("RULE-RO");
    const w = s.run(["remember", "cannot be saved", "--scope", "global"], { cwd: repo });
    expect(w.code).toBe(1);
    expect(w.stderr).toMatch(/read-only/);
    expect(w.stderr).toMatch(/writable/);
    expect(w.stderr).not.toMatch(NO_BUG);
    // doctor says read-only (not "corrupt"), and reindex does not claim a rebuild it could not save.
    const doc = s.run(["doctor"], { cwd: repo });
    expect(doc.stdout + doc.stderr).toMatch(/read-only/);
    expect(doc.stdout + doc.stderr).not.toMatch(/corrupt|cannot be read/);
    const re = s.run(["reindex"], { cwd: repo });
    expect(re.code).toBe(1);
    expect(re.stderr).toMatch(/read-only/);
    expect(re.stdout).not.toMatch(/Indexed/);
    const mcp: Mcp = await stdioClient(s, repo);
    try {
      expect((await mcp.ok("recall", { query: "READONLY" })).hits.length).toBe(1);
      expect(await mcp.fail("remember", { text: "no", scope: "global" })).toMatch(/read-only/);
    } finally {
      await mcp.close();
    }
  });
});

describe("a store its user made read-only (chmod a-w)", () => {
  // As root, file modes do not apply: the commands run as `nobody` (setpriv), owner of the store.
  const asRoot = process.platform === "linux" && process.getuid?.() === 0;
  const setpriv = asRoot ? Bun.which("setpriv") : null;
  const usable = process.platform !== "win32" && (!asRoot || !!setpriv);
  let sb: Sandbox;
  const run = (args: string[]) => {
    const cmd = asRoot ? [setpriv!, "--reuid=65534", "--regid=65534", "--clear-groups", BIN, ...args] : [BIN, ...args];
    const p = Bun.spawnSync(cmd, { cwd: sb.home, env: sb.env, stdout: "pipe", stderr: "pipe" });
    return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
  };
  beforeAll(() => {
    if (!usable) return;
    sb = sandbox("coffer-rel-chmod-");
    if (asRoot) Bun.spawnSync(["chown", "-R", "65534:65534", sb.root]);
    Bun.spawnSync(["chmod", "755", sb.root]);
    expect(run(["remember", "CHMOD-MARKER entry", "--scope", "global"]).code).toBe(0);
    Bun.spawnSync(["chmod", "-R", "a-w", sb.cofferHome]);
  });
  afterAll(() => {
    if (!usable) return;
    Bun.spawnSync(["chmod", "-R", "u+w", sb.cofferHome]);
    sb.cleanup();
  });

  test.skipIf(!usable)("doctor and writes say read-only and how to fix it; reindex does not claim success", () => {
    const doc = run(["doctor"]);
    expect(doc.stdout + doc.stderr).toMatch(/read-only/);
    expect(doc.stdout + doc.stderr).not.toMatch(/corrupt|cannot be read|sudo chown/);
    const re = run(["reindex"]);
    expect(re.code).toBe(1);
    expect(re.stderr).toMatch(/read-only/);
    expect(re.stdout).not.toMatch(/Indexed/);
    const w = run(["remember", "cannot be saved", "--scope", "global"]);
    expect(w.code).toBe(1);
    expect(w.stderr).toMatch(/read-only/);
    expect(w.stderr).not.toMatch(/sudo chown/);
    expect(w.stderr).not.toMatch(NO_BUG);
    expect(run(["recall", "CHMOD"]).stdout).toContain("CHMOD-MARKER");
  });
});

describe("full disk", () => {
  const sb = mounted("1m");
  let repo = "";
  beforeAll(() => {
    if (!sb) return;
    repo = sb.repo("proj");
    expect(sb.run(["remember", "FULL-MARKER entry", "--scope", "global"], { cwd: repo }).code).toBe(0);
    // Fill what is left.
    try {
      writeFileSync(join(sb.mnt, "filler"), Buffer.alloc(2 * 1024 * 1024));
    } catch {}
  });
  afterAll(() => sb?.unmount());

  test.skipIf(!sb)("writes say the disk is full and leave memory/ as it was; reads still work", () => {
    const s = sb!;
    const entries = join(s.cofferHome, "memory", "global", "entries");
    const before = readdirSync(entries).sort();
    for (const args of [
      ["remember", "word ".repeat(1500), "--scope", "global"],
      ["rules", "add", "a rule that does not fit", "--scope", "global"],
    ]) {
      const r = s.run(args, { cwd: repo });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/disk .* is full/);
      expect(r.stderr).toMatch(/Free some space/);
      expect(r.stderr).not.toMatch(NO_BUG);
    }
    // No partial file, no temp file left behind.
    expect(readdirSync(entries).sort()).toEqual(before);
    const r = s.run(["recall", "FULL"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("FULL-MARKER");
  });
});

describe("full disk during an import", () => {
  const sb = mounted("3m");
  afterAll(() => sb?.unmount());

  test.skipIf(!sb)("a partial import says how many entries it wrote, and --undo takes them back out", () => {
    const s = sb!;
    expect(s.run(["remember", "FULL-IMPORT-MARKER", "--scope", "global"]).code).toBe(0);
    const file = join(s.root, "big.jsonl");
    const lines = [JSON.stringify({ type: "coffer-export", version: 1 })];
    for (let i = 0; i < 3000; i++)
      lines.push(
        JSON.stringify({
          type: "entry",
          scope: "global",
          id: `01JFULL${String(i).padStart(19, "0")}`,
          kind: "note",
          title: `fill ${i}`,
          tags: [],
          applies_to: [],
          actor: "user",
          source: "cli",
          created: "2026-01-01T00:00:00Z",
          updated: "2026-01-01T00:00:00Z",
          body: `entry ${i} ${"padding words ".repeat(60)}`,
        }),
      );
    writeFileSync(file, `${lines.join("\n")}\n`);
    const r = s.run(["import", "coffer", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(NO_BUG);
    const entries = join(s.cofferHome, "memory", "global", "entries");
    const mds = () => readdirSync(entries).filter((n) => n.endsWith(".md")).length;
    const written = mds() - 1; // the marker entry was there before
    expect(written).toBeGreaterThan(0);
    expect(r.stderr).not.toMatch(/nothing was written/);
    expect(r.stderr).toContain(`${written} of 3000`);
    const undo = /coffer import --undo (\S+)/.exec(r.stderr)?.[1];
    expect(undo).toBeDefined();
    expect(s.run(["import", "--undo", undo!.replace(/[`.]+$/, "")]).code).toBe(0);
    expect(mds()).toBe(1);
    expect(s.run(["recall", "FULL-IMPORT-MARKER"]).stdout).toContain("FULL-IMPORT-MARKER");
  });
});

describe("locked index", () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = sandbox("coffer-rel-locked-");
    expect(sb.run(["remember", "LOCK-MARKER entry", "--scope", "global"]).code).toBe(0);
  });
  afterAll(() => sb.cleanup());

  test("a write waits, then names the process that holds the lock (no stack trace); reads go on", async () => {
    const db = new Database(join(sb.cofferHome, "state", "index.db"));
    db.run("BEGIN EXCLUSIVE");
    try {
      const p = Bun.spawn([BIN, "remember", "while locked", "--scope", "global"], {
        env: sb.env,
        cwd: sb.home,
        stdout: "pipe",
        stderr: "pipe",
      });
      const [, stderr] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
      expect(await p.exited).toBe(1);
      expect(stderr).toMatch(/locked by another process/);
      if (process.platform === "linux") expect(stderr).toContain(`pid ${process.pid}`);
      expect(stderr).not.toMatch(NO_BUG);
      // Reads go on with what the index holds (WAL readers are not blocked), with a notice.
      const read = Bun.spawn([BIN, "recall", "LOCK-MARKER"], {
        env: sb.env,
        cwd: sb.home,
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err] = await Promise.all([new Response(read.stdout).text(), new Response(read.stderr).text()]);
      expect(await read.exited).toBe(0);
      expect(out).toContain("LOCK-MARKER");
      expect(err).toMatch(/held by another process/);
    } finally {
      db.run("ROLLBACK");
      db.close();
    }
    // Once released, the same write goes through.
    expect(sb.run(["remember", "after the lock", "--scope", "global"]).code).toBe(0);
  }, 60_000);
});
