import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { sandbox } from "../kit";

const sb = sandbox();
afterAll(() => sb.cleanup());

describe("concurrent writers", () => {
  test("20 coffer remember processes at once -> 20 entries on disk and in the index, no error output", async () => {
    const repo = sb.repo("busy", "https://github.com/acme/busy.git");
    const procs = Array.from({ length: 20 }, (_, i) =>
      sb.spawn(["remember", `Concurrent fact number ${i}: the ${i}th service listens on port ${9000 + i}`, "--json"], {
        cwd: repo,
      }),
    );
    const results = await Promise.all(
      procs.map(async (p) => ({
        code: await p.exited,
        out: await new Response(p.stdout).text(),
        err: await new Response(p.stderr).text(),
      })),
    );
    for (const r of results) {
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).status).toBe("created");
    }
    const ids = new Set(results.map((r) => JSON.parse(r.out).id));
    expect(ids.size).toBe(20);
    const project = sb.run(["status", "--json"], { cwd: repo }).json().project.id;
    const files = readdirSync(join(sb.cofferHome, "memory/projects", project, "entries"));
    expect(files.filter((f) => f.endsWith(".md")).sort()).toEqual([...ids].map((id) => `${id}.md`).sort());
    expect(files.filter((f) => f.endsWith(".tmp"))).toEqual([]);
    const listed = sb.run(["list", "--json", "--limit", "100"], { cwd: repo }).json();
    expect(listed.total).toBe(20);
    expect(new Set(listed.entries.map((e: any) => e.id))).toEqual(ids);
    // In the index, not just on disk: FTS finds each one.
    const hits = sb
      .run(["recall", "concurrent fact service listens", "--limit", "50", "--json"], { cwd: repo })
      .json().hits;
    expect(hits).toHaveLength(20);
  });

  test("kill -9 in the middle of writes leaves no partial entry and the index heals", async () => {
    const big = "x".repeat(7000);
    for (let round = 0; round < 10; round++) {
      const p = sb.spawn(["remember", `${big} round ${round}`]);
      await Bun.sleep(3 + round * 2);
      p.kill(9);
      await p.exited;
    }
    const dir = join(sb.cofferHome, "memory/global/entries");
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith(".md"));
    } catch {}
    const listed = sb.run(["list", "--json", "--limit", "100"]);
    expect(listed.code).toBe(0);
    // Every file on disk is a complete entry that the index knows; nothing half-written.
    expect(listed.json().total).toBe(files.length);
    for (const f of files) {
      const show = sb.run(["show", f.slice(0, -3), "--json"]);
      expect(show.code).toBe(0);
      expect(show.json().body).toMatch(/^x{7000} round \d$/);
    }
  });
});
