/** The web UI's frontend type-checks with the DOM library (its own tsconfig; the root one has no DOM). */
import { expect, test } from "bun:test";
import { join } from "node:path";

test("tsc --noEmit passes for src/web/app", () => {
  const root = join(import.meta.dir, "..", "..");
  const p = Bun.spawnSync(
    [join(root, "node_modules", ".bin", "tsc"), "--noEmit", "-p", join(root, "src", "web", "app", "tsconfig.json")],
    { cwd: root, stdout: "pipe", stderr: "pipe" },
  );
  expect(p.stdout.toString() + p.stderr.toString()).toBe("");
  expect(p.exitCode).toBe(0);
}, 60_000);
