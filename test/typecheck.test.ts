/** The whole tree type-checks under tsconfig's strict settings (src, scripts, test). */
import { expect, test } from "bun:test";
import { join } from "node:path";

test("tsc --noEmit passes", () => {
  const root = join(import.meta.dir, "..");
  const p = Bun.spawnSync([join(root, "node_modules", ".bin", "tsc"), "--noEmit", "-p", root], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = p.stdout.toString() + p.stderr.toString();
  expect(out).toBe("");
  expect(p.exitCode).toBe(0);
});
