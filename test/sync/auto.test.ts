/**
 * `[sync] auto = true`: what `coffer serve` runs on an interval. startAutoSync is driven in-process
 * (against a machine set up by the compiled binary) so the test need not wait for minute timers.
 */
import { afterEach, expect, test } from "bun:test";
import { renameSync } from "node:fs";
import { startAutoSync } from "../../src/sync/auto";
import { git, until, type World, world } from "../kit";

let w: World | undefined;
const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  w?.cleanup();
  w = undefined;
});

/** How long to wait, and on a timeout, what the auto sync logged so far. */
const logged = (logs: string[]) => ({ ms: 20_000, context: () => `auto sync logged: ${JSON.stringify(logs)}` });

function onRemote(world: World, text: string): boolean {
  return git(world.root, world.gitEnv, "--git-dir", world.remote, "grep", "-q", "-F", text, "main").code === 0;
}

test("auto sync commits and pushes on its interval; errors are logged, never thrown", async () => {
  w = world();
  const { a } = w;
  a.ok(["sync", "--init", w.remote]);
  Object.assign(process.env, a.sb.env);

  const logs: string[] = [];
  a.ok(["remember", "Picked up by the auto sync"]);
  const auto = startAutoSync(
    { "sync.auto": true, "sync.interval_minutes": 15 },
    { firstDelayMs: 0, intervalMs: 300, log: (m) => logs.push(m) },
  );
  try {
    await until(() => onRemote(w!, "Picked up by the auto sync"), logged(logs));
    await until(() => logs.some((l) => l.startsWith("auto sync: sent")), logged(logs));

    // The remote goes away: the next runs fail, are logged and recorded, and the timer keeps going.
    renameSync(w.remote, `${w.remote}.away`);
    a.ok(["remember", "Written while the remote is away"]);
    await until(() => logs.filter((l) => l.startsWith("auto sync failed")).length >= 2, logged(logs));
    expect(a.ok(["status", "--json"]).json().sync.last_error).toContain("does not exist");

    renameSync(`${w.remote}.away`, w.remote);
    await until(() => onRemote(w!, "Written while the remote is away"), logged(logs));
  } finally {
    await auto.stop(); // resolves after the sync in progress (if any) has finished
  }
  expect(auto.running()).toBe(false);
  const after = logs.length;
  await Bun.sleep(700); // more than two intervals
  expect(logs.length).toBe(after); // stopped means stopped
}, 60_000); // several git round trips: far over bun's 5 s default on a busy 2-core machine

test("auto sync off (the default) starts nothing; on without setup says how to set it up once", async () => {
  w = world();
  Object.assign(process.env, w.a.sb.env);
  const logs: string[] = [];
  const off = startAutoSync(
    { "sync.auto": false, "sync.interval_minutes": 15 },
    { firstDelayMs: 0, intervalMs: 50, log: (m) => logs.push(m) },
  );
  const on = startAutoSync(
    { "sync.auto": true, "sync.interval_minutes": 15 },
    { firstDelayMs: 0, intervalMs: 50, log: (m) => logs.push(m) },
  );
  await Bun.sleep(400);
  await off.stop();
  await on.stop();
  expect(logs).toEqual(["auto sync is on but sync is not set up; run `coffer sync --init <remote-url>`"]);
}, 30_000);
