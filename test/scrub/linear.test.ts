/**
 * Linear time: 1 MB adversarial inputs, one or more per rule (a run of a rule's keyword, its
 * prefix followed by a long body, the shapes that made the old scrubber quadratic). A 1 MB input
 * scrubbed within a second passes; a slower one (a loaded machine, or a super-linear pattern) is
 * told apart by growth: its first quarter must take more than an eighth of the whole's time
 * (linear: a quarter; quadratic: a sixteenth). A quadratic pattern also takes minutes on these,
 * which the test's own timeout catches. Precise per-input times: scripts/bench/clean.ts.
 */
import { describe, expect, test } from "bun:test";
import { scrub } from "../../src/scrub/index";
import { adversarialInputs } from "./adversarial";

function timed(text: string): number {
  const t0 = performance.now();
  expect(typeof scrub(text).text).toBe("string");
  return performance.now() - t0;
}

describe("adversarial inputs finish in linear time", () => {
  for (const { name, text } of adversarialInputs())
    test(name, () => {
      const whole = timed(text);
      if (whole <= 1000) return;
      const quarter = text.slice(0, Math.floor(text.length / 4));
      const part = Math.min(timed(quarter), timed(quarter));
      const again = Math.min(whole, timed(text));
      expect({ name, growth: Math.round(again / Math.max(part, 1)) < 8 }).toEqual({ name, growth: true });
    });
});
