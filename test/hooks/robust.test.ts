/** Never block, never break: deadline, locked or broken index, missing store, bounded log, HTTP context parity. */

import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bodyIds,
  claudePrompt,
  claudeStart,
  contextOf,
  hook,
  projectId,
  type Sandbox,
  sandbox,
  writeEntries,
  writeRules,
} from "../kit";

let sb: Sandbox;
let repo: string;
const EMPTY_START = { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "" } };

beforeEach(() => {
  sb = sandbox("coffer-hook-robust-");
  repo = sb.repo("r");
  writeRules(sb, projectId(repo), "- Be brief\n");
  writeEntries(sb, projectId(repo), [
    { id: "K1KESTREL", title: "Kestrel server", body: "Kestrel listens on port 8080." },
  ]);
});
afterEach(() => sb.cleanup());

/**
 * A prompt hook whose main thread blocks past a 400 ms deadline must still answer `{}` with exit 0:
 * state/index.db is an old-schema index in rollback-journal mode, exclusively locked, so the
 * hook's schema check blocks inside SQLite's busy handler (5 s).
 */
async function expectStuckHookAnswered(session: string): Promise<void> {
  writeFileSync(join(sb.cofferHome, "config.toml"), "[hook]\ndeadline_ms = 400\n");
  const state = join(sb.cofferHome, "state");
  const db = new Database(join(state, "index.db"), { create: true });
  db.run("PRAGMA journal_mode = DELETE");
  db.run("PRAGMA user_version = 1");
  db.run("BEGIN EXCLUSIVE");
  db.run("CREATE TABLE hold(x)");
  try {
    const started = Date.now();
    const p = sb.spawn(["hook", "prompt", "--agent", "claude"], { cwd: repo, stdin: "" });
    p.stdin!.write(JSON.stringify(claudePrompt(session, repo, "kestrel port?")));
    p.stdin!.end();
    const [code, out] = await Promise.all([p.exited, new Response(p.stdout).text()]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({});
    expect(Date.now() - started).toBeLessThan(2000);
    expect(readFileSync(join(state, "hook.log"), "utf8")).toContain("deadline reached");
  } finally {
    db.run("ROLLBACK");
    db.close();
  }
}

describe("deadline", () => {
  test("stdin that never ends: the empty output at the deadline, exit 0", async () => {
    writeFileSync(join(sb.cofferHome, "config.toml"), "[hook]\ndeadline_ms = 300\n");
    const started = Date.now();
    const p = sb.spawn(["hook", "session-start", "--agent", "codex"], { cwd: repo, stdin: "" });
    p.stdin!.write('{"session_id": "s", '); // ... and never closed
    const [code, out] = await Promise.all([p.exited, new Response(p.stdout).text()]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(EMPTY_START);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  test("a main thread stuck in a synchronous SQLite wait: the watchdog answers at the deadline, exit 0", async () => {
    mkdirSync(join(sb.cofferHome, "state"), { recursive: true });
    await expectStuckHookAnswered("locked");
    // Once the lock is gone the next hook heals the index and works.
    expect(bodyIds(contextOf(hook(sb, "claude", "prompt", claudePrompt("after", repo, "kestrel port?"))))).toEqual([
      "K1KESTREL",
    ]);
  });
});

describe("native watchdog (compiled binary)", () => {
  const copies = () =>
    readdirSync(join(sb.cofferHome, "state")).filter((f) => /^(linux|darwin|windows)-.*\.(so|dylib|dll)$/.test(f));
  const embedded = (copy: string) =>
    readFileSync(
      join(import.meta.dir, "..", "..", "src", "hooks", "watchdog", copy.replace(/-[a-z0-9]+(\.\w+)$/, "$1")),
    );

  test("its library is copied into state/ once, named by its content, and a damaged copy is replaced", () => {
    mkdirSync(join(sb.cofferHome, "state"), { recursive: true });
    expect(bodyIds(contextOf(hook(sb, "claude", "prompt", claudePrompt("w1", repo, "kestrel port?"))))).toEqual([
      "K1KESTREL",
    ]);
    const [copy, ...more] = copies();
    expect(more).toEqual([]);
    const file = join(sb.cofferHome, "state", copy!);
    expect(readFileSync(file)).toEqual(embedded(copy!));
    writeFileSync(file, "not a library");
    expect(bodyIds(contextOf(hook(sb, "claude", "prompt", claudePrompt("w2", repo, "kestrel port?"))))).toEqual([
      "K1KESTREL",
    ]);
    expect(readFileSync(file)).toEqual(embedded(copy!));
    expect(copies()).toEqual([copy!]);
  });

  // A store on a `noexec` mount (here a tmpfs as state/, where mounting is allowed: root with
  // CAP_SYS_ADMIN) cannot load the library: the worker watches, and the copy is not written again.
  const mountable = (() => {
    if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
    const probe = join(tmpdir(), `coffer-noexec-probe-${process.pid}`);
    mkdirSync(probe, { recursive: true });
    const ok =
      Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "noexec", "tmpfs", probe], { stderr: "pipe" }).exitCode === 0;
    if (ok) Bun.spawnSync(["umount", probe]);
    rmSync(probe, { recursive: true, force: true });
    return ok;
  })();

  test.skipIf(!mountable)(
    "state/ on a noexec mount: the worker answers a stuck hook; the copy is written once",
    async () => {
      const state = join(sb.cofferHome, "state");
      mkdirSync(state, { recursive: true });
      expect(Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "noexec,mode=0700", "tmpfs", state]).exitCode).toBe(0);
      try {
        expect(bodyIds(contextOf(hook(sb, "claude", "prompt", claudePrompt("x1", repo, "kestrel port?"))))).toEqual([
          "K1KESTREL",
        ]);
        const [copy] = copies();
        const first = statSync(join(state, copy!), { bigint: true });
        expect(bodyIds(contextOf(hook(sb, "claude", "prompt", claudePrompt("x2", repo, "kestrel port?"))))).toEqual([
          "K1KESTREL",
        ]);
        const again = statSync(join(state, copy!), { bigint: true });
        expect([again.ino, again.mtimeNs]).toEqual([first.ino, first.mtimeNs]);

        for (const f of ["index.db", "index.db-wal", "index.db-shm"]) rmSync(join(state, f), { force: true });
        await expectStuckHookAnswered("x3");
      } finally {
        Bun.spawnSync(["umount", state]);
      }
    },
  );
});

describe("broken or missing store", () => {
  test("index.db missing: rebuilt for the scopes in use, routing works", () => {
    rmSync(join(sb.cofferHome, "state"), { recursive: true, force: true });
    expect(bodyIds(contextOf(hook(sb, "claude", "prompt", claudePrompt("m1", repo, "kestrel port?"))))).toEqual([
      "K1KESTREL",
    ]);
  });

  test("index.db corrupt: replaced and rebuilt, routing works", () => {
    hook(sb, "claude", "session-start", claudeStart("c0", repo));
    writeFileSync(join(sb.cofferHome, "state", "index.db"), Buffer.alloc(8192, 7));
    for (const s of ["-wal", "-shm"]) rmSync(join(sb.cofferHome, "state", `index.db${s}`), { force: true });
    const r = hook(sb, "claude", "prompt", claudePrompt("c1", repo, "kestrel port?"));
    expect(r.code).toBe(0);
    expect(bodyIds(contextOf(r))).toEqual(["K1KESTREL"]);
  });

  test("no Coffer home at all: the empty output, and nothing is created", () => {
    rmSync(sb.cofferHome, { recursive: true, force: true });
    const r = hook(sb, "claude", "session-start", claudeStart("none", repo));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(EMPTY_START);
    expect(existsSync(sb.cofferHome)).toBe(false);
  });

  test("a broken config.toml: defaults are used, the problem is logged", () => {
    writeFileSync(join(sb.cofferHome, "config.toml"), "[hook\nread = \n");
    expect(contextOf(hook(sb, "claude", "session-start", claudeStart("cfg", repo)))).toContain("- Be brief");
    expect(readFileSync(join(sb.cofferHome, "state", "hook.log"), "utf8")).toContain("config.toml ignored");
  });

  test("outside any repository: global rules and built-ins only", () => {
    writeRules(sb, "global", "- Write tests first\n");
    const ctx = contextOf(hook(sb, "claude", "session-start", claudeStart("home", sb.home)));
    expect(ctx).not.toContain("## Project");
    expect(ctx).toContain("- Write tests first");
    expect(ctx).toContain("coffer__resume()");
  });
});

test("state/hook.log is size-bounded (rolls over to hook.log.1)", () => {
  mkdirSync(join(sb.cofferHome, "state"), { recursive: true });
  writeFileSync(join(sb.cofferHome, "state", "hook.log"), "x".repeat(300 * 1024));
  const r = hook(sb, "claude", "prompt", "not json");
  expect(r.code).toBe(0);
  expect(statSync(join(sb.cofferHome, "state", "hook.log")).size).toBeLessThan(4096);
  expect(statSync(join(sb.cofferHome, "state", "hook.log.1")).size).toBe(300 * 1024);
});

test("the HTTP session-context source equals what session-start injects for a fresh session", async () => {
  writeRules(sb, "global", "- Answer in English\n");
  const prev = { HOME: process.env.HOME, COFFER_HOME: process.env.COFFER_HOME };
  process.env.HOME = sb.home;
  process.env.COFFER_HOME = sb.cofferHome;
  try {
    const { sessionStartContext } = await import("../../src/hooks/context");
    for (const host of ["claude", "codex", "gemini", "cursor", "opencode"] as const) {
      const payload =
        host === "cursor"
          ? { conversation_id: `ctx-${host}`, workspace_roots: [repo], hook_event_name: "sessionStart" }
          : {
              session_id: `ctx-${host}`,
              cwd: repo,
              hook_event_name: host === "opencode" ? "chat.message" : "SessionStart",
              source: "startup",
            };
      expect(await sessionStartContext(host, repo)).toBe(contextOf(hook(sb, host, "session-start", payload)));
    }
    expect(await sessionStartContext("windsurf", repo)).toBe("");
    expect(await sessionStartContext("claude", "relative/dir")).toBe("");
  } finally {
    process.env.HOME = prev.HOME;
    process.env.COFFER_HOME = prev.COFFER_HOME;
  }
});

test("`coffer hook --help` explains the command with examples", () => {
  const r = sb.run(["hook", "--help"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("--agent");
  expect(r.stdout).toContain("EXAMPLES");
});

test("a relative cwd is rejected even when it exists relative to the hook's own cwd", () => {
  const r = hook(
    sb,
    "claude",
    "session-start",
    { session_id: "rel", cwd: "work/r", hook_event_name: "SessionStart", source: "startup" },
    { cwd: sb.root },
  );
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual(EMPTY_START);
});
