/**
 * When an agent was linked is recorded as a date, never as "" (issue 36 item 17): the first
 * `coffer link claude` of a store found its own just-written hooks and recorded `linked_at: ""`.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox("coffer-linked-at-");
});
afterEach(() => sb.cleanup());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const agents = () =>
  JSON.parse(readFileSync(join(sb.cofferHome, "state", "agent-clis.json"), "utf8")).agents as {
    host: string;
    linked_at: string;
  }[];

test("the first coffer link claude records when", () => {
  expect(sb.run(["link", "claude"]).code).toBe(0);
  expect(agents()).toEqual([expect.objectContaining({ host: "claude", linked_at: expect.stringMatching(ISO) })]);
  expect(JSON.parse(readFileSync(join(sb.cofferHome, "state", "link.json"), "utf8")).linked_at.claude).toMatch(ISO);
});

test("an agent linked before the record existed gets its config's date, the one linked now today's", () => {
  expect(sb.run(["link", "claude"]).code).toBe(0);
  rmSync(join(sb.cofferHome, "state", "agent-clis.json")); // a store linked before the record
  expect(sb.run(["link", "gemini"]).code).toBe(0);
  const rows = agents();
  expect(rows.map((r) => r.host)).toEqual(["claude", "gemini"]);
  for (const r of rows) expect(r.linked_at).toMatch(ISO);
});
