/**
 * A broken entry file (issue 12): reindex skipped it with a notice, but `show`/`forget` then said
 * "no entry with id". They name the broken file now, and `forget` (CLI and MCP) removes it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox, stdioClient } from "../kit";

let sb: Sandbox;
let dir: string;
const BAD = "01JBAD0000000000000000000A";
const BAD2 = "01JBAD0000000000000000000B";
const LINK = "01JBAD0000000000000000000C";

beforeAll(() => {
  sb = sandbox("coffer-rel-broken-");
  expect(sb.run(["remember", "a good entry", "--scope", "global"]).code).toBe(0);
  dir = join(sb.cofferHome, "memory", "global", "entries");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${BAD}.md`), "---\ntitle: [unclosed\nkind: note\n---\nbody\n");
  writeFileSync(join(dir, `${BAD2}.md`), "---\ntags: {a: [\n---\nbody two\n");
  writeFileSync(join(sb.root, "outside.txt"), "outside the store\n");
  symlinkSync(join(sb.root, "outside.txt"), join(dir, `${LINK}.md`));
});
afterAll(() => sb.cleanup());

test("reindex skips the broken files with a notice naming each", () => {
  const r = sb.run(["reindex"]);
  expect(r.code).toBe(0);
  expect(r.stdout + r.stderr).toContain(`${BAD}.md`);
  expect(r.stdout + r.stderr).toContain(`${LINK}.md`);
});

test("show names the broken file and what is wrong, not 'no entry with id'", () => {
  const r = sb.run(["show", BAD]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(join(dir, `${BAD}.md`));
  expect(r.stderr).toMatch(/frontmatter/);
  expect(r.stderr).not.toMatch(/no entry with id/);
  expect(r.stderr).toContain(`coffer forget ${BAD}`);
  const link = sb.run(["show", LINK]);
  expect(link.stderr).toMatch(/symbolic link/);
  expect(link.stdout).not.toContain("outside the store");
});

test("forget removes a broken file (CLI), a link without touching its target, and one through MCP", async () => {
  const r = sb.run(["forget", BAD, "--json"]);
  expect(r.code).toBe(0);
  expect(r.json().id).toBe(BAD);
  expect(existsSync(join(dir, `${BAD}.md`))).toBe(false);
  expect(sb.run(["forget", LINK, "--json"]).code).toBe(0);
  expect(existsSync(join(dir, `${LINK}.md`))).toBe(false);
  expect(existsSync(join(sb.root, "outside.txt"))).toBe(true);
  const mcp = await stdioClient(sb, sb.home);
  try {
    expect(await mcp.fail("read", { id: BAD2 })).toContain(`${BAD2}.md`);
    expect((await mcp.ok("forget", { id: BAD2 })).status).toBe("deleted");
  } finally {
    await mcp.close();
  }
  expect(existsSync(join(dir, `${BAD2}.md`))).toBe(false);
  // The good entry is still there.
  expect(sb.run(["list", "--scope", "global"]).stdout).toContain("a good entry");
});
