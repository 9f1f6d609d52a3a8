/**
 * Output that behaves in a shell: data on stdout, notices on stderr, colour only on a terminal
 * (never with NO_COLOR), aligned columns, readable recall scores, and the small wording fixes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;
const ESC = String.fromCharCode(27);

beforeAll(() => {
  sb = sandbox("coffer-output-");
  repo = sb.repo("app", "https://github.com/acme/app.git");
  expect(
    sb.run(["remember", "Deploys happen on Tuesdays after lunch", "--kind", "convention"], { cwd: repo }).code,
  ).toBe(0);
  expect(sb.run(["remember", "Staging uses the blue database", "--scope", "global"], { cwd: repo }).code).toBe(0);
  // A hand-written entry: short id from its file name, no dates.
  const dir = join(sb.cofferHome, "memory", "global", "entries");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "deploy-notes.md"),
    "---\ntitle: Hand written deploy note\nkind: gotcha\n---\nDeploys need the VPN.\n",
  );
});
afterAll(() => sb.cleanup());

/** Run through `script` so the binary's stdout is a real terminal. */
function onTty(args: string[], env: Record<string, string> = {}): string {
  const cmd = [BIN, ...args].map((a) => `'${a}'`).join(" ");
  const base = Object.fromEntries(Object.entries(sb.env).filter(([k]) => k !== "NO_COLOR"));
  const p = Bun.spawnSync(["script", "-qec", cmd, "/dev/null"], {
    cwd: repo,
    env: { ...base, TERM: "xterm-256color", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return p.stdout.toString().replace(/\r/g, "");
}

test("list: data on stdout in aligned columns, the 'N of M shown' notice on stderr", () => {
  const r = sb.run(["list"], { cwd: repo });
  expect(r.code).toBe(0);
  const lines = r.stdout.trimEnd().split("\n");
  expect(lines).toHaveLength(3);
  expect(r.stderr).toBe("");
  // kind and title columns start at the same offset for project, global and hand-written rows
  const kindAt = lines.map((l) => l.search(/ (convention|note|gotcha)\b/));
  expect(new Set(kindAt).size).toBe(1);
  const scopeAt = lines.map((l) => l.search(/ (project|global) /));
  expect(new Set(scopeAt).size).toBe(1);
  expect(lines.some((l) => l.startsWith("deploy-notes "))).toBe(true);

  const some = sb.run(["list", "--limit", "2"], { cwd: repo });
  expect(some.stdout.trimEnd().split("\n")).toHaveLength(2);
  expect(some.stderr).toContain("2 of 3 shown");
  expect(some.stdout).not.toContain("shown");
});

test("empty results: stdout stays empty, the notice goes to stderr", () => {
  const none = sb.run(["recall", "zebra crossing"], { cwd: repo });
  expect(none.code).toBe(0);
  expect(none.stdout).toBe("");
  expect(none.stderr).toContain("Nothing found.");
  const json = sb.run(["recall", "zebra crossing", "--json"], { cwd: repo });
  expect(json.json()).toEqual({ hits: [] });
  expect(json.stderr).toBe("");
  const grep = sb.run(["recall", "zebra", "--mode", "grep"], { cwd: repo });
  expect(grep.stdout).toBe("");
  expect(grep.stderr).toContain("No matching lines.");
  const noKind = sb.run(["list", "--kind", "todo"], { cwd: repo });
  expect(noKind.stdout).toBe("");
  expect(noKind.stderr).toContain("Nothing matches.");
});

test("recall shows how many query terms an entry matches; --json keeps the raw fields", () => {
  const r = sb.run(["recall", "deploys tuesday vpn"], { cwd: repo });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/Deploys happen on Tuesdays after lunch {2}2\/3 terms/);
  expect(r.stdout).toMatch(/Hand written deploy note {2}2\/3 terms/);
  expect(r.stdout).not.toMatch(/0\.0\d{3}/);
  const j = sb.run(["recall", "deploys tuesday vpn", "--json"], { cwd: repo }).json();
  expect(typeof j.hits[0].score).toBe("number");
  expect(j.hits[0]).toHaveProperty("updated");
});

test("no colour on a pipe, with or without NO_COLOR", () => {
  for (const env of [{}, { NO_COLOR: "" }] as Record<string, string>[]) {
    const r = sb.run(["list"], { cwd: repo, env });
    expect(r.stdout).not.toContain(ESC);
  }
  const piped = Bun.spawnSync([BIN, "list"], {
    cwd: repo,
    env: Object.fromEntries(Object.entries(sb.env).filter(([k]) => k !== "NO_COLOR")),
    stdout: "pipe",
  });
  expect(piped.stdout.toString()).not.toContain(ESC);
});

test("on a terminal list, recall and doctor use colour for ids, scope and kind; NO_COLOR turns it off", () => {
  const list = onTty(["list"]);
  expect(list).toContain(`${ESC}[35mglobal${ESC}[39m`);
  expect(list).toContain(`${ESC}[36mproject${ESC}[39m`);
  expect(list).toContain(`${ESC}[32mconvention${ESC}[39m`);
  expect(list).toMatch(new RegExp(`${ESC}\\[33m[0-9A-Z]{8}${ESC}\\[39m`)); // an id's handle
  expect(onTty(["recall", "deploys"])).toContain(`${ESC}[32mgotcha${ESC}[39m`);
  expect(onTty(["doctor"])).toContain(`${ESC}[32m✓${ESC}[39m`);
  expect(onTty(["list"], { NO_COLOR: "1" })).not.toContain(ESC);
});

test("small wording: '1 entry', doctor's config defaults, unlink without a host", () => {
  const fresh = sandbox("coffer-output-fresh-");
  try {
    fresh.run(["remember", "Only one"]);
    const status = fresh.run(["status"]).stdout;
    expect(status).toContain("global: 1 entry, 0 rules");
    expect(status).toContain("Index: 1 entry,");
    const doctor = fresh.run(["doctor"]).stdout;
    expect(doctor).toContain("config.toml: defaults (no file yet)");
    expect(doctor).toContain("1 global entry, 0 project entries in 0 projects");
    const un = fresh.run(["unlink"]);
    expect(un.code).toBe(2);
    expect(un.stderr).toContain("coffer unlink claude");
    expect(un.stderr).not.toContain("coffer link claude");
  } finally {
    fresh.cleanup();
  }
});
