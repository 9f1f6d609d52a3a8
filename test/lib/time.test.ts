/**
 * The local day without asking ICU on every process (issue 38): today's bounds are computed once
 * per zone and kept in state/clock.json, where the next processes of the day read them.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { thousands } from "../../src/lib/time";

const home = mkdtempSync(join(tmpdir(), "coffer-clock-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const timeModule = resolve(import.meta.dir, "../../src/lib/time.ts");
const clock = join(home, "state", "clock.json");
const NOW = "2026-03-08T12:00:00Z"; // New York springs forward that night: a 23-hour day

/** localDayOf(at) in a fresh process, as a hook or command would call it. */
function dayIn(tz: string, at = Date.parse(NOW)) {
  const code = `const { localDayOf } = await import(${JSON.stringify(timeModule)}); console.log(JSON.stringify(localDayOf(${at})));`;
  const r = Bun.spawnSync([process.execPath, "-e", code], {
    env: { PATH: process.env.PATH, HOME: home, COFFER_HOME: home, COFFER_NOW: NOW, TZ: tz },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(r.stderr.toString()).toBe("");
  return JSON.parse(r.stdout.toString()) as { day: string; start: number; end: number };
}

test("today's bounds are the local midnights, kept for the next processes of that zone", () => {
  const ny = dayIn("America/New_York");
  expect(ny).toEqual({
    day: "2026-03-08",
    start: Date.parse("2026-03-08T05:00:00Z"),
    end: Date.parse("2026-03-09T04:00:00Z"),
  });
  expect(JSON.parse(readFileSync(clock, "utf8"))).toEqual({ zone: "TZ=America/New_York", ...ny });
  // What the next process answers comes from the file, not from the time-zone database.
  writeFileSync(clock, JSON.stringify({ zone: "TZ=America/New_York", ...ny, day: "from-the-file" }));
  expect(dayIn("America/New_York").day).toBe("from-the-file");
  // A day other than today is computed, and leaves today's file as it is.
  expect(dayIn("America/New_York", Date.parse("2026-03-02T12:00:00Z")).day).toBe("2026-03-02");
  expect(JSON.parse(readFileSync(clock, "utf8")).day).toBe("from-the-file");
});

test("another zone does not read the day kept for the first", () => {
  const tokyo = dayIn("Asia/Tokyo", Date.parse("2026-03-08T20:00:00Z"));
  expect(tokyo).toEqual({
    day: "2026-03-09",
    start: Date.parse("2026-03-08T15:00:00Z"),
    end: Date.parse("2026-03-09T15:00:00Z"),
  });
});

test("counts for people carry thousands separators", () => {
  expect([0, 999, 1000, 200000, 1234567].map(thousands)).toEqual(["0", "999", "1,000", "200,000", "1,234,567"]);
});
