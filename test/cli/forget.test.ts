/**
 * forget says where an entry was, and asks before deleting outside this project or several at
 * once (--yes, or a confirm on a terminal).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox } from "../helpers";

let sb: Sandbox;
let a: string;
let b: string;

beforeAll(() => {
  sb = sandbox("coffer-forget-");
  a = sb.repo("alpha", "https://github.com/acme/alpha.git");
  b = sb.repo("beta", "https://github.com/acme/beta.git");
});
afterAll(() => sb.cleanup());

const remember = (text: string, cwd: string, ...extra: string[]) =>
  sb.run(["remember", text, "--json", ...extra], { cwd }).json().id as string;
const exists = (id: string, cwd: string) => sb.run(["show", id], { cwd }).code === 0;

test("forgetting an entry of this project says which project", () => {
  const id = remember("Alpha deploys on Fridays", a);
  const r = sb.run(["forget", id], { cwd: a });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`Forgot ${id} (project alpha)`);
  expect(exists(id, a)).toBe(false);
});

test("an entry of another project needs --yes; nothing is deleted without it", () => {
  const id = remember("Beta uses the blue database", b);
  const r = sb.run(["forget", id], { cwd: a });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`${id} is in project beta, not this one: confirm with --yes`);
  expect(exists(id, b)).toBe(true);
  const ok = sb.run(["forget", id, "--yes"], { cwd: a });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain(`Forgot ${id} (project beta, not this one)`);
  expect(exists(id, b)).toBe(false);
});

test("several entries need --yes; a typo in one id deletes none", () => {
  const one = remember("Alpha first fact", a);
  const two = remember("Alpha second fact", a, "--scope", "global");
  const r = sb.run(["forget", one, two], { cwd: a });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("forgetting 2 entries: confirm with --yes");
  const typo = sb.run(["forget", one, "01ZZZZZZZZZZZZZZZZZZZZZZZZ", "--yes"], { cwd: a });
  expect(typo.code).toBe(1);
  expect(exists(one, a) && exists(two, a)).toBe(true);
  const ok = sb.run(["forget", one, two, "-y"], { cwd: a });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain(`Forgot ${one} (project alpha)`);
  expect(ok.stdout).toContain(`Forgot ${two} (global)`);
  expect(exists(one, a) || exists(two, a)).toBe(false);
});

test("on a terminal forget asks, and 'no' keeps the entry", () => {
  const id = remember("Beta has a staging cluster", b);
  const ask = (answer: string) =>
    Bun.spawnSync(["sh", "-c", `printf '${answer}' | script -qec "'${BIN}' forget ${id}" /dev/null`], {
      cwd: a,
      env: { ...sb.env, TERM: "dumb" },
      stdout: "pipe",
    }).stdout.toString();
  expect(ask("n\\n")).toContain("project beta, not this one");
  expect(exists(id, b)).toBe(true);
  ask("y\\n");
  expect(exists(id, b)).toBe(false);
  expect(existsSync(join(sb.cofferHome, "memory"))).toBe(true);
});
