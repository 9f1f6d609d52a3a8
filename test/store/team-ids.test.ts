/**
 * A team file named with one of the user's own ids (issue 36 item 18): it made two entries with
 * one full id, and a handle answered "give more characters" where no number of characters could
 * help. The team file is refused on read (the personal entry wins, `doctor` says so), and the same
 * id in two scopes is told apart by scope, never by asking for more characters.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;
let mine: string;

const entryFile = (id: string) =>
  join(sb.cofferHome, [...new Bun.Glob(`memory/**/${id}.md`).scanSync(sb.cofferHome)][0]!);

beforeAll(() => {
  sb = sandbox("coffer-team-ids-");
  repo = sb.repo("app");
  mine = sb.run(["remember", "The kestrel cache is warmed at boot", "--json"], { cwd: repo }).json().id;
  expect(sb.run(["remember", "Team lane starts here", "--scope", "team"], { cwd: repo }).code).toBe(0);
  writeFileSync(
    join(repo, ".coffer", "entries", `${mine}.md`),
    `---\nid: ${mine}\nkind: note\ntitle: quokka\n---\nThe quokka deploy key rotates weekly\n`,
  );
});
afterAll(() => sb.cleanup());

describe("a team file with one of your ids", () => {
  test("is refused on read: one entry with that id, yours", () => {
    const list = sb.run(["list", "--json", "--limit", "100"], { cwd: repo });
    const rows = list.json().entries.filter((e: { id: string }) => e.id === mine);
    expect(rows).toEqual([expect.objectContaining({ id: mine, scope: "project" })]);
    expect(list.stderr).toContain(`id of your own entry ${mine}`);
    expect(sb.run(["recall", "quokka", "--json"], { cwd: repo }).json().hits).toEqual([]);
  });

  test("its handle finds yours, not an ambiguity", () => {
    const show = sb.run(["show", mine.slice(-8), "--json"], { cwd: repo });
    expect(show.code).toBe(0);
    expect(show.json()).toMatchObject({ id: mine, scope: "project" });
    expect(show.stdout).toContain("kestrel");
  });

  test("doctor says so", () => {
    const warnings = sb.run(["doctor", "--json"], { cwd: repo }).json().warnings as {
      where: string;
      message: string;
    }[];
    expect(warnings.some((w) => w.where === "team lane" && w.message.includes(mine))).toBe(true);
  });
});

describe("one id in two scopes is never 'give more characters'", () => {
  test("your project's and global: a handle finds the project's", () => {
    const id = sb.run(["remember", "The heron gateway listens on 9234", "--json"], { cwd: repo }).json().id;
    const global = join(sb.cofferHome, "memory", "global", "entries", `${id}.md`);
    mkdirSync(dirname(global), { recursive: true });
    copyFileSync(entryFile(id), global);
    expect(sb.run(["reindex"], { cwd: repo }).code).toBe(0);
    const show = sb.run(["show", id.slice(-8), "--json"], { cwd: repo });
    expect(show.stderr).not.toContain("more characters");
    expect(show.json()).toMatchObject({ id, scope: "project" });
  });

  test("two other projects: named by scope, no promise more characters would help", () => {
    const other = sb.repo("other");
    const id = sb.run(["remember", "The ibis worker runs hourly", "--json"], { cwd: other }).json().id;
    const src = entryFile(id);
    const twin = join(dirname(dirname(dirname(src))), "01JTWINPROJECT0000000000000", "entries", `${id}.md`);
    mkdirSync(dirname(twin), { recursive: true });
    copyFileSync(src, twin);
    expect(sb.run(["reindex"]).code).toBe(0);
    for (const asked of [id.slice(-8), id]) {
      const show = sb.run(["show", asked]); // from the home folder: both are other projects
      expect(show.code).toBe(1);
      expect(show.stderr).not.toContain("give more characters");
      expect(show.stderr).toContain(`2 entries have the id ${id}`);
    }
  });
});
