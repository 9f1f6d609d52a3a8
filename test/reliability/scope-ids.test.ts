/**
 * Cross-project access by id (issue 12): `coffer__forget {"id":"______"}` from a server started in
 * project A deleted an entry of project B (`_` is a LIKE wildcard in the prefix lookup, and lookups
 * searched every project). Ids are validated, LIKE is escaped, and MCP/HTTP reads, rewrites and
 * deletes by id see only the caller's project + global (or the one scope the call names).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Mcp, projectId, type Sandbox, type Served, sandbox, startServe, stdioClient } from "../kit";

let sb: Sandbox;
let a: string;
let b: string;
let bId: string;
let gId: string;
let mcp: Mcp;

beforeAll(async () => {
  sb = sandbox("coffer-rel-scope-");
  a = sb.repo("project-a");
  b = sb.repo("project-b");
  bId = sb.run(["remember", "project B's private deploy notes", "--scope", "project", "--json"], { cwd: b }).json().id;
  gId = sb.run(["remember", "a global preference", "--scope", "global", "--json"], { cwd: a }).json().id;
  mcp = await stdioClient(sb, a);
});
afterAll(async () => {
  await mcp.close();
  sb.cleanup();
});

const bFile = () => join(sb.cofferHome, "memory", "projects", projectId(b), "entries", `${bId}.md`);

test("LIKE wildcards are not ids: forget/read with _ or % are refused and delete nothing", async () => {
  for (const id of ["______", "%", "01%", "0_____", "%%%%%%"]) {
    const msg = await mcp.fail("forget", { id });
    expect(msg).toMatch(/id must be an entry id/);
    expect(await mcp.fail("read", { id })).toMatch(/id must be an entry id/);
  }
  expect(existsSync(bFile())).toBe(true);
});

test("project A's server cannot read, rewrite or forget project B's entry, by id or by prefix", async () => {
  for (const id of [bId, bId.slice(0, 16), bId.toLowerCase()]) {
    expect(await mcp.fail("read", { id })).toMatch(/no entry with id .* in this project or global/);
    expect(await mcp.fail("forget", { id })).toMatch(/no entry with id/);
    expect(await mcp.fail("remember", { id, text: "overwritten from A" })).toMatch(/no entry with id/);
  }
  expect(existsSync(bFile())).toBe(true);
  expect(await Bun.file(bFile()).text()).toContain("project B's private deploy notes");
  // Global is the caller's too; naming a scope narrows the lookup to it.
  expect((await mcp.ok("read", { id: gId })).text).toBe("a global preference");
  expect(await mcp.fail("read", { id: gId, scope: "project" })).toMatch(/in the project scope/);
  expect((await mcp.ok("read", { id: gId, scope: "global" })).scope).toBe("global");
  // Project B's own cwd reaches it.
  expect((await mcp.ok("read", { id: bId, cwd: b })).text).toBe("project B's private deploy notes");
});

test("HTTP: GET/PATCH/DELETE of another project's entry are 404 and change nothing", async () => {
  let served: Served | undefined;
  try {
    served = await startServe(sb, a);
    const qs = `?cwd=${encodeURIComponent(a)}`;
    for (const id of [bId, "______", bId.slice(0, 16)]) {
      expect([400, 404]).toContain((await served.api(`/api/v1/entries/${id}${qs}`)).status);
      const patch = await served.api(`/api/v1/entries/${id}`, { method: "PATCH", body: { text: "x", cwd: a } });
      expect([400, 404]).toContain(patch.status);
      const del = await served.api(`/api/v1/entries/${id}${qs}`, { method: "DELETE" });
      expect([400, 404]).toContain(del.status);
    }
    expect(existsSync(bFile())).toBe(true);
    expect((await served.api(`/api/v1/entries/${bId}?cwd=${encodeURIComponent(b)}`)).status).toBe(200);
  } finally {
    await served?.stop();
  }
});

test("the CLI (the user's own shell) still reaches any project by full id", () => {
  const r = sb.run(["show", bId], { cwd: a });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("project B's private deploy notes");
  // and a LIKE wildcard is never a prefix there either
  expect(sb.run(["show", "______"], { cwd: a }).code).not.toBe(0);
});
