/**
 * `coffer serve` with `[sync] auto = true`: a SIGTERM that arrives while the auto sync is pushing
 * waits for the push (the remote's pre-receive hook holds it until the test lets go), then exits 0
 * with the push landed. Before the periodic helper, serve exited at once, mid push.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git, type Served, startServe, until, type World, world } from "../kit";

let w: World | undefined;
let served: Served | undefined;
afterEach(async () => {
  if (served && served.proc.exitCode === null) {
    served.proc.kill("SIGKILL");
    await served.proc.exited;
  }
  served = undefined;
  w?.cleanup();
  w = undefined;
});

/** Wait (30 s at most) for `what`; on a timeout, say what serve printed. */
const waitFor = (cond: () => boolean, what: string) =>
  until(cond, { what, ms: 30_000, context: () => `serve said: ${served?.stderr()}` });

test("SIGTERM during an auto sync push: serve waits for the push, then exits 0", async () => {
  w = world();
  const { a } = w;
  a.ok(["sync", "--init", w.remote]);
  a.ok(["config", "set", "sync.auto", "true"]);
  a.ok(["remember", "Pushed before serve exits"]);
  const gate = join(w.root, "gate");
  mkdirSync(gate);
  mkdirSync(join(w.remote, "hooks"), { recursive: true });
  writeFileSync(
    join(w.remote, "hooks", "pre-receive"),
    `#!/bin/sh\ncat >/dev/null\ntouch '${gate}/entered'\nwhile [ ! -e '${gate}/release' ]; do sleep 0.05; done\n`,
    { mode: 0o755 },
  );

  served = await startServe(a.sb, a.project, ["--no-worker"]);
  await waitFor(() => existsSync(join(gate, "entered")), "the first auto sync to start pushing (after 10 s)");
  served.proc.kill("SIGTERM");
  await waitFor(() => served!.stderr().includes("waiting for the background pass in progress"), "the shutdown notice");
  expect(served.proc.exitCode).toBeNull(); // the push is held: serve must still be waiting
  writeFileSync(join(gate, "release"), "");
  expect(await served.proc.exited).toBe(0);
  const grep = git(w.root, w.gitEnv, "--git-dir", w.remote, "grep", "-q", "-F", "Pushed before serve exits", "main");
  expect(grep.code).toBe(0);
  expect(a.ok(["status", "--json"]).json().sync.last_error).toBeNull();
}, 90_000);
