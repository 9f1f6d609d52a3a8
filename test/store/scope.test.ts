import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { normalizeOrigin, projectIdFor } from "../../src/store/scope";
import { sandbox } from "../kit";

const sb = sandbox();
afterAll(() => sb.cleanup());

const projectOf = (cwd: string) => sb.run(["status", "--json"], { cwd }).json().project;

describe("origin normalization and project ids", () => {
  test("https, ssh and scp forms of one remote agree", () => {
    const forms = [
      "https://github.com/Acme/Widget.git",
      "git@github.com:acme/widget.git",
      "ssh://git@github.com/acme/widget",
      "ssh://git@github.com:22/acme/widget.git",
      "https://user:secret@github.com/acme/widget/",
    ];
    for (const f of forms) expect(normalizeOrigin(f)).toBe("github.com/acme/widget");
  });

  test("ids are 26 Crockford base32 characters of sha256(key)", () => {
    const id = projectIdFor("remote:github.com/acme/widget");
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(projectIdFor("remote:github.com/acme/widget")).toBe(id);
    expect(projectIdFor("remote:github.com/acme/other")).not.toBe(id);
  });
});

describe("scopes from .git files", () => {
  test("two clones of one repo (same origin, different paths) share a project id", () => {
    const a = sb.repo("clone-a", "https://github.com/acme/shared.git");
    const b = sb.repo("elsewhere/clone-b", "git@github.com:acme/shared.git");
    const pa = projectOf(a);
    const pb = projectOf(b);
    expect(pa.id).toBe(pb.id);
    expect(pa.id).toBe(projectIdFor("remote:github.com/acme/shared"));
    // An entry written in one clone is recalled in the other.
    sb.run(["remember", "Shared knowledge about the zebra module"], { cwd: a });
    expect(sb.run(["recall", "zebra", "--json"], { cwd: b }).json().hits).toHaveLength(1);
  });

  test("a repository without origin is keyed by its root path; subdirectories share it", () => {
    const r = sb.repo("no-origin");
    mkdirSync(join(r, "src/deep"), { recursive: true });
    expect(projectOf(r).id).toBe(projectIdFor(`path:${r}`));
    expect(projectOf(join(r, "src/deep")).id).toBe(projectOf(r).id);
  });

  test("a linked worktree shares its main repository's scope, with its own branch", () => {
    const main = sb.repo("wt-main", "https://github.com/acme/wt.git");
    const git = (...a: string[]) =>
      Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd: main, env: sb.env });
    git("commit", "-q", "--allow-empty", "-m", "init");
    const wt = join(sb.root, "work", "wt-linked");
    expect(git("worktree", "add", "-q", "-b", "feature/x", wt).exitCode).toBe(0);
    const pm = projectOf(main);
    const pw = projectOf(wt);
    expect(pw.id).toBe(pm.id);
    expect(pm.branch).toBe("main");
    expect(pw.branch).toBe("feature/x");
    // Same scope without origin too: the key is the main root, not the worktree path.
    const bare = sb.repo("wt-noorigin");
    Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "i"], {
      cwd: bare,
      env: sb.env,
    });
    const wt2 = join(sb.root, "work", "wt-noorigin-2");
    Bun.spawnSync(["git", "worktree", "add", "-q", wt2], { cwd: bare, env: sb.env });
    expect(projectOf(wt2).id).toBe(projectOf(bare).id);
  });

  test("a directory outside git resolves to global only", () => {
    const plain = join(sb.root, "plain");
    mkdirSync(plain, { recursive: true });
    expect(projectOf(plain)).toBeNull();
    const r = sb.run(["remember", "plain dir note", "--json"], { cwd: plain });
    expect(r.json().scope).toBe("global");
    const p = sb.run(["remember", "x", "--scope", "project"], { cwd: plain });
    expect(p.code).toBe(1);
    expect(p.stderr).toContain("not inside a git repository");
  });

  test("$HOME is never a project, even when it is a git repository (dotfiles)", () => {
    Bun.spawnSync(["git", "init", "-q"], { cwd: sb.home, env: sb.env });
    expect(projectOf(sb.home)).toBeNull();
    const sub = join(sb.home, "notes");
    mkdirSync(sub, { recursive: true });
    expect(projectOf(sub)).toBeNull();
  });

  test("a detached HEAD has no branch", () => {
    const r = sb.repo("detached", "https://github.com/acme/detached.git");
    Bun.write(join(r, ".git/HEAD"), "0123456789abcdef0123456789abcdef01234567\n");
    expect(projectOf(r).branch).toBeNull();
  });
});
