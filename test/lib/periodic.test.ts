/** src/lib/periodic.ts: runs never overlap, stop() waits for the run in progress and ends the schedule. */
import { expect, test } from "bun:test";
import { startPeriodic } from "../../src/lib/periodic";
import { until } from "../kit";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

/** Poll often: a run here takes a few milliseconds. */
const often = { every: 5 };

test("runs never overlap; stop() resolves only after the run in progress ends, and no run follows", async () => {
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  let release = gate();
  let heldBy: ReturnType<typeof gate> | undefined;
  const p = startPeriodic(
    async () => {
      runs++;
      active++;
      maxActive = Math.max(maxActive, active);
      heldBy = release;
      await release.opened;
      heldBy = undefined;
      active--;
    },
    { intervalMs: 1, firstDelayMs: 0 },
  );
  await until(() => runs === 1, often);
  await Bun.sleep(50); // many intervals pass while the first run is held
  expect(runs).toBe(1);
  release.open();
  await until(() => runs >= 3, often);
  release = gate(); // hold the current (or next) run
  await until(() => heldBy === release, often); // a run is held by the new gate
  let stopped = false;
  const stopping = p.stop().then(() => (stopped = true));
  await Bun.sleep(20);
  expect(stopped).toBe(false); // still waiting for the held run
  const before = runs;
  release.open();
  await stopping;
  expect(p.running()).toBe(false);
  await Bun.sleep(50);
  expect(runs).toBe(before);
  expect(maxActive).toBe(1);
});

test("stop() aborts the signal, resolves at once when idle, and an error does not end the schedule", async () => {
  const errors: unknown[] = [];
  let runs = 0;
  let seen: AbortSignal | undefined;
  const p = startPeriodic(
    async (signal) => {
      seen = signal;
      runs++;
      if (runs === 1) throw new Error("first run fails");
    },
    { intervalMs: 1, firstDelayMs: 0, onError: (e) => errors.push(e) },
  );
  await until(() => runs >= 2, often);
  await p.stop();
  expect(seen!.aborted).toBe(true);
  expect((errors[0] as Error).message).toBe("first run fails");
  const idle = startPeriodic(async () => {}, { intervalMs: 60_000 });
  await idle.stop(); // never ran
  expect(idle.running()).toBe(false);
});
