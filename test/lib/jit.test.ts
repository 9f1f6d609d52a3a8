/**
 * The JIT policy (lib/jit.ts): the binary starts with the JIT reluctant (scripts/targets.ts); a
 * server, a batch command or a process that writes many rows goes back to the normal policy.
 * The CLI runs from source with a preload that records every Bun.unsafe.setJITPolicy call.
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { COMPILE_FLAGS } from "../../scripts/targets";
import { writeEntries } from "../kit/memory";
import { sandbox } from "../kit/sandbox";

const sb = sandbox();
afterAll(() => sb.cleanup());
const cli = resolve(import.meta.dir, "..", "..", "src", "cli.ts");
const spy = join(sb.root, "spy.ts");
writeFileSync(
  spy,
  `const set = Bun.unsafe.setJITPolicy.bind(Bun.unsafe);
Bun.unsafe.setJITPolicy = (scale) => { process.stderr.write("setJITPolicy(" + scale + ")\\n"); set(scale); };
`,
);

/** `coffer <args>` from source; the JIT policy calls it made. */
function policyCalls(args: string[]): string[] {
  const r = Bun.spawnSync([process.execPath, "--preload", spy, cli, ...args], {
    cwd: sb.root,
    env: sb.env,
    stdout: "pipe",
    stderr: "pipe",
  });
  return r.stderr.toString().match(/setJITPolicy\([^)]*\)/g) ?? [];
}

test("the binary is built to start with the JIT reluctant", () => {
  expect(COMPILE_FLAGS.some((f) => /^--compile-jit-policy=\d+$/.test(f) && Number(f.split("=")[1]) > 1)).toBe(true);
});

test("a quick command keeps the startup policy; servers and batch commands go back to the normal one", () => {
  expect(policyCalls(["remember", "the staging database is reset every sunday"])).toEqual([]);
  expect(policyCalls(["list"])).toEqual([]);
  expect(policyCalls(["reindex"])).toEqual(["setJITPolicy(1)"]);
  expect(policyCalls(["export", "--format", "jsonl", "--out", join(sb.root, "all.jsonl")])).toEqual([
    "setJITPolicy(1)",
  ]);
});

test("a process that indexes many rows goes back to the normal policy, once", () => {
  writeEntries(
    sb,
    "global",
    Array.from({ length: 300 }, (_, i) => ({
      id: `01JIT${String(i).padStart(21, "0")}`,
      title: `note ${i} about the release train`,
      body: `the release train leaves on thursday, note ${i}`,
    })),
  );
  // `list` is quick, but it finds 300 new files to index first.
  expect(policyCalls(["list"])).toEqual(["setJITPolicy(1)"]);
  expect(policyCalls(["list"])).toEqual([]);
});
