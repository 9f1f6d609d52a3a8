/** The pure parts of sync: conflict rules, the allow-list .gitignore, remote branch choice. */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEntry, serializeEntry } from "../../src/store/entry";
import { GITIGNORE, isSyncedPath } from "../../src/sync/layout";
import { CONFLICT_TAG, mergeEntry, mergeRules } from "../../src/sync/merge";
import { commitMessage } from "../../src/sync/message";
import { remoteDefaultBranch } from "../../src/sync/sync";
import { mustGit } from "../kit";

describe("mergeRules", () => {
  test("keeps both sides' bullets once, remote order first", () => {
    const m = mergeRules("- a\n", "- a\n- from remote\n- both\n", "- a\n- both\n- from local\n");
    expect(m.text).toBe("- a\n- from remote\n- both\n- from local\n");
    expect(m.fromLocal).toBe(1);
  });
  test("deduplicates case- and spacing-insensitively", () => {
    expect(mergeRules(undefined, "- Use pnpm\n", "*   use  PNPM \n- Be brief\n").text).toBe("- Use pnpm\n- Be brief\n");
  });
  test("a bullet one side deleted stays deleted", () => {
    expect(mergeRules("- keep\n- drop\n", "- keep\n- new remote\n", "- keep\n- drop\n- new local\n").text).toBe(
      "- keep\n- new remote\n- new local\n",
    );
    expect(mergeRules("- keep\n- drop\n", "- keep\n- drop\n- r\n", "- keep\n- l\n").text).toBe("- keep\n- r\n- l\n");
  });
  test("new headings from this machine come along with their bullets", () => {
    const m = mergeRules(undefined, "# Rules\n- a\n", "# Rules\n\n## Testing\n- run bun test\n");
    expect(m.text).toBe("# Rules\n- a\n## Testing\n- run bun test\n");
  });
});

const entry = (body: string, updated: string, title = "Deploy") =>
  serializeEntry({
    id: "01JD3K0000000000000000000A",
    kind: "fact",
    title,
    tags: ["ops"],
    applies_to: [],
    actor: "user",
    source: "cli",
    created: "2030-01-01T00:00:00Z",
    updated,
    body,
  });

describe("mergeEntry", () => {
  test("the newer updated wins and is marked; the other becomes a tagged copy superseded by it", () => {
    const remote = entry("remote text", "2030-02-01T00:00:00Z");
    const local = entry("local text", "2030-03-01T00:00:00Z");
    const m = mergeEntry("01JD3K0000000000000000000A", remote, local, () => "01JD3K0000000000000000000Z");
    expect(m.winner).toBe("local");
    // The kept version is the local one, marked (same body and updated: the mark is not an edit).
    const kept = parseEntry(m.text);
    expect(kept.body).toBe("local text");
    expect(kept.tags).toEqual(["ops", CONFLICT_TAG]);
    expect(kept.updated).toBe("2030-03-01T00:00:00Z");
    expect(kept.status).toBeUndefined();
    const sib = parseEntry(m.sibling!.text);
    expect(sib.id).toBe("01JD3K0000000000000000000Z");
    expect(sib.body).toBe("remote text");
    expect(sib.tags).toEqual(["ops", CONFLICT_TAG]);
    expect(sib.updated).toBe("2030-02-01T00:00:00Z");
    // The copy is superseded by the kept entry: never injected beside it.
    expect(sib.status).toBe("superseded");
    expect(sib.superseded_by).toBe("01JD3K0000000000000000000A");
  });
  test("a tie goes to the remote; the same text on both sides makes no sibling", () => {
    const t = "2030-02-01T00:00:00Z";
    expect(mergeEntry("X", entry("one", t), entry("two", t)).winner).toBe("remote");
    const same = mergeEntry(
      "X",
      entry("Same  text.", "2030-02-01T00:00:00Z"),
      entry("same text", "2030-02-02T00:00:00Z"),
    );
    expect(same.sibling).toBeUndefined();
    expect(same.winner).toBe("local");
  });
  test("an unparseable version is kept byte for byte as the sibling", () => {
    const broken = "---\nid: [unclosed\n---\nhand-mangled\n";
    const m = mergeEntry("X", entry("good", "2030-01-01T00:00:00Z"), broken, () => "S");
    expect(m.winner).toBe("remote");
    expect(m.sibling).toEqual({ id: "S", text: broken });
  });
});

describe("layout", () => {
  test("the .gitignore and isSyncedPath agree on what git may track", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "coffer-gitignore-")));
    const env = { GIT_CONFIG_GLOBAL: join(dir, "none"), GIT_CONFIG_NOSYSTEM: "1" };
    writeFileSync(join(dir, "none"), "");
    const repo = join(dir, "memory");
    try {
      mustGit(dir, env, "init", "-q", repo);
      const pid = "44AR8RZR7FNKBZV09SBEP4M2AD";
      const files = [
        ".gitignore",
        ".DS_Store",
        "README.md",
        "state/index.db",
        "inbox/a.json",
        "queue/q.json",
        "global/rules.md",
        "global/notes.md",
        "global/entries/01JD3K0000000000000000000A.md",
        "global/entries/.01JD.md.1.a.tmp",
        "global/entries/x.md.swp",
        "global/entries/sub/deep.md",
        `projects/${pid}/project.md`,
        `projects/${pid}/rules.md`,
        `projects/${pid}/entries/01JD3K0000000000000000000B.md`,
        `projects/${pid}/entries/.DS_Store`,
        `projects/${pid}/handoff/main.md`,
        `projects/${pid}/handoff/main.md~`,
        `projects/${pid}/state/index.db`,
        `projects/.hidden/rules.md`,
      ];
      for (const f of files) {
        mkdirSync(join(repo, f, ".."), { recursive: true });
        writeFileSync(join(repo, f), f === ".gitignore" ? GITIGNORE : "x\n");
      }
      mustGit(repo, env, "add", "-A");
      const tracked = mustGit(repo, env, "ls-files").split("\n").filter(Boolean).sort();
      expect(tracked).toEqual(files.filter(isSyncedPath).sort());
      expect(tracked).toEqual(
        [
          ".gitignore",
          "global/entries/01JD3K0000000000000000000A.md",
          "global/rules.md",
          `projects/${pid}/entries/01JD3K0000000000000000000B.md`,
          `projects/${pid}/handoff/main.md`,
          `projects/${pid}/project.md`,
          `projects/${pid}/rules.md`,
        ].sort(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the remote's default branch", () => {
    expect(remoteDefaultBranch("ref: refs/heads/trunk\tHEAD\nabc\tHEAD\nabc\trefs/heads/trunk\n")).toBe("trunk");
    expect(remoteDefaultBranch("abc\trefs/heads/dev\nabc\trefs/heads/master\n")).toBe("master");
    expect(remoteDefaultBranch("")).toBeUndefined();
  });
});

describe("commit messages", () => {
  test("a subject with totals and one line of counts per scope", () => {
    const pid = "44AR8RZR7FNKBZV09SBEP4M2AD";
    const msg = commitMessage(
      [
        { status: "A", path: "global/entries/A.md" },
        { status: "A", path: `projects/${pid}/entries/B.md` },
        { status: "M", path: `projects/${pid}/entries/C.md` },
        { status: "D", path: `projects/${pid}/entries/D.md` },
        { status: "M", path: `projects/${pid}/rules.md` },
        { status: "D", path: "state/index.db" },
      ],
      "laptop",
    );
    expect(msg.split("\n")[0]).toBe("Coffer sync from laptop: 4 entries changed in 2 scopes");
    expect(msg).toContain("global: 1 entry added\n");
    expect(msg).toContain(`${pid}: 1 entry added, 1 edited, 1 removed, rules changed\n`);
    expect(msg).toContain("no longer tracked (not memory content, kept on disk): state/index.db");
  });
});
