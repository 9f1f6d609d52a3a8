/**
 * The team lane (issue 28): two clones of one repository, each with its own COFFER_HOME. Clone A
 * writes a team entry and a team rule into `.coffer/`, commits and pushes; clone B pulls and its
 * hooks and recall deliver them, labelled `team`; a branch without the files does not.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudePrompt, claudeStart, contextOf, hook, type Sandbox, sandbox, stdioClient } from "../kit";

let a: Sandbox;
let b: Sandbox;
let cloneA: string;
let cloneB: string;
let teamId: string;

const gitEnv = (sb: Sandbox) => ({
  ...sb.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
});

function git(sb: Sandbox, cwd: string, ...args: string[]): string {
  const p = Bun.spawnSync(["git", ...args], { cwd, env: gitEnv(sb) });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

const RULE = "Database migrations go through make migrate, never by hand";
const ENTRY = "The wombat importer retries three times, then parks the batch in the dead-letter bucket";

beforeAll(() => {
  a = sandbox("coffer-team-a-");
  b = sandbox("coffer-team-b-");
  const bare = join(a.root, "app.git");
  mkdirSync(bare);
  git(a, bare, "init", "-q", "--bare", "-b", "main");
  cloneA = join(a.root, "work", "app");
  cloneB = join(b.root, "work", "app");
  mkdirSync(join(a.root, "work"));
  mkdirSync(join(b.root, "work"));
  git(a, join(a.root, "work"), "clone", "-q", bare, "app");
  git(a, cloneA, "commit", "-q", "--allow-empty", "-m", "init");
  git(a, cloneA, "push", "-q", "origin", "main");
  git(b, join(b.root, "work"), "clone", "-q", bare, "app");

  // Clone A writes into the team lane, commits and pushes like code.
  const r = a.run(["remember", ENTRY, "--scope", "team", "--kind", "gotcha", "--tags", "wombat,importer", "--json"], {
    cwd: cloneA,
  });
  expect(r.code).toBe(0);
  teamId = r.json().id;
  expect(r.json().scope).toBe("team");
  expect(a.run(["rules", "add", RULE, "--scope", "team"], { cwd: cloneA }).code).toBe(0);
  git(a, cloneA, "add", ".coffer");
  git(a, cloneA, "commit", "-q", "-m", "team memory");
  git(a, cloneA, "push", "-q", "origin", "main");
  git(b, cloneB, "pull", "-q", "origin", "main");
});
afterAll(() => {
  a.cleanup();
  b.cleanup();
});

describe("a team lane travels with the repository", () => {
  test("A's write is a plain repository file without personal fields, which Coffer never commits", () => {
    const file = join(cloneA, ".coffer", "entries", `${teamId}.md`);
    const text = readFileSync(file, "utf8");
    expect(text).toContain(ENTRY);
    expect(text).not.toContain("origin_session");
    expect(text).not.toContain(a.home);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(readFileSync(join(cloneA, ".coffer", "rules.md"), "utf8")).toBe(`- ${RULE}\n`);
    // nothing in A's own store: the team lane is the repository's folder, not a copy in COFFER_HOME
    expect(existsSync(join(a.cofferHome, "memory", "projects"))).toBe(false);
  });

  test("B's session start delivers the team rule under a team heading, between project and global", () => {
    b.run(["rules", "add", "Personal: keep answers short", "--scope", "global"], { cwd: cloneB });
    const ctx = contextOf(hook(b, "claude", "session-start", claudeStart("team-s1", cloneB)));
    expect(ctx).toContain(`## Team (app: the repository's .coffer/rules.md)\n- ${RULE}`);
    expect(ctx.indexOf("## Team (")).toBeLessThan(ctx.indexOf("## Global"));
    expect(ctx).toContain("## Team memory");
    expect(ctx).toContain(teamId.slice(-8));
  });

  test("B's doctor shows which repositories add team rules", () => {
    const text = b.run(["doctor"], { cwd: cloneB }).stdout;
    expect(text).toContain(`team rules: app adds 1 rule to its sessions (${join(cloneB, ".coffer", "rules.md")}`);
    const json = b.run(["doctor", "--json"], { cwd: b.home }).json();
    expect(json.team_rules).toEqual([{ repository: "app", file: join(cloneB, ".coffer", "rules.md"), rules: 1 }]);
  });

  test("B's doctor counts the team lane apart from memory/: no stale index, before or after reindex (issue 37)", () => {
    for (const step of ["before", "reindex"]) {
      if (step === "reindex") expect(b.run(["reindex"], { cwd: cloneB }).code).toBe(0);
      const r = b.run(["doctor", "--json"], { cwd: cloneB });
      const json = JSON.parse(r.stdout);
      expect(json.store.index).toMatchObject({ state: "ok", entries: 0, team_entries: 1 });
      expect(json.store.notes.join("\n")).not.toContain("index.db lists");
      expect(b.run(["doctor"], { cwd: cloneB }).stdout).toContain("(0 entries, and 1 from team lanes)");
    }
  });

  test("B's prompt hook routes the team entry, marked as the team's", () => {
    const ctx = contextOf(
      hook(b, "claude", "prompt", claudePrompt("team-s2", cloneB, "why does the wombat importer park batches?")),
    );
    expect(ctx).toContain(`## [${teamId.slice(-8)}]`);
    expect(ctx).toContain("(team)");
    expect(ctx).toContain("dead-letter bucket");
  });

  test("B's recall labels it team (text and JSON)", () => {
    const r = b.run(["recall", "wombat importer", "--json"], { cwd: cloneB });
    expect(r.code).toBe(0);
    const hit = r.json().hits.find((h: { id: string }) => h.id === teamId);
    expect(hit.scope).toBe("team");
    const text = b.run(["recall", "wombat importer"], { cwd: cloneB }).stdout;
    expect(text).toMatch(new RegExp(`${teamId.slice(-8)}\\s+team\\s+gotcha`));
    expect(b.run(["list", "--scope", "team", "--json"], { cwd: cloneB }).json().entries[0].scope).toBe("team");
    // status and stats say where it came from too
    expect(b.run(["status"], { cwd: cloneB }).stdout).toMatch(/team app \(\.coffer\/\): 1 entry, 1 rule/);
    expect(b.run(["stats"], { cwd: cloneB }).stdout).toMatch(new RegExp(`${teamId.slice(-8)}\\s+.*\\(team\\)`));
  });

  test("a branch without the files does not deliver them; switching back does", () => {
    git(b, cloneB, "checkout", "-q", "-b", "old", "HEAD~1");
    const start = contextOf(hook(b, "claude", "session-start", claudeStart("team-s3", cloneB)));
    expect(start).not.toContain(RULE);
    expect(start).not.toContain("## Team");
    const p = contextOf(
      hook(b, "claude", "prompt", claudePrompt("team-s3", cloneB, "why does the wombat importer park batches?")),
    );
    expect(p).not.toContain("dead-letter");
    expect(b.run(["recall", "wombat importer", "--json"], { cwd: cloneB }).json().hits).toEqual([]);
    git(b, cloneB, "checkout", "-q", "main");
    const again = contextOf(hook(b, "claude", "session-start", claudeStart("team-s4", cloneB)));
    expect(again).toContain(RULE);
  });

  test("a checkout that changes team files is seen by the next hook (same names, new content)", () => {
    git(a, cloneA, "checkout", "-q", "-b", "rewrite");
    const file = join(cloneA, ".coffer", "entries", `${teamId}.md`);
    writeFileSync(file, readFileSync(file, "utf8").replace("three times", "five times, with a jittered backoff,"));
    git(a, cloneA, "commit", "-q", "-am", "five retries");
    git(a, cloneA, "checkout", "-q", "main");
    const prompt = "why does the wombat importer park batches?";
    expect(contextOf(hook(a, "claude", "prompt", claudePrompt("team-a1", cloneA, prompt)))).toContain("three times");
    git(a, cloneA, "checkout", "-q", "rewrite");
    expect(contextOf(hook(a, "claude", "prompt", claudePrompt("team-a2", cloneA, prompt)))).toContain("five times");
  });

  test("team.read = off turns the lane off", () => {
    b.run(["config", "set", "team.read", "off"]);
    try {
      const ctx = contextOf(hook(b, "claude", "session-start", claudeStart("team-s5", cloneB)));
      expect(ctx).not.toContain(RULE);
      expect(b.run(["recall", "wombat importer", "--json"], { cwd: cloneB }).json().hits).toEqual([]);
      const r = b.run(["remember", "x", "--scope", "team"], { cwd: cloneB });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("team.read");
    } finally {
      b.run(["config", "set", "team.read", "on"]);
    }
  });
});

describe("a new teammate gets the team lane from their first session (issue 37)", () => {
  test("no Coffer home yet: session start and prompts deliver the team lane", () => {
    const c = sandbox("coffer-team-c-");
    try {
      const cloneC = join(c.root, "work", "app");
      mkdirSync(join(c.root, "work"));
      git(c, join(c.root, "work"), "clone", "-q", join(a.root, "app.git"), "app");
      expect(existsSync(c.cofferHome)).toBe(false);
      const ctx = contextOf(hook(c, "claude", "session-start", claudeStart("new-s1", cloneC)));
      expect(ctx).toContain(RULE);
      expect(ctx).toContain(teamId.slice(-8));
      const p = contextOf(
        hook(c, "claude", "prompt", claudePrompt("new-s1", cloneC, "why does the wombat importer park batches?")),
      );
      expect(p).toContain("dead-letter bucket");
      expect(p).toContain("(team)");
    } finally {
      c.cleanup();
    }
  });
});

describe("writing the team lane is explicit, and safe to commit", () => {
  test("promote moves a personal entry into .coffer/entries/ (same id, nothing personal); the copy goes to the trash", () => {
    const r = b.run(["remember", `Deploys from ${cloneB}/dist go through the blue/green gate`, "--json"], {
      cwd: cloneB,
    });
    const id = r.json().id as string;
    const p = b.run(["promote", id.slice(-8), "--json"], { cwd: cloneB });
    expect(p.code).toBe(0);
    expect(p.json()).toMatchObject({ id, status: "promoted", from: "project" });
    const text = readFileSync(join(cloneB, ".coffer", "entries", `${id}.md`), "utf8");
    expect(text).toContain("Deploys from dist go through the blue/green gate");
    expect(text).not.toContain(b.root);
    expect(b.run(["show", id, "--json"], { cwd: cloneB }).json().scope).toBe("team");
    expect(b.run(["trash", "--json"], { cwd: cloneB }).stdout).toContain(id);
    // never staged: git sees an untracked file
    expect(git(b, cloneB, "status", "--porcelain", "--", ".coffer")).toContain(`?? .coffer/entries/${id}.md`);
    expect(b.run(["promote", id], { cwd: cloneB }).code).toBe(1); // already the team's
  });

  test("restoring promote's personal copy is refused: the entry lives in the team lane (issue 37)", () => {
    const id = b
      .run(["remember", "Canary deploys hold for ten minutes before the full rollout", "--json"], {
        cwd: cloneB,
      })
      .json().id as string;
    expect(b.run(["promote", id], { cwd: cloneB }).code).toBe(0);
    const listed = b
      .run(["trash", "--json"], { cwd: cloneB })
      .json()
      .items.find((t: { id: string }) => t.id === id);
    expect(listed.in_team).toBe(cloneB);
    expect(b.run(["trash"], { cwd: cloneB }).stdout).toContain("in the team lane now");
    const r = b.run(["restore", id.slice(-8)], { cwd: cloneB });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("now lives in the team lane");
    expect(r.stderr).not.toContain("give more characters");
    // nothing came back: one entry with this id, the team's
    expect(b.run(["show", id.slice(-8), "--json"], { cwd: cloneB }).json().scope).toBe("team");
    expect(
      b
        .run(["list", "--json"], { cwd: cloneB })
        .json()
        .entries.filter((e: { id: string }) => e.id === id),
    ).toHaveLength(1);
  });

  test("every write is scrubbed, and --allow-secret does not reach the team lane", () => {
    const r = b.run(
      ["remember", "The staging key is STRIPE_KEY=sk_live_51HqLyjWDarjtT1zdp7dcXYZ", "--scope", "team", "--json"],
      {
        cwd: cloneB,
      },
    );
    expect(r.json().scrubbed).toContain("secret");
    expect(readFileSync(join(cloneB, ".coffer", "entries", `${r.json().id}.md`), "utf8")).not.toContain("sk_live");
    const allow = b.run(["remember", "x sk_live_51HqLyjWDarjtT1zdp7dcXYZ", "--scope", "team", "--allow-secret"], {
      cwd: cloneB,
    });
    expect(allow.code).toBe(1);
    expect(allow.stderr).toContain("team lane");
  });

  test("scan --staged refuses a staged secret; link --git-hook makes git refuse the commit", () => {
    writeFileSync(join(cloneB, ".coffer", "rules.md"), "- Use the token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n");
    git(b, cloneB, "add", ".coffer/rules.md");
    const scan = b.run(["scan", "--staged", "--json"], { cwd: cloneB });
    expect(scan.code).toBe(1);
    expect(scan.json().findings[0]).toMatchObject({ path: ".coffer/rules.md", found: [{ family: "github" }] });
    expect(b.run(["link", "--git-hook"], { cwd: cloneB }).code).toBe(0);
    const commit = Bun.spawnSync(["git", "commit", "-q", "-m", "leak"], {
      cwd: cloneB,
      env: { ...gitEnv(b), PATH: `${join(import.meta.dir, "..", "..", "dist")}:${b.env.PATH}` },
    });
    expect(commit.exitCode).not.toBe(0);
    expect(commit.stderr.toString()).toContain("commit refused");
    // the secret out again: the commit goes through
    git(b, cloneB, "checkout", "HEAD", "--", ".coffer/rules.md");
    expect(b.run(["scan", "--staged"], { cwd: cloneB }).code).toBe(0);
    expect(b.run(["unlink", "--git-hook"], { cwd: cloneB }).code).toBe(0);
  });
});

describe("the MCP tools take scope team", () => {
  test("remember into the team lane, recall and read it labelled team", async () => {
    const mcp = await stdioClient(b, cloneB, "claude-code");
    try {
      const r = await mcp.ok("remember", {
        text: "The capybara cache is flushed by the nightly job, never by hand",
        scope: "team",
      });
      expect(r.scope).toBe("team");
      expect(readFileSync(join(cloneB, ".coffer", "entries", `${r.id}.md`), "utf8")).toContain(
        "actor: agent:claude-code",
      );
      const hits = (await mcp.ok("recall", { query: "capybara cache" })).hits;
      expect(hits[0]).toMatchObject({ id: r.id, scope: "team" });
      expect((await mcp.ok("read", { id: r.id.slice(-8), scope: "team" })).scope).toBe("team");
      expect((await mcp.ok("list", { scope: "team" })).entries.map((e: { id: string }) => e.id)).toContain(r.id);
    } finally {
      await mcp.close();
    }
  });
});

describe("team files are data from other people's commits", () => {
  test("a symbolic link in .coffer/entries is not followed, nor .coffer itself as a link", () => {
    const outside = join(b.root, "outside");
    mkdirSync(outside, { recursive: true });
    const secretEntry = "---\nid: 01JOUTSIDE0000000000000000\nkind: note\ntitle: outside\n---\nquetzal outside text\n";
    writeFileSync(join(outside, "01JOUTSIDE0000000000000000.md"), secretEntry);
    symlinkSync(
      join(outside, "01JOUTSIDE0000000000000000.md"),
      join(cloneB, ".coffer", "entries", "01JOUTSIDE0000000000000000.md"),
    );
    const r = b.run(["recall", "quetzal", "--json"], { cwd: cloneB });
    expect(r.json().hits).toEqual([]);
    expect(r.stderr).toContain("symbolic link");

    // A repository whose .coffer is a link to a folder outside it.
    const repo = b.repo("linked");
    mkdirSync(join(outside, "entries"), { recursive: true });
    writeFileSync(join(outside, "entries", "01JOUTSIDE0000000000000000.md"), secretEntry);
    writeFileSync(join(outside, "rules.md"), "- quetzal rule from outside\n");
    symlinkSync(outside, join(repo, ".coffer"));
    expect(b.run(["recall", "quetzal", "--json"], { cwd: repo }).json().hits).toEqual([]);
    const ctx = contextOf(hook(b, "claude", "session-start", claudeStart("team-link", repo)));
    expect(ctx).not.toContain("quetzal");
    expect(b.run(["remember", "into a link", "--scope", "team"], { cwd: repo }).code).toBe(1);
  });
});

describe("a repository's bad .coffer/ is named and skipped; the hook still answers", () => {
  test("a FIFO, a 50 MB file, invalid frontmatter, a duplicate id; rules.md a FIFO", () => {
    mkdirSync(b.cofferHome, { recursive: true }); // a store to answer from (a hook without one answers empty)
    const repo = b.repo("hostile");
    const entries = join(repo, ".coffer", "entries");
    mkdirSync(entries, { recursive: true });
    const entry = (id: string, body: string) => `---\nid: ${id}\nkind: note\ntitle: ${body}\n---\n${body}\n`;
    writeFileSync(
      join(entries, "01JGOOD0000000000000000000.md"),
      entry("01JGOOD0000000000000000000", "The ocelot importer parks batches after three retries"),
    );
    expect(Bun.spawnSync(["mkfifo", join(entries, "01JFIFO0000000000000000000.md")]).exitCode).toBe(0);
    expect(Bun.spawnSync(["mkfifo", join(repo, ".coffer", "rules.md")]).exitCode).toBe(0);
    writeFileSync(join(entries, "01JHUGE0000000000000000000.md"), Buffer.alloc(50 * 1024 * 1024, "ocelot "));
    writeFileSync(
      join(entries, "01JBADF0000000000000000000.md"),
      "---\nid: [unclosed\nkind: ocelot\n---\nocelot bad\n",
    );
    // two files claiming one id: one entry, never two rows for one id
    writeFileSync(join(entries, "01JDUPA0000000000000000000.md"), entry("01JDUPA0000000000000000000", "ocelot dup a"));
    writeFileSync(join(entries, "01JDUPB0000000000000000000.md"), entry("01JDUPA0000000000000000000", "ocelot dup b"));

    const t0 = Date.now();
    const start = hook(b, "claude", "session-start", claudeStart("team-bad", repo));
    expect(start.code).toBe(0);
    expect(() => JSON.parse(start.stdout)).not.toThrow();
    const p = hook(b, "claude", "prompt", claudePrompt("team-bad", repo, "why does the ocelot importer park batches?"));
    expect(p.code).toBe(0);
    expect(contextOf(p)).toContain("ocelot importer parks batches");
    const r = b.run(["recall", "ocelot", "--json"], { cwd: repo });
    expect(r.code).toBe(0);
    const ids = r.json().hits.map((h: { id: string }) => h.id) as string[];
    expect(ids).toContain("01JGOOD0000000000000000000");
    expect(ids).not.toContain("01JFIFO0000000000000000000");
    expect(ids).not.toContain("01JHUGE0000000000000000000");
    expect(ids).not.toContain("01JBADF0000000000000000000");
    expect(ids.filter((id) => id === "01JDUPA0000000000000000000").length).toBeLessThanOrEqual(1);
    // each refused file is named
    expect(r.stderr + b.run(["reindex"], { cwd: repo }).stderr).toContain("01JHUGE0000000000000000000");
    expect(Date.now() - t0).toBeLessThan(60_000); // no hang on the FIFOs
  }, 120_000);
});

describe("scale: a checkout that changes 2,000 team files", () => {
  test("is reflected by the next hook", () => {
    const c = sandbox("coffer-team-c-");
    try {
      mkdirSync(c.cofferHome, { recursive: true });
      const repo = c.repo("mono");
      const entries = join(repo, ".coffer", "entries");
      mkdirSync(entries, { recursive: true });
      const N = 2000;
      // a made-up word per service (letters only), so a prompt names one entry
      const name = (i: number) => `zor${[...String(i).padStart(4, "0")].map((d) => "abcdefghij"[Number(d)]).join("")}`;
      const write = (word: string) => {
        for (let i = 0; i < N; i++) {
          const id = `01JSCALE${String(i).padStart(18, "0")}`;
          writeFileSync(
            join(entries, `${id}.md`),
            `---\nid: ${id}\nkind: gotcha\ntitle: The ${name(i)} service and the ${word} gateway\n---\nThe ${name(i)} service talks to the ${word} gateway through port ${8000 + i}.\n`,
          );
        }
      };
      write("pelican");
      git(c, repo, "add", ".coffer");
      git(c, repo, "commit", "-q", "-m", "pelican");
      git(c, repo, "checkout", "-q", "-b", "heron");
      write("heron");
      git(c, repo, "commit", "-q", "-am", "heron");
      git(c, repo, "checkout", "-q", "main");
      c.run(["status"], { cwd: repo }); // the lane indexed on main
      const prompt = (s: string, word: string) =>
        contextOf(
          hook(
            c,
            "claude",
            "prompt",
            claudePrompt(s, repo, `how does the ${name(1234)} service reach the ${word} gateway?`),
          ),
        );
      expect(prompt("scale-1", "pelican")).toContain("pelican gateway through port 9234");
      git(c, repo, "checkout", "-q", "heron");
      const next = prompt("scale-2", "heron");
      expect(next).toContain("heron gateway through port 9234");
      expect(next).not.toContain("pelican");
      expect(c.run(["recall", "pelican", "--json"], { cwd: repo }).json().hits).toEqual([]);
    } finally {
      c.cleanup();
    }
  }, 180_000);
});
