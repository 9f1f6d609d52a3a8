/**
 * Issue 36, item 2: a provider token right after a `/` (a path, a glob, a URL) was never scrubbed:
 * the left boundary treated the slash as part of a base64 blob. A path or URL separator is a
 * boundary like a space; inside a real base64 blob a slash still is not.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scrub } from "../../src/scrub/index";
import { scanTexts } from "../../src/scrub/scan";
import { sandbox } from "../kit";

const GHP = "ghp_Zq8vR2mK9xLw4Tn7Bc3Hd6Fg1Js5Kp0Qa2W";
const STRIPE = "sk_live_51HqZ7Rk2mVx9Lp4Tz8Wn3Jc6";
const AKIA = "AKIAQ3EGRTZ5XN7PLWQR";

const CASES: [string, string][] = [
  [`ci/${GHP}/*`, "ci/[redacted]/*"],
  [`x/${GHP}`, "x/[redacted]"],
  [`https://github.com/${GHP}/x`, "https://github.com/[redacted]/x"],
  [`vault/${STRIPE}/current`, "vault/[redacted]/current"],
  [`keys/${AKIA}/id`, "keys/[redacted]/id"],
  [`/home/dev/.config/secrets/${GHP}`, "/home/dev/.config/secrets/[redacted]"],
  [`see C:\\keys\\${AKIA} and s3://bucket/${AKIA}/x`, "see C:\\keys\\[redacted] and s3://bucket/[redacted]/x"],
];

describe("a token right after a slash is scrubbed", () => {
  for (const [input, expected] of CASES)
    test(input, () => {
      expect(scrub(input).text).toBe(expected);
    });

  test("inside a base64 blob, a slash is not a boundary: the blob stays byte-identical", () => {
    const blob = `data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9Qz0AEYBxVSF+FAP5FDvcfRYWgAAAAAElFTkSuQmCC9xQ/${AKIA}+Lw/ghp_${"Ab12".repeat(9)}==`;
    expect(scrub(blob).text).toBe(blob);
  });

  test("scan --staged's check finds it, in a glob as in a URL", () => {
    const r = scanTexts([
      {
        path: ".coffer/entries/a.md",
        text: `---\napplies_to:\n  - ci/${GHP}/*\n---\nCI reads its token from the path\n`,
      },
      { path: ".coffer/rules.md", text: `- Fetch https://github.com/${GHP}/x before a release\n` },
    ]);
    expect(r.findings.map((f) => [f.path, f.found])).toEqual([
      [".coffer/entries/a.md", [{ family: "github", count: 1 }]],
      [".coffer/rules.md", [{ family: "github", count: 1 }]],
    ]);
  });
});

describe("through the binary", () => {
  const sb = sandbox("coffer-slash-");
  afterAll(() => sb.cleanup());

  test("remember --applies-to 'ci/<token>/*': the glob is stored redacted, and scan finds nothing left", () => {
    const r = sb.run([
      "remember",
      "CI reads its deploy token from the path",
      "--scope",
      "global",
      "--applies-to",
      `ci/${GHP}/*`,
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(r.json().scrubbed).toContain("github");
    const dir = join(sb.cofferHome, "memory", "global", "entries");
    const text = readdirSync(dir)
      .map((n) => readFileSync(join(dir, n), "utf8"))
      .join("\n");
    expect(text).not.toContain(GHP);
    expect(text).toContain("ci/[redacted]/*");
    expect(sb.run(["scan", "--json"]).json().secrets).toBe(0);
  });
});
