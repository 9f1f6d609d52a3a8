/**
 * The screenshots in docs/screenshots/ come from scripts/screenshots.ts (issue 29): the script
 * still runs (every page, light and dark, at 1280 and 390 px, and the first-run page; it also fails
 * on sideways scroll, script errors and failed requests), and docs/ holds the same set of files.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../kit";

const ROOT = join(import.meta.dir, "..", "..");

test("scripts/screenshots.ts runs and writes every page, light and dark", async () => {
  const out = mkdtempSync(join(tmpdir(), "coffer-shots-"));
  try {
    const p = Bun.spawn(["bun", join(ROOT, "scripts", "screenshots.ts"), "--out", out], {
      cwd: ROOT,
      env: { ...process.env, COFFER_BIN: BIN },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stdout, stderr] = await Promise.all([
      p.exited,
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain(`screenshots in ${out}`);
    const made = readdirSync(out).sort();
    for (const page of ["entries", "projects", "rules", "sessions", "inbox", "stale", "trash", "stats", "health"])
      for (const theme of ["light", "dark"]) {
        expect(made).toContain(`${page}-${theme}.png`);
        expect(made).toContain(`${page}-390px-${theme}.png`);
      }
    expect(made).toContain("first-run-light.png");
    expect(readdirSync(join(ROOT, "docs", "screenshots")).sort()).toEqual(made);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 600_000);
