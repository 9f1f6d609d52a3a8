/**
 * A closed pipe ends a command quietly: `coffer list | head -1` through a real shell pipeline,
 * with more output than a pipe buffer holds, exits 0 with no stack trace.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;

/** A ULID-shaped id (Crockford base32) that sorts by n. */
function fakeId(n: number): string {
  const abc = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let s = "";
  for (let x = n; s.length < 10; x = Math.floor(x / 32)) s = abc[x % 32] + s;
  return `01M8${s}ABCDEFGHJKMN`.slice(0, 26);
}

beforeAll(() => {
  sb = sandbox("coffer-pipe-");
  // 1,200 global entries written as files (the truth); the index builds itself on first read.
  const dir = join(sb.cofferHome, "memory", "global", "entries");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 1200; i++) {
    const id = fakeId(i);
    writeFileSync(
      join(dir, `${id}.md`),
      [
        "---",
        `id: ${id}`,
        "kind: fact",
        `title: Pipeline fact number ${i} about the heron importer and its batches`,
        "tags: [pipe]",
        "actor: user",
        "source: cli",
        "created: 2026-11-01T00:00:00Z",
        `updated: 2026-11-01T00:${String(i % 60).padStart(2, "0")}:00Z`,
        "---",
        `The heron importer batch ${i} needs the VPN and a warm cache; ${"detail ".repeat(20)}`,
        "",
      ].join("\n"),
    );
  }
  expect(sb.run(["reindex"]).code).toBe(0);
});
afterAll(() => sb.cleanup());

/** Both streams into one pipe (`2>&1 | head -1`): a notice written after the reader left ends quietly too. */
test("coffer list --limit 5 2>&1 | head -1 ends quietly (the notice goes to a closed pipe)", () => {
  const rc = join(sb.root, "rc2");
  for (let i = 0; i < 5; i++) {
    const p = Bun.spawnSync(["sh", "-c", `{ "$0" list --limit 5 2>&1; echo $? >"$1"; } | head -1`, BIN, rc], {
      env: sb.env,
      cwd: sb.home,
      stdout: "pipe",
    });
    expect(p.stdout.toString().split("\n").filter(Boolean)).toHaveLength(1);
    expect(readFileSync(rc, "utf8").trim()).toBe("0");
  }
});

/** Run `coffer <args> | head -1` in sh; coffer's own exit status and stderr come back through files. */
function headOne(args: string[]): { code: number; first: string; stderr: string } {
  const quoted = args.map((a) => `'${a}'`).join(" ");
  const err = join(sb.root, "err");
  const p = Bun.spawnSync(["sh", "-c", `{ "$0" ${quoted} 2>"$1"; echo $? >"$1.rc"; } | head -1`, BIN, err], {
    env: sb.env,
    cwd: sb.home,
    stdout: "pipe",
    stderr: "pipe",
  });
  return {
    code: Number(readFileSync(`${err}.rc`, "utf8").trim()),
    first: p.stdout.toString(),
    stderr: readFileSync(err, "utf8"),
  };
}

for (const args of [
  ["list", "--limit", "1000"],
  ["list", "--limit", "1000", "--json"],
  ["recall", "heron importer", "--limit", "100"],
  ["recall", "heron", "--limit", "100", "--json"],
  ["recall", "VPN", "--mode", "grep", "--limit", "1000"],
  ["list", "--limit", "5"],
]) {
  test(`coffer ${args.join(" ")} | head -1 ends quietly`, () => {
    const r = headOne(args);
    expect(r.first.split("\n").filter(Boolean)).toHaveLength(1);
    expect(r.stderr).not.toContain("EPIPE");
    expect(r.stderr).not.toContain("Bun v");
    expect(r.code).toBe(0);
  });
}
