/**
 * Fault-injection suite, hostile input to the write paths (issue 25): fields that reach an entry's
 * frontmatter from an import, the CLI, MCP or HTTP. Each value is validated for what it is
 * (timestamps as timestamps, ids as ids) and every scalar is written so that it reads back as the
 * same string: no value can add a line to the frontmatter, end it, or touch another entry.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../helpers";
import { record } from "./_fault";

let sb: Sandbox;
let globalDir: string;
let cases = 0;

beforeAll(() => {
  sb = sandbox("coffer-fault-input-");
  expect(sb.run(["remember", "Deploy with make release, never git push --tags", "--scope", "global"]).code).toBe(0);
  globalDir = join(sb.cofferHome, "memory", "global", "entries");
});
afterAll(() => {
  record("input.cases", cases);
  sb.cleanup();
});

function globalFiles(): Map<string, string> {
  return new Map(readdirSync(globalDir).map((n) => [n, readFileSync(join(globalDir, n), "utf8")]));
}

const HEADER = JSON.stringify({ type: "coffer-export", version: 1 });

function exportLine(fields: Record<string, unknown>): string {
  return JSON.stringify({
    type: "entry",
    scope: "global",
    id: "01JMP00000000000000000000R",
    kind: "note",
    title: "Deploy with make release",
    tags: [],
    applies_to: [],
    actor: "user",
    source: "cli",
    created: "2026-01-01T00:00:00Z",
    updated: "2026-01-01T00:00:00Z",
    body: "Deploy with make release, never git push --tags",
    ...fields,
  });
}

test("import coffer: a timestamp that is not one is refused, and no other entry changes", () => {
  const before = globalFiles();
  const injections = [
    { updated: "9999-12-31T00:00:00Z\nstatus: superseded\n---\nHIJACKED BODY" },
    { created: "2026-01-01T00:00:00Z\nkind: gotcha" },
    { updated: "not a date" },
    { id: "01JMP00000000000000000000R\nstatus: superseded" },
  ];
  for (const fields of injections) {
    const file = join(sb.root, "evil.jsonl");
    writeFileSync(file, `${HEADER}\n${exportLine(fields)}\n`);
    const r = sb.run(["import", "coffer", file]);
    cases++;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 2: (updated|created|id)/);
    expect(globalFiles()).toEqual(before);
  }
});

test("every scalar a write path takes reads back as itself (no extra frontmatter lines)", () => {
  const file = join(sb.root, "odd.jsonl");
  const odd = {
    id: "01JQDD00000000000000000000",
    body: "An entry with odd metadata values",
    title: "Odd: values # here",
    actor: "agent:x\nstatus: superseded",
    origin_session: "s1\n---\nINJECTED",
    imported_from: "x: y\nkind: gotcha",
  };
  writeFileSync(file, `${HEADER}\n${exportLine(odd)}\n`);
  const r = sb.run(["import", "coffer", file, "--json"]);
  cases++;
  expect(r.code).toBe(0);
  const shown = sb.run(["show", odd.id, "--json"]).json();
  expect(shown.status).toBeUndefined();
  expect(shown.kind).toBe("note");
  expect(shown.body).toBe(odd.body);
  expect(shown.origin_session).toBe(odd.origin_session);
  expect(shown.imported_from).toBe(odd.imported_from);
  expect(readFileSync(join(globalDir, `${odd.id}.md`), "utf8")).not.toContain("\nINJECTED");
});
