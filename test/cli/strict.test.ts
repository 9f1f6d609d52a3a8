/**
 * Strict arguments through the compiled binary: a typo in an option, an extra word or a bad enum
 * value is a usage error (exit 2) with a did-you-mean, and nothing is written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-strict-");
  repo = sb.repo("app", "https://github.com/acme/app.git");
});
afterAll(() => sb.cleanup());

/** Every entry file under memory/, anywhere. */
function entryFiles(): string[] {
  const mem = join(sb.cofferHome, "memory");
  if (!existsSync(mem)) return [];
  return (readdirSync(mem, { recursive: true }) as string[]).filter((f) => /entries\/.+\.md$/.test(f));
}

describe("typos in options of commands that take text write nothing", () => {
  const cases: [string[], string][] = [
    [["remember", "Deploys happen on Tuesdays", "--tga", "release"], "--tags"],
    [["remember", "typo test", "--scpoe", "global"], "--scope"],
    [["remember", "typo test", "--kidn", "fact"], "--kind"],
    [["remember", "typo test", "--titel", "T"], "--title"],
    [["remember", "typo test", "--applies-too", "src/**"], "--applies-to"],
    [["recall", "deploys", "--scpoe", "global"], "--scope"],
    [["recall", "deploys", "--limt", "3"], "--limit"],
    [["rules", "add", "Run tests first", "--scoep", "global"], "--scope"],
    [["handoff", "set", "Half way", "--jsno"], "--json"],
    [["list", "--kinds", "decision"], "--kind"],
  ];
  for (const [args, suggestion] of cases) {
    test(args.join(" "), () => {
      const r = sb.run(args, { cwd: repo });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("unknown option");
      expect(r.stderr).toContain(`Did you mean ${suggestion}?`);
    });
  }
  test("no entry, rule or handoff was written", () => {
    expect(entryFiles()).toEqual([]);
    const mem = join(sb.cofferHome, "memory");
    const all = existsSync(mem) ? (readdirSync(mem, { recursive: true }) as string[]) : [];
    expect(all.filter((f) => /rules\.md$|handoff\//.test(f))).toEqual([]);
  });
});

test("every command rejects an unknown option with exit 2 before doing anything", () => {
  const fresh = sandbox("coffer-strict-all-");
  try {
    const help = fresh.run(["--help"]).stdout;
    const names = [...help.matchAll(/^ {2}([a-z][a-z-]*) {2,}/gm)].map((m) => m[1]!).filter((n) => n !== "hook"); // hook never reaches the CLI parser
    expect(names.length).toBeGreaterThan(20);
    const subs: string[][] = [
      ["rules", "add", "x"],
      ["rules", "show"],
      ["handoff", "set", "x"],
      ["config", "set", "hook.read", "auto"],
      ["inbox", "approve", "01J"],
      ["distill", "run"],
      ["distill", "list"],
    ];
    for (const argv of [...names.map((n) => [n]), ...subs]) {
      const r = fresh.run([...argv, "--definitely-not-an-option"], { cwd: fresh.home });
      expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
      expect(r.stderr).toContain("unknown option --definitely-not-an-option");
    }
    // Nothing ran: not even the Coffer home was created.
    expect(existsSync(fresh.cofferHome)).toBe(false);
  } finally {
    fresh.cleanup();
  }
});

test("extra positionals are rejected; multi-word text still works for text commands", () => {
  const r = sb.run(["show", "01ABC", "01DEF"], { cwd: repo });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('unexpected argument "01DEF"');
  expect(sb.run(["status", "now"]).code).toBe(2);
  const ok = sb.run(["remember", "Deploys", "happen", "on", "Tuesdays", "--tags", "release", "--json"], { cwd: repo });
  expect(ok.code).toBe(0);
  const id = ok.json().id;
  const shown = sb.run(["show", id, "--json"], { cwd: repo }).json();
  expect(shown.body).toBe("Deploys happen on Tuesdays");
  expect(shown.tags).toEqual(["release"]);
  // Text that starts with a dash goes after --.
  const dash = sb.run(["remember", "--", "-v prints the version"], { cwd: repo });
  expect(dash.code).toBe(0);
});

test("unknown commands and sub-commands get a did-you-mean", () => {
  const r = sb.run(["remeber", "x"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('unknown command "remeber"');
  expect(r.stderr).toContain("Did you mean `coffer remember`?");
  const s = sb.run(["rules", "ad", "x"]);
  expect(s.code).toBe(2);
  expect(s.stderr).toContain("Did you mean `coffer rules add`?");
});

test("top-level typos and `coffer help <command>`", () => {
  const v = sb.run(["--verison"]);
  expect(v.code).toBe(2);
  expect(v.stderr).toContain("Did you mean --version?");
  const h = sb.run(["help", "remember"]);
  expect(h.code).toBe(0);
  expect(h.stdout).toContain("--tags");
});

test("bad --kind, --scope, --limit, --mode values are usage errors (exit 2)", () => {
  const kind = sb.run(["remember", "x y z", "--kind", "banana"], { cwd: repo });
  expect(kind.code).toBe(2);
  expect(kind.stderr).toContain('unknown kind "banana" (allowed: fact, decision, gotcha');
  const scope = sb.run(["list", "--scope", "glbal"]);
  expect(scope.code).toBe(2);
  expect(scope.stderr).toContain("Did you mean --scope global?");
  expect(sb.run(["list", "--limit", "0"]).code).toBe(2);
  expect(sb.run(["list", "--limit", "many"]).code).toBe(2);
  expect(sb.run(["recall", "x", "--mode", "grp"]).stderr).toContain("Did you mean --mode grep?");
  expect(sb.run(["list", "--kind"]).stderr).toContain("--kind needs a value");
});

test("options before a sub-command and the default sub-command still work", () => {
  expect(sb.run(["rules", "--scope", "global", "add", "Answer in English"]).code).toBe(0);
  const shown = sb.run(["rules", "--scope", "global", "--json"]);
  expect(shown.code).toBe(0);
  expect(shown.json().rules[0].text).toContain("Answer in English");
  expect(sb.run(["config", "hook.read"]).stdout.trim()).toBe("auto");
});
