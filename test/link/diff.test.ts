/** The unified diff --dry-run prints: same format as `diff -u`, so `patch` could apply it. */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unifiedDiff } from "../../src/link/diff";

const lines = (n: number, f = (i: number) => `line ${i}`) =>
  `${Array.from({ length: n }, (_, i) => f(i + 1)).join("\n")}\n`;

test("equal texts: no diff", () => {
  expect(unifiedDiff("a\n", "a\n", "f")).toBe("");
});

test("an insertion in the middle with 3 lines of context", () => {
  const a = lines(10);
  const b = a.replace("line 5\n", "line 5\nNEW\n");
  expect(unifiedDiff(a, b, "f")).toBe(
    "--- f\n+++ f\n@@ -3,6 +3,7 @@\n line 3\n line 4\n line 5\n+NEW\n line 6\n line 7\n line 8\n",
  );
});

test("new file and deleted file", () => {
  expect(unifiedDiff(null, "a\nb\n", "f")).toBe("--- /dev/null\n+++ f\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  expect(unifiedDiff("a\n", null, "f")).toBe("--- f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n");
});

test("distant changes make separate hunks; a missing final newline is marked", () => {
  const a = lines(30);
  const b = `${a.replace("line 2\n", "line 2 changed\n").replace("line 28\n", "")}tail`;
  const d = unifiedDiff(a, b, "f");
  expect(d.match(/^@@/gm)!.length).toBe(2);
  expect(d).toContain("\\ No newline at end of file");
});

test("patch(1) applies it", () => {
  const dir = mkdtempSync(join(tmpdir(), "coffer-diff-"));
  const a = lines(40, (i) => (i % 7 === 0 ? `  "k${i}": "ü${i}",` : `x${i}`));
  const b = a.replace("x3\n", "x3\ninserted\n").replace("x20\n", "").replace("x39\n", "x39 changed\n");
  writeFileSync(join(dir, "f"), a);
  writeFileSync(join(dir, "p.diff"), unifiedDiff(a, b, "f"));
  try {
    const p = Bun.spawnSync(["patch", "-s", "f", "p.diff"], { cwd: dir });
    if (p.exitCode === null || (p.exitCode !== 0 && p.stderr.toString().includes("not found"))) return; // no patch(1) here
    expect(p.exitCode).toBe(0);
    expect(readFileSync(join(dir, "f"), "utf8")).toBe(b);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
