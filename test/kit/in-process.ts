import { afterAll } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A store for tests that import src/ directly instead of running the binary: a temporary
 * COFFER_HOME and HOME set in this process's environment for the whole file, and a repository
 * (a `.git` folder) at `work/shop`, all removed after the file's tests.
 */
export function inProcessHome(prefix: string): { root: string; cofferHome: string; repo: string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const cofferHome = join(root, "coffer");
  process.env.COFFER_HOME = cofferHome;
  process.env.HOME = join(root, "home");
  const repo = join(root, "work", "shop");
  mkdirSync(join(repo, ".git"), { recursive: true });
  return { root, cofferHome, repo };
}
