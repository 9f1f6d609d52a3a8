/**
 * The use pass end to end (issue 41), through the binary: a Claude session receives two entries
 * from the prompt hook, its transcript shows the agent editing the file one of them names; once the
 * session has settled, `coffer show`, `coffer list --unused` and `coffer stats` say which was used.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Sandbox, sandbox } from "../kit";
import { A, B, usedSession } from "./_use";

let sb: Sandbox;
let repo: string;
let delivered: string[];

beforeAll(() => {
  sb = sandbox("coffer-use-");
  ({ repo, delivered } = usedSession(sb));
});

afterAll(() => sb.cleanup());

const show = (id: string) => sb.run(["show", id, "--json"], { cwd: repo }).json().use;

describe("use pass", () => {
  test("the prompt hook delivered both entries", () => {
    expect(delivered.sort()).toEqual([A.slice(-8), B.slice(-8)].sort());
  });

  test("nothing is judged while the session may still go on (distill.settle_minutes)", () => {
    expect(show(A)).toEqual({ delivered: 1, judged: 0, used: 0, unknown: 0 });
  });

  test("once settled: the entry whose file the agent edited is used, the other is not", () => {
    expect(sb.run(["config", "set", "distill.settle_minutes", "0"]).code).toBe(0);
    expect(show(A)).toEqual({ delivered: 1, judged: 1, used: 1, unknown: 0 });
    expect(show(B)).toEqual({ delivered: 1, judged: 1, used: 0, unknown: 0 });
    // Judged once: a second pass counts nothing twice.
    expect(show(A).judged).toBe(1);
  });

  test("coffer show says it in words", () => {
    const r = sb.run(["show", A, "--use"], { cwd: repo });
    expect(r.stdout).toContain("delivered once, used once");
    expect(sb.run(["show", B, "--use"], { cwd: repo }).stdout).toContain("delivered once, never used");
  });

  test("coffer list --unused lists the entry delivered and never used", () => {
    const j = sb.run(["list", "--unused", "--min", "1", "--json"], { cwd: repo }).json();
    expect(j.entries.map((e: { id: string }) => e.id)).toEqual([B]);
    expect(sb.run(["list", "--unused"], { cwd: repo }).stderr).toContain("No entry was delivered 5+ times");
  });

  test("coffer stats counts use per entry and per kind", () => {
    const s = sb.run(["stats", "--json"], { cwd: repo }).json();
    expect(s.use.judged).toBe(2);
    expect(s.use.used).toBe(1);
    expect(s.use.by_kind).toEqual(
      expect.arrayContaining([
        { kind: "gotcha", judged: 1, used: 1 },
        { kind: "convention", judged: 1, used: 0 },
      ]),
    );
    expect(sb.run(["stats"], { cwd: repo }).stdout).toContain("Used by the agent: 1 of 2 judged deliveries (50%)");
  });
});
