/**
 * What an import tells a person (issue 29): projects by name in the summary (also for a Coffer
 * export, whose project.md arrives after the entries) and in `status` after `--undo`; a re-import
 * that adds nothing records no import; an engram file with no memories says so.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";

let a: Sandbox;
let b: Sandbox;
let file = "";
let projectId = "";

beforeAll(() => {
  a = sandbox("coffer-import-sum-a-");
  b = sandbox("coffer-import-sum-b-");
  const repo = a.repo("shop", "https://github.com/acme/shop.git");
  for (const text of ["Shop takes payments through Stripe", "Shop deploys on Fridays after the freeze"])
    expect(a.run(["remember", text], { cwd: repo }).code).toBe(0);
  file = join(a.root, "shop.jsonl");
  expect(a.run(["export", "--out", file], { cwd: repo }).code).toBe(0);
  projectId = readdirSync(join(a.cofferHome, "memory", "projects"))[0]!;
});
afterAll(() => {
  a.cleanup();
  b.cleanup();
});

const imports = () => b.run(["import", "--list", "--json"]).json() as { import_id: string }[];

test("the summary names the project, a dry run too", () => {
  const dry = b.run(["import", "coffer", file, "--dry-run"]);
  expect(dry.stdout).toMatch(/^ {2}project shop +2 +note 2$/m);
  expect(dry.stdout).not.toContain(projectId);
  const r = b.run(["import", "coffer", file]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^ {2}project shop +2 +note 2$/m);
  expect(r.stdout).not.toContain(projectId);
  expect(imports()).toHaveLength(1);
});

test("a re-import that adds nothing records no import", () => {
  const r = b.run(["import", "coffer", file]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("0 new entries, 0 merged into existing, 2 already imported");
  expect(r.stdout).toContain("Nothing new: no import recorded.");
  expect(r.stdout).not.toContain("--undo");
  expect(imports()).toHaveLength(1);
  expect(b.run(["import", "coffer", file, "--json"]).json().import_id).toBeNull();
});

test("after --undo, status does not list the emptied project by its bare id", () => {
  const [only] = imports();
  expect(b.run(["import", "--undo", only!.import_id]).code).toBe(0);
  const status = b.run(["status"]).stdout;
  expect(status).not.toContain(projectId);
  expect(existsSync(join(b.cofferHome, "memory", "projects", projectId))).toBe(false);
  // Imported again, it comes back under its name.
  expect(b.run(["import", "coffer", file]).stdout).toMatch(/^ {2}project shop +2/m);
  expect(b.run(["status"]).stdout).toContain(`shop (${projectId}): 2 entries`);
});

test("an engram file with no memories ([] or {}) warns and records nothing", () => {
  const before = imports().length;
  for (const [name, text] of [
    ["list.json", "[]"],
    ["empty.json", "{}"],
    ["none.json", '{"version":"1","sessions":[],"observations":[]}'],
  ] as const) {
    const f = join(b.root, name);
    writeFileSync(f, text);
    const r = b.run(["import", "engram", f]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `coffer import: ${f} holds no memories (no observations or sessions): is it the file \`engram export <file>\` wrote?\n`,
    );
    expect(r.stdout).toContain("Nothing new: no import recorded.");
  }
  expect(imports()).toHaveLength(before);
});
