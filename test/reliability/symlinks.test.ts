/**
 * Symbolic links in memory/ (issue 12, critical): anyone who can push to a shared sync remote could
 * commit `global/rules.md -> ../../../.aws/credentials` or `entries/<id>.md -> ~/.ssh/id_ed25519`.
 * After `coffer sync` the target must not be injected by the session-start or prompt hooks, returned
 * by recall/show/list, or pushed back after `rules add` + `sync`; sync removes the links it receives
 * and says so. Links made locally are never followed either (reads use O_NOFOLLOW, folders are
 * checked), and entry/rules files over 1 MiB are not read.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { claudePrompt, claudeStart, hook, mustGit, type World, world } from "../kit";

const SECRET = "aws_secret_access_key = EXFILTRATED-SECRET-0123456789";
const SSH = "-----BEGIN OPENSSH PRIVATE KEY----- SSH-SECRET-KEY-MATERIAL";
const ENTRY_ID = "01JAAAAAAAAAAAAAAAAAAAAAAA";

let w: World;
let attacker: string;

beforeAll(() => {
  w = world();
  // Machine B (the victim) has secrets next to its COFFER_HOME.
  mkdirSync(join(w.b.sb.home, ".aws"), { recursive: true });
  writeFileSync(join(w.b.sb.home, ".aws", "credentials"), `${SECRET}\n`);
  mkdirSync(join(w.b.sb.home, ".ssh"), { recursive: true });
  writeFileSync(join(w.b.sb.home, ".ssh", "id_ed25519"), `${SSH}\n`);
  // Both machines sync through the bare remote; A seeds it.
  w.a.ok(["remember", "a harmless global entry", "--scope", "global"]);
  w.a.ok(["sync", "--init", w.remote]);
  w.b.ok(["sync", "--init", w.remote]);
  // The attacker clones the remote and commits links.
  attacker = mkdtempSync(join(w.root, "attacker-"));
  mustGit(w.root, w.gitEnv, "clone", "-q", w.remote, attacker);
  const victimMemory = w.b.memory;
  const rules = join(attacker, "global", "rules.md");
  rmSync(rules, { force: true });
  // Relative, as an attacker would write it (resolves from B's memory/global/ to B's HOME).
  symlinkSync(relative(join(victimMemory, "global"), join(w.b.sb.home, ".aws", "credentials")), rules);
  mkdirSync(join(attacker, "global", "entries"), { recursive: true });
  symlinkSync(join(w.b.sb.home, ".ssh", "id_ed25519"), join(attacker, "global", "entries", `${ENTRY_ID}.md`));
  mustGit(attacker, w.gitEnv, "add", "-A");
  mustGit(attacker, w.gitEnv, "commit", "-q", "-m", "innocent update");
  mustGit(attacker, w.gitEnv, "push", "-q", "origin", "HEAD");
});
afterAll(() => w.cleanup());

function leaks(text: string): boolean {
  return text.includes("EXFILTRATED-SECRET") || text.includes("SSH-SECRET-KEY-MATERIAL");
}

test("sync removes the links it receives, says so, and never reads their targets", () => {
  const r = w.b.ok(["sync"]);
  expect(r.stderr + r.stdout).toMatch(/symbolic link/i);
  expect(r.stderr + r.stdout).toContain("global/rules.md");
  for (const p of ["global/rules.md", `global/entries/${ENTRY_ID}.md`]) {
    let isLink = false;
    try {
      isLink = lstatSync(join(w.b.memory, p)).isSymbolicLink();
    } catch {}
    expect(isLink).toBe(false);
  }
  const json = w.b.ok(["sync", "--json"]).json();
  expect(json.removed).toEqual([]);
  // The secrets themselves are untouched.
  expect(Bun.file(join(w.b.sb.home, ".aws", "credentials")).size).toBeGreaterThan(0);
});

test("nothing of the targets is injected, recalled or pushed back after rules add + sync", () => {
  const start = hook(w.b.sb, "claude", "session-start", claudeStart("s-exfil", w.b.project), { cwd: w.b.project });
  expect(start.code).toBe(0);
  expect(leaks(start.stdout)).toBe(false);
  const prompt = hook(w.b.sb, "claude", "prompt", claudePrompt("s-exfil", w.b.project, "aws secret access key ssh"), {
    cwd: w.b.project,
  });
  expect(prompt.code).toBe(0);
  expect(leaks(prompt.stdout)).toBe(false);
  for (const mode of ["bm25", "grep"]) {
    const r = w.b.run(["recall", "EXFILTRATED", "--mode", mode, "--json"]);
    expect(leaks(r.stdout + r.stderr)).toBe(false);
  }
  expect(leaks(w.b.run(["show", ENTRY_ID]).stdout)).toBe(false);
  expect(leaks(w.b.run(["rules", "show"]).stdout)).toBe(false);
  expect(leaks(w.b.run(["list", "--scope", "global"]).stdout)).toBe(false);
  w.b.ok(["rules", "add", "Run the tests before pushing", "--scope", "global"]);
  w.b.ok(["sync"]);
  // Everything the remote holds now, every blob of every commit: no secret.
  const all = mustGit(w.remote, w.gitEnv, "log", "--all", "-p", "--format=%H");
  expect(leaks(all)).toBe(false);
  expect(all).toContain("Run the tests before pushing");
  const tree = mustGit(w.remote, w.gitEnv, "ls-tree", "-r", "HEAD");
  expect(tree).not.toMatch(/^120000/m);
});

test("links made locally in memory/ are never followed (entry, rules, entries folder)", () => {
  const m = w.a.memory;
  // A link as an entry file, a link as rules.md, a project scope whose entries/ is a link.
  symlinkSync(join(w.b.sb.home, ".ssh", "id_ed25519"), join(m, "global", "entries", "01JBBBBBBBBBBBBBBBBBBBBBBB.md"));
  rmSync(join(m, "global", "rules.md"), { force: true });
  symlinkSync(join(w.b.sb.home, ".aws", "credentials"), join(m, "global", "rules.md"));
  const outside = mkdtempSync(join(w.root, "outside-"));
  writeFileSync(
    join(outside, "01JCCCCCCCCCCCCCCCCCCCCCCC.md"),
    `---\nid: 01JCCCCCCCCCCCCCCCCCCCCCCC\nkind: note\ntitle: outside\n---\nOUTSIDE-SSH-SECRET-KEY-MATERIAL\n`,
  );
  mkdirSync(join(m, "projects", "01JDDDDDDDDDDDDDDDDDDDDDDD"), { recursive: true });
  symlinkSync(outside, join(m, "projects", "01JDDDDDDDDDDDDDDDDDDDDDDD", "entries"));
  expect(w.a.run(["reindex"]).code).toBe(0);
  // doctor lists every link in memory/ with the command that removes it
  const doc = w.a.run(["doctor"]);
  expect(doc.stdout + doc.stderr).toContain("01JBBBBBBBBBBBBBBBBBBBBBBB.md is a symbolic link");
  expect(doc.stdout + doc.stderr).toMatch(/rules\.md is a symbolic link/);
  const start = hook(w.a.sb, "claude", "session-start", claudeStart("s-local", w.a.project), { cwd: w.a.project });
  expect(leaks(start.stdout)).toBe(false);
  for (const args of [
    ["recall", "SECRET", "--mode", "grep", "--json"],
    ["recall", "OUTSIDE", "--json"],
    ["rules", "show"],
    ["show", "01JBBBBBBBBBBBBBBBBBBBBBBB"],
    ["show", "01JCCCCCCCCCCCCCCCCCCCCCCC"],
  ]) {
    const r = w.a.run(args);
    expect(leaks(r.stdout + r.stderr)).toBe(false);
    expect(r.stdout + r.stderr).not.toContain("OUTSIDE-SSH");
  }
  // rules add replaces the link with a real file; the link's target is not changed or copied.
  w.a.ok(["rules", "add", "A local rule", "--scope", "global"]);
  expect(lstatSync(join(m, "global", "rules.md")).isSymbolicLink()).toBe(false);
  expect(Bun.file(join(m, "global", "rules.md")).size).toBeLessThan(200);
  expect(Bun.file(join(w.b.sb.home, ".aws", "credentials")).size).toBeGreaterThan(0);
  // A sync from A removes the local links too and never sends them.
  const s = w.a.ok(["sync", "--json"]).json();
  expect(s.removed).toContain("global/entries/01JBBBBBBBBBBBBBBBBBBBBBBB.md");
  expect(() => readlinkSync(join(m, "global", "entries", "01JBBBBBBBBBBBBBBBBBBBBBBB.md"))).toThrow();
  expect(leaks(mustGit(w.remote, w.gitEnv, "log", "--all", "-p"))).toBe(false);
});

test("an entry file over 1 MiB is skipped with a notice, not read into the index", () => {
  const big = `---\nid: 01JEEEEEEEEEEEEEEEEEEEEEEE\nkind: note\ntitle: big\n---\n${"HUGE ".repeat(300_000)}\n`;
  writeFileSync(join(w.a.memory, "global", "entries", "01JEEEEEEEEEEEEEEEEEEEEEEE.md"), big);
  const r = w.a.run(["reindex"]);
  expect(r.code).toBe(0);
  expect(r.stderr + r.stdout).toContain("01JEEEEEEEEEEEEEEEEEEEEEEE.md");
  const recall = w.a.run(["recall", "HUGE", "--json"]);
  expect(recall.stdout).not.toContain("01JEEEEEEEEEEEEEEEEEEEEEEE");
});

test("a submodule (gitlink), an oversized and a binary entry from the remote: removed or skipped, never injected", () => {
  mustGit(attacker, w.gitEnv, "pull", "-q", "--rebase", "origin", "HEAD");
  const sha = mustGit(attacker, w.gitEnv, "rev-parse", "HEAD").trim();
  writeFileSync(
    join(attacker, "global", "entries", "01JFFFFFFFFFFFFFFFFFFFFFFF.md"),
    `---\nid: 01JFFFFFFFFFFFFFFFFFFFFFFF\ntitle: big\n---\nOVERSIZED-REMOTE ${"x".repeat(1_200_000)}\n`,
  );
  writeFileSync(
    join(attacker, "global", "entries", "01JGGGGGGGGGGGGGGGGGGGGGGG.md"),
    Buffer.concat([
      Buffer.from("---\nid: 01JGGGGGGGGGGGGGGGGGGGGGGG\n---\nBINARY-REMOTE "),
      Buffer.from([0, 1, 2, 0, 255]),
    ]),
  );
  mustGit(attacker, w.gitEnv, "add", "global/entries");
  mustGit(attacker, w.gitEnv, "update-index", "--add", "--cacheinfo", `160000,${sha},global/entries/submod`);
  mustGit(attacker, w.gitEnv, "commit", "-q", "-m", "more");
  mustGit(attacker, w.gitEnv, "push", "-q", "origin", "HEAD");
  const r = w.b.ok(["sync", "--json"]).json();
  expect(r.removed).toContain("global/entries/submod");
  const start = hook(w.b.sb, "claude", "session-start", claudeStart("s-sub", w.b.project), { cwd: w.b.project });
  expect(start.code).toBe(0);
  for (const q of ["OVERSIZED", "BINARY"]) {
    const rec = w.b.run(["recall", q, "--json"]);
    expect(rec.code).toBe(0);
    expect(rec.stdout).not.toContain(`${q}-REMOTE`);
  }
  expect(start.stdout).not.toMatch(/OVERSIZED-REMOTE|BINARY-REMOTE/);
  const doc = w.b.run(["reindex"]);
  expect(doc.stdout + doc.stderr).toContain("01JFFFFFFFFFFFFFFFFFFFFFFF.md");
  expect(doc.stdout + doc.stderr).toContain("01JGGGGGGGGGGGGGGGGGGGGGGG.md");
});
