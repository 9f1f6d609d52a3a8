/**
 * The hook watchdog ends a process whose main thread is stuck in synchronous work, with status 0
 * and the empty answer on stdout: the native thread of this OS's library, or (where that cannot
 * load) the worker, through the C library this OS has (no glibc-only name).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "coffer-watchdog-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const deadline = resolve(import.meta.dir, "..", "..", "src", "hooks", "deadline.ts");
const libraries = resolve(import.meta.dir, "..", "..", "src", "hooks", "watchdog", "libraries.ts");
const worker = (exit: unknown, native: unknown = []) =>
  `{ native: ${JSON.stringify(native)}, exit: ${JSON.stringify(exit)} }`;

/** A script that arms the deadline 150 ms out (with this watchdog), then blocks its main thread for 20 s. */
function stuck(watchdog?: string): { code: number | null; stdout: string; log: string } {
  const log = join(dir, `hook-${Math.random().toString(36).slice(2)}.log`);
  const script = join(dir, `stuck-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(
    script,
    `import { armDeadline } from ${JSON.stringify(deadline)};
import { watchdogLibraries } from ${JSON.stringify(libraries)};
armDeadline(Date.now() + 150, "{}", ${JSON.stringify(log)}${watchdog ? `, ${watchdog}` : ""});
const t = Date.now();
while (Date.now() - t < 20_000) {}
console.log("main thread finished: the watchdog did not end the process");
process.exit(3);
`,
  );
  const p = Bun.spawnSync(["bun", script], { stdout: "pipe", stderr: "pipe", timeout: 30_000 });
  return { code: p.exitCode, stdout: p.stdout.toString(), log: readFileSync(log, "utf8") };
}

test("a stuck main thread: the empty answer, exit 0, one log line (this OS's default strategy)", () => {
  const r = stuck();
  expect(r.stdout).toBe("{}\n");
  expect(r.code).toBe(0);
  expect(r.log).toContain("deadline reached");
});

test("the native thread answers: the worker, with no way to exit but SIGKILL, is never started", () => {
  const r = stuck(
    `{ native: watchdogLibraries(), exit: ${JSON.stringify({ kind: "_exit", libraries: ["libcoffer-does-not-exist.so.9"] })} }`,
  );
  expect(r.stdout).toBe("{}\n");
  expect(r.code).toBe(0);
  expect(r.log).toContain("deadline reached");
});

test("a native library that cannot load: the worker answers instead", () => {
  const r = stuck(worker({ kind: "_exit", libraries: ["libc.so.6", "libc.so"] }, [join(dir, "missing-watchdog.so")]));
  expect(r.stdout).toBe("{}\n");
  expect(r.code).toBe(0);
  expect(r.log).toContain("deadline reached");
});

test("worker: a missing first library (as libc.so.6 would be elsewhere): the next candidate still exits 0", () => {
  const r = stuck(worker({ kind: "_exit", libraries: ["libcoffer-does-not-exist.so.9", "libc.so.6"] }));
  expect(r.stdout).toBe("{}\n");
  expect(r.code).toBe(0);
});

test("worker: no usable library at all: SIGKILL is the last resort (the answer is still out)", () => {
  const r = stuck(worker({ kind: "_exit", libraries: ["libcoffer-does-not-exist.so.9"] }));
  expect(r.stdout).toBe("{}\n");
  expect(r.code).toBeNull(); // killed by a signal
});
