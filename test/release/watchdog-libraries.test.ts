/**
 * The native watchdog libraries in src/hooks/watchdog/: one per release target, of that target's
 * format, the bytes scripts/watchdog/SOURCES.md records (so a changed watchdog.c is rebuilt and
 * recorded, never shipped stale), each one what the binary built for that target loads, and the
 * Apple silicon one signed.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { verifyCodeSignature } from "../../scripts/macho";
import { TARGETS } from "../../scripts/targets";
import { watchdogLibraries } from "../../src/hooks/watchdog/libraries";
import { formatOf, ROOT } from "./_release";

const recorded = new Map(
  [
    ...readFileSync(join(ROOT, "scripts", "watchdog", "SOURCES.md"), "utf8").matchAll(
      /^\| ([\w-]+) +\| `([^`]+)` +\| `([0-9a-f]{64})` \|$/gm,
    ),
  ].map((m) => [m[1]!, { file: m[2]!, sha256: m[3]! }]),
);

test.each(TARGETS.map((t) => [t.name, t.format] as const))(
  "%s: one library of format %s, as recorded",
  (name, format) => {
    const libs = watchdogLibraries(name);
    expect(libs.length).toBe(1);
    const bytes = readFileSync(libs[0]!);
    expect(formatOf(bytes)).toBe(format);
    expect(recorded.get(name)).toEqual({
      file: basename(libs[0]!),
      sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex"),
    });
  },
);

test("the Apple silicon library carries a valid ad-hoc signature (macOS loads no unsigned arm64 code)", () => {
  expect(verifyCodeSignature(readFileSync(watchdogLibraries("darwin-arm64")[0]!)).ok).toBe(true);
});

test("every recorded library is a release target's", () => {
  expect([...recorded.keys()].sort()).toEqual(TARGETS.map((t) => t.name).sort());
});
