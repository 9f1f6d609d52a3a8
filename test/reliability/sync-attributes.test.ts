/**
 * Files git interprets, pushed to the sync remote (issue 25, high): a `.gitattributes` with
 * `*.md working-tree-encoding=UTF-16LE` made every later entry reach the remote as mojibake and
 * every entry from the remote land as UTF-16, so recall silently missed them. Sync removes
 * `.gitattributes`, `.gitmodules`, `.mailmap` and nested `.gitignore` files on arrival (from disk
 * too), and runs git with attributes, hooks, filters and fsmonitor neutralised, so nothing the
 * remote or a user's git configuration adds changes what sync writes or runs.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mustGit, type World, world } from "../kit";

let w: World;
let attacker: string;
let marker: string;

const INTERPRETED = [
  ".gitattributes",
  "global/.gitattributes",
  "global/entries/.gitattributes",
  ".gitmodules",
  ".mailmap",
  "global/entries/.gitignore",
];

function remoteEntryId(text: string): string {
  return JSON.parse(text).id as string;
}

beforeAll(() => {
  w = world();
  marker = join(w.root, "ran");
  mkdirSync(marker);
  // B's own git configuration has a filter, an fsmonitor and global hooks (a user's real setup):
  // none of them may run inside memory/.
  const hooks = join(w.root, "user-hooks");
  mkdirSync(hooks);
  for (const h of ["pre-commit", "post-checkout", "post-rewrite", "pre-push", "post-merge", "reference-transaction"]) {
    // The bare remote on disk runs its own (server-side) hooks in memory.git: not memory/'s.
    writeFileSync(join(hooks, h), `#!/bin/sh\ncase "$PWD" in *.git) exit 0;; esac\ntouch '${marker}/hook-${h}'\n`);
    chmodSync(join(hooks, h), 0o755);
  }
  const filter = join(w.root, "filter.sh");
  writeFileSync(filter, `#!/bin/sh\ntouch '${marker}/'"$1"\ncat\n`);
  chmodSync(filter, 0o755);
  const fsmonitor = join(w.root, "fsmonitor.sh");
  writeFileSync(fsmonitor, `#!/bin/sh\ntouch '${marker}/fsmonitor'\nexit 1\n`);
  chmodSync(fsmonitor, 0o755);
  writeFileSync(
    w.b.env.GIT_CONFIG_GLOBAL!,
    [
      '[filter "mark"]',
      `\tclean = ${filter} clean`,
      `\tsmudge = ${filter} smudge`,
      "\trequired = true",
      "[core]",
      `\thooksPath = ${hooks}`,
      `\tfsmonitor = ${fsmonitor}`,
      "",
    ].join("\n"),
  );
  w.a.ok(["remember", "a harmless global entry from before", "--scope", "global"]);
  w.a.ok(["sync", "--init", w.remote]);
  w.b.ok(["sync", "--init", w.remote]);
  // The attacker pushes attribute files (root and nested), .gitmodules, .mailmap, a nested
  // .gitignore that hides every entry, and one ordinary entry in the same commit.
  attacker = mkdtempSync(join(w.root, "attacker-"));
  mustGit(w.root, w.gitEnv, "clone", "-q", w.remote, attacker);
  writeFileSync(join(attacker, ".gitattributes"), "*.md working-tree-encoding=UTF-16LE\n");
  writeFileSync(join(attacker, "global", ".gitattributes"), "*.md filter=mark\n");
  writeFileSync(join(attacker, "global", "entries", ".gitattributes"), "*.md ident eol=crlf merge=binary\n");
  writeFileSync(join(attacker, ".gitmodules"), '[submodule "x"]\n\tpath = x\n\turl = ../x\n');
  writeFileSync(join(attacker, ".mailmap"), "Evil <evil@example.test> <b@example.test>\n");
  writeFileSync(join(attacker, "global", "entries", ".gitignore"), "*.md\n");
  writeFileSync(join(attacker, ".gitignore"), "*\n");
  writeFileSync(
    join(attacker, "global", "entries", "01JREMOTEREMOTEREMOTEREMOT.md"),
    "---\nid: 01JREMOTEREMOTEREMOTEREMOT\nkind: note\ntitle: remote entry\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nThe quokkaremote entry arrived with the attribute files.\n",
  );
  // The attacker's own clone commits the entry as plain UTF-8 bytes.
  writeFileSync(join(attacker, ".git", "info", "attributes"), "* !working-tree-encoding !eol !ident\n");
  mustGit(attacker, w.gitEnv, "add", "-f", "-A");
  mustGit(attacker, w.gitEnv, "commit", "-q", "-m", "innocent update");
  mustGit(attacker, w.gitEnv, "push", "-q", "origin", "HEAD");
});
afterAll(() => w.cleanup());

test("sync removes git-interpreted files on arrival and the entry that came with them stays UTF-8", () => {
  const r = w.b.ok(["sync", "--json"]).json();
  for (const p of INTERPRETED) {
    expect(existsSync(join(w.b.memory, p))).toBe(false);
    expect(r.removed).toContain(p);
  }
  const file = readFileSync(join(w.b.memory, "global", "entries", "01JREMOTEREMOTEREMOTEREMOT.md"));
  expect(file.includes(0)).toBe(false);
  expect(file.toString("utf8")).toContain("quokkaremote entry arrived");
  expect(readFileSync(join(w.b.memory, ".gitignore"), "utf8")).toStartWith("# Written by coffer sync");
  const rec = w.b.ok(["recall", "quokkaremote", "--json"]).stdout;
  expect(rec).toContain("01JREMOTEREMOTEREMOTEREMOT");
});

test("entries written after the attack reach the remote and the other machine as UTF-8", () => {
  const id = remoteEntryId(
    w.b.ok(["remember", "The wombatafter entry was written after the attack", "--scope", "global", "--json"]).stdout,
  );
  w.b.ok(["sync"]);
  const blob = mustGit(w.remote, w.gitEnv, "show", `HEAD:global/entries/${id}.md`);
  expect(blob).toContain("The wombatafter entry was written after the attack");
  expect(blob).not.toContain("\0");
  w.a.ok(["sync"]);
  expect(w.a.ok(["recall", "wombatafter", "--json"]).stdout).toContain(id);
  expect(w.a.ok(["recall", "quokkaremote", "--json"]).stdout).toContain("01JREMOTEREMOTEREMOTEREMOT");
  // The remote no longer carries the interpreted files.
  const tree = mustGit(w.remote, w.gitEnv, "ls-tree", "-r", "--name-only", "HEAD");
  for (const p of INTERPRETED) expect(tree.split("\n")).not.toContain(p);
  expect(mustGit(w.remote, w.gitEnv, "show", "HEAD:.gitignore")).toStartWith("# Written by coffer sync");
});

test("no filter, hook or fsmonitor of the user's git configuration ran inside memory/", () => {
  const ran = new Bun.Glob("*").scanSync(marker);
  expect([...ran]).toEqual([]);
});

test("an attribute file already on disk (left by an older sync) is removed by the next sync", () => {
  writeFileSync(join(w.b.memory, ".gitattributes"), "*.md working-tree-encoding=UTF-16LE\n");
  writeFileSync(join(w.b.memory, "global", "entries", ".gitattributes"), "*.md working-tree-encoding=UTF-16LE\n");
  const id = remoteEntryId(
    w.b.ok(["remember", "The numbatlater entry after a leftover", "--scope", "global", "--json"]).stdout,
  );
  const r = w.b.ok(["sync", "--json"]).json();
  expect(r.removed).toContain(".gitattributes");
  expect(r.removed).toContain("global/entries/.gitattributes");
  expect(existsSync(join(w.b.memory, ".gitattributes"))).toBe(false);
  expect(mustGit(w.remote, w.gitEnv, "show", `HEAD:global/entries/${id}.md`)).toContain("numbatlater");
});
