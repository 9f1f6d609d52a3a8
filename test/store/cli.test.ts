import { afterAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json";
import { nativeTarget } from "../../scripts/targets";
import { sandbox } from "../kit";

const sb = sandbox();
afterAll(() => sb.cleanup());

describe("the coffer binary", () => {
  test("--version prints the package version and the build target", () => {
    const r = sb.run(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`${pkg.version} (${nativeTarget()})`);
  });

  test("--help lists every command with one line each", () => {
    const r = sb.run(["--help"]);
    expect(r.code).toBe(0);
    for (const name of [
      "remember",
      "recall",
      "list",
      "show",
      "forget",
      "edit",
      "rules",
      "handoff",
      "resume",
      "config",
      "reindex",
      "status",
      "hook",
      "link",
      "serve",
      "sync",
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S.+$`, "m"));
    }
  });

  test("a command's --help shows its options and examples", () => {
    const r = sb.run(["remember", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--scope");
    expect(r.stdout).toContain("EXAMPLES");
    const sub = sb.run(["rules", "add", "--help"]);
    expect(sub.stdout).toContain("coffer rules add");
    expect(sub.stdout).toContain("EXAMPLES");
  });

  test("an unknown command is a usage error (exit 2)", () => {
    const r = sb.run(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
    expect(r.stdout).toBe("");
  });

  test("a missing required argument is a usage error (exit 2)", () => {
    const r = sb.run(["show"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Missing required positional argument: ID/);
  });
});
