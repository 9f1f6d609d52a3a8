/**
 * Linear time: 1 MB adversarial inputs, one or more per rule (a run of a rule's keyword, its
 * prefix followed by a long body, the shapes that made the old scrubber quadratic). The bound
 * here is a loose guard against super-linear behaviour (a quadratic pattern takes minutes on
 * these); the precise per-input times are measured by scripts/bench/clean.ts.
 */
import { describe, expect, test } from "bun:test";
import { scrub } from "../../src/scrub/index";
import { adversarialInputs } from "./adversarial";

describe("adversarial inputs finish in linear time", () => {
  for (const { name, text } of adversarialInputs())
    test(name, () => {
      const t0 = performance.now();
      const out = scrub(text);
      const ms = performance.now() - t0;
      expect(typeof out.text).toBe("string");
      expect({ name, slow: ms > 1000 }).toEqual({ name, slow: false });
    });
});
