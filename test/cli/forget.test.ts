/**
 * forget says where an entry was, and asks before deleting outside this project or several at
 * once (--yes, or a confirm on a terminal).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { handle } from "../../src/lib/handle";
import { BIN, type Sandbox, sandbox } from "../kit";

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
  expect(r.stdout).toContain(`Forgot ${handle(id)} (project alpha)`);
  expect(exists(id, a)).toBe(false);
});

test("an entry of another project needs --yes; nothing is deleted without it", () => {
  const id = remember("Beta uses the blue database", b);
  const r = sb.run(["forget", id], { cwd: a });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`${handle(id)} is in project beta, not this one: confirm with --yes`);
  expect(exists(id, b)).toBe(true);
  const ok = sb.run(["forget", id, "--yes"], { cwd: a });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain(`Forgot ${handle(id)} (project beta, not this one)`);
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
  expect(ok.stdout).toContain(`Forgot ${handle(one)} (project alpha)`);
  expect(ok.stdout).toContain(`Forgot ${handle(two)} (global)`);
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

test("forget is soft: the entry waits in state/trash (never indexed), `coffer trash` lists it, `coffer restore` brings it back", () => {
  const id = remember("Alpha's release checklist lives in docs/release.md", a, "--kind", "convention");
  const r = sb.run(["forget", id], { cwd: a });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`coffer restore ${handle(id)}`);
  expect(exists(id, a)).toBe(false);
  expect(sb.run(["recall", "release checklist", "--json"], { cwd: a }).json().hits).toEqual([]);
  // the file sits in state/trash, outside memory/ (so sync never carries it)
  const trashed = (readdirSync(join(sb.cofferHome, "state", "trash"), { recursive: true }) as string[]).filter((f) =>
    f.endsWith(`${id}.md`),
  );
  expect(trashed).toHaveLength(1);
  expect(
    (readdirSync(join(sb.cofferHome, "memory"), { recursive: true }) as string[]).some((f) => f.includes(id)),
  ).toBe(false);
  // a full reindex does not bring it back either
  expect(sb.run(["reindex"], { cwd: a }).code).toBe(0);
  expect(exists(id, a)).toBe(false);

  const list = sb.run(["trash"], { cwd: a });
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(
    new RegExp(`^${handle(id)} +\\d{4}-\\d\\d-\\d\\d +alpha +convention +Alpha's release checklist`, "m"),
  );
  expect(list.stderr).toContain("30 days");
  const j = sb.run(["trash", "--json"], { cwd: a }).json();
  expect(j.items.find((i: any) => i.id === id)).toMatchObject({ kind: "convention", scope_label: "alpha" });

  const back = sb.run(["restore", id.slice(0, 20)], { cwd: b });
  expect(back.code).toBe(0);
  expect(back.stdout).toContain(`Restored ${handle(id)} (project alpha)`);
  expect(sb.run(["show", id, "--json"], { cwd: a }).json().body).toBe(
    "Alpha's release checklist lives in docs/release.md",
  );
  expect(
    sb
      .run(["recall", "release checklist", "--json"], { cwd: a })
      .json()
      .hits.map((h: any) => h.id),
  ).toEqual([id]);
  expect(
    sb
      .run(["trash", "--json"])
      .json()
      .items.some((i: any) => i.id === id),
  ).toBe(false);
  expect(sb.run(["restore", id]).code).toBe(1);
});

test("trash older than 30 days is purged", () => {
  const id = remember("A note from long ago", a);
  expect(sb.run(["forget", id], { cwd: a }).code).toBe(0);
  const meta = (readdirSync(join(sb.cofferHome, "state", "trash"), { recursive: true }) as string[]).find((f) =>
    f.endsWith(`${id}.json`),
  )!;
  const file = join(sb.cofferHome, "state", "trash", meta);
  const item = JSON.parse(readFileSync(file, "utf8"));
  writeFileSync(file, JSON.stringify({ ...item, deleted: "2020-01-01T00:00:00Z" }));
  expect(
    sb
      .run(["trash", "--json"])
      .json()
      .items.some((i: any) => i.id === id),
  ).toBe(false);
  expect(existsSync(file)).toBe(false);
});

test("MCP coffer__forget is soft too (the HTTP delete runs the same tool)", async () => {
  const id = remember("Beta's MCP-forgotten note", b);
  const req = (msg: object) => `${JSON.stringify(msg)}\n`;
  const p = Bun.spawn([BIN, "serve", "--stdio"], {
    cwd: b,
    env: sb.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  p.stdin.write(
    req({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }) +
      req({ jsonrpc: "2.0", method: "notifications/initialized" }) +
      req({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "coffer__forget", arguments: { id } } }),
  );
  p.stdin.end();
  const out = await new Response(p.stdout).text();
  await p.exited;
  expect(out).toContain('"id":2');
  expect(exists(id, b)).toBe(false);
  expect(
    sb
      .run(["trash", "--json"])
      .json()
      .items.some((i: any) => i.id === id),
  ).toBe(true);
  expect(sb.run(["restore", id]).code).toBe(0);
  expect(exists(id, b)).toBe(true);
});

test("an id prefix that matches several entries says so and lists a few", () => {
  const fresh = sandbox("coffer-ambiguous-");
  try {
    const ids = Array.from(
      { length: 7 },
      (_, i) => fresh.run(["remember", `Ambiguity note number ${i}`, "--json"]).json().id as string,
    );
    const prefix = ids[0]!.slice(0, 4);
    expect(ids.every((i) => i.startsWith(prefix))).toBe(true);
    const r = fresh.run(["show", prefix]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`ambiguous: 7 entries match "${prefix}"; give more characters`);
    expect(r.stderr).toContain("Ambiguity note number");
    expect(r.stderr).toContain("… and 2 more");
    // a unique prefix still works
    const unique = fresh.run(["show", ids[6]!, "--json"]).json();
    expect(unique.body).toBe("Ambiguity note number 6");
  } finally {
    fresh.cleanup();
  }
});
