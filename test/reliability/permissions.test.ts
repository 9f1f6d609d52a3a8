/**
 * Permissions (issue 12): COFFER_HOME, memory/ and state/ used to be 0755 and entries, index.db,
 * audit.jsonl and hook.log 0644. Everything Coffer creates is now private from the start
 * (folders 700, files 600, whatever the caller's umask), and `coffer doctor --fix` tightens a
 * store made before.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { lstatSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { claudePrompt, hook, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
beforeAll(() => {
  sb = sandbox("coffer-rel-perm-");
});
afterAll(() => sb.cleanup());

/** Every path under `root` with its mode, e.g. ["state/index.db", "600"]. */
function modes(root: string): [string, string, boolean][] {
  const out: [string, string, boolean][] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    out.push([relative(root, p) || ".", (st.mode & 0o777).toString(8), st.isDirectory()]);
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(root);
  return out;
}

test("a store is created private: folders 700, files 600 (entries, index.db, audit.jsonl, hook.log)", () => {
  const repo = sb.repo("perm");
  // Whatever umask starts coffer (an agent, a shell with 022) does not matter.
  process.umask(0o022);
  const env = {};
  expect(sb.run(["remember", "a private fact", "--scope", "global"], { env }).code).toBe(0);
  expect(sb.run(["remember", "a project fact", "--scope", "project"], { cwd: repo, env }).code).toBe(0);
  expect(sb.run(["rules", "add", "be kind"], { env }).code).toBe(0);
  expect(sb.run(["link", "claude", "--no-mcp"], { env }).code).toBe(0);
  // A hook that logs (bad payload) and one that reads the index.
  hook(sb, "claude", "prompt", "not json");
  hook(sb, "claude", "prompt", claudePrompt("s-1", repo, "what private fact?"));
  const all = modes(sb.cofferHome);
  const names = all.map(([p]) => p);
  for (const must of ["memory", "state", "state/index.db", "state/audit.jsonl", "state/hook.log"])
    expect(names).toContain(must);
  expect(names.some((n) => /^memory\/global\/entries\/.+\.md$/.test(n))).toBe(true);
  const loose = all.filter(([, mode, dir]) => mode !== (dir ? "700" : "600"));
  expect(loose).toEqual([]);
});

test("doctor reports a store others can read; doctor --fix makes it private", () => {
  expect(Bun.spawnSync(["chmod", "-R", "go+rX", sb.cofferHome]).exitCode).toBe(0);
  expect(modes(sb.cofferHome).find(([p]) => p === "state/index.db")?.[1]).toBe("644");
  const d = sb.run(["doctor"]);
  expect(d.code).toBe(1);
  expect(d.stdout).toMatch(/can be read by other users/);
  expect(d.stdout).toContain("fix: coffer doctor --fix");
  const f = sb.run(["doctor", "--fix"]);
  expect(f.stderr).toMatch(/Made \d+ files or folders in .* private/);
  expect(f.stdout).not.toMatch(/can be read by other users/);
  const loose = modes(sb.cofferHome).filter(([, mode, dir]) => mode !== (dir ? "700" : "600"));
  expect(loose).toEqual([]);
});

test("configs link creates outside COFFER_HOME keep the user's usual modes (not Coffer's private ones)", () => {
  process.umask(0o022);
  const repo = sb.repo("proj-modes");
  expect(sb.run(["link", "gemini", "--no-mcp"]).code).toBe(0);
  expect(sb.run(["link", "claude", "--project", "--no-mcp"], { cwd: repo }).code).toBe(0);
  const mode = (p: string) => (lstatSync(p).mode & 0o777).toString(8);
  expect(mode(join(sb.home, ".gemini"))).toBe("755");
  expect(mode(join(sb.home, ".gemini", "settings.json"))).toBe("644");
  expect(mode(join(repo, ".claude"))).toBe("755");
  expect(mode(join(repo, ".claude", "settings.json"))).toBe("644");
  // Coffer's own state from the same runs stays private.
  expect(mode(join(sb.cofferHome, "state", "link.json"))).toBe("600");
});
