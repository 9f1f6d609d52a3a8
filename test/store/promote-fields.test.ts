/**
 * `promote` writes nothing of this machine into `.coffer/` (issue 36 item 15): the frontmatter
 * fields a user added by hand (`notes: /home/me/...`, lists, maps, keys) and `applies_to` lose
 * their home and worktree paths like the title, body, tags and keywords do.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;
beforeAll(() => {
  sb = sandbox("coffer-promote-fields-");
  repo = sb.repo("app");
});
afterAll(() => sb.cleanup());

test("user-added fields with home and worktree paths are de-pathed on the way into the team lane", () => {
  const r = sb.run(["remember", "The osprey importer keeps its cursor beside the data", "--json"], { cwd: repo });
  const id = r.json().id as string;
  const file = [...new Bun.Glob(`memory/projects/*/entries/${id}.md`).scanSync(sb.cofferHome)][0]!;
  const full = join(sb.cofferHome, file);
  const home = sb.home;
  const text = readFileSync(full, "utf8").replace(
    "\ncreated:",
    [
      `\nnotes_file: ${home}/notes/osprey.md`,
      `workdir: "${home}"`,
      `links: ["${home}/a.md", "${repo}/docs/osprey.md", "${home}2/other"]`,
      `owner: { dir: "${home}/team", "${home}/key": 1 }`,
      `applies_to: ["${repo}/src/importer/**"]`,
      "created:",
    ].join("\n"),
  );
  writeFileSync(full, text);
  const p = sb.run(["promote", id, "--json"], { cwd: repo });
  expect(p.code).toBe(0);
  const team = readFileSync(join(repo, ".coffer", "entries", `${id}.md`), "utf8");
  expect(team).not.toContain(`${home}/`);
  expect(team).not.toContain(`"${home}"`);
  expect(team).not.toContain(repo);
  const meta = Bun.YAML.parse(/^---\n([\s\S]*?)\n---/.exec(team)![1]!) as Record<string, unknown>;
  expect(meta).toMatchObject({
    notes_file: "~/notes/osprey.md",
    workdir: "~",
    // another folder that only starts like the home one is not the home folder
    links: ["~/a.md", "docs/osprey.md", `${home}2/other`],
    owner: { dir: "~/team", "~/key": 1 },
    applies_to: ["src/importer/**"],
  });
  // and it reads back as a valid team entry
  expect(sb.run(["show", id, "--json"], { cwd: repo }).json()).toMatchObject({ scope: "team" });
});
