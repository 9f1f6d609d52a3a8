import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox } from "../kit";

const sb = sandbox();
afterAll(() => sb.cleanup());
const entries = () => join(sb.cofferHome, "memory/global/entries");

describe("the index follows memory/", () => {
  test("a CJK entry is found by a CJK substring", () => {
    const { id } = sb.run(["remember", "部署流程：先在预发布环境验证，再推送到生产", "--json"]).json();
    for (const q of ["部署", "部署流程", "预发布", "生产"]) {
      const hits = sb.run(["recall", q, "--json"]).json().hits;
      expect(hits.map((h: any) => h.id)).toContain(id);
    }
    expect(sb.run(["recall", "流水线", "--json"]).json().hits).toHaveLength(0);
    // Japanese and mixed text
    const jp = sb.run(["remember", "デプロイ手順は make release を使う", "--json"]).json();
    expect(
      sb
        .run(["recall", "デプロイ", "--json"])
        .json()
        .hits.map((h: any) => h.id),
    ).toContain(jp.id);
  });

  test("English words match across inflections (stemming)", () => {
    const { id } = sb.run(["remember", "The scheduler retries failed deployments twice", "--json"]).json();
    expect(
      sb
        .run(["recall", "deployment retry", "--json"])
        .json()
        .hits.map((h: any) => h.id),
    ).toContain(id);
  });

  test("hand-editing an entry file in place is reflected in the next recall", () => {
    const { id } = sb.run(["remember", "The staging database is called aardvark", "--json"]).json();
    const file = join(entries(), `${id}.md`);
    const text = readFileSync(file, "utf8").replaceAll("aardvark", "bumblebee");
    writeFileSync(file, text); // in place: the directory mtime does not move
    expect(sb.run(["recall", "aardvark", "--json"]).json().hits).toHaveLength(0);
    const hits = sb.run(["recall", "bumblebee", "--json"]).json().hits;
    expect(hits.map((h: any) => h.id)).toEqual([id]);
  });

  test("a file added or removed by hand is picked up", () => {
    const id = "01HANDWRITTEN0000000000000";
    writeFileSync(
      join(entries(), `${id}.md`),
      "---\nkind: gotcha\ntitle: Hand written\n---\nThe cron job skips leap days.\n",
    );
    const hits = sb.run(["recall", "leap days", "--json"]).json().hits;
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ id, kind: "gotcha", title: "Hand written" });
    unlinkSync(join(entries(), `${id}.md`));
    expect(sb.run(["recall", "leap days", "--json"]).json().hits).toHaveLength(0);
  });

  test("a file without frontmatter is still an entry; a broken one is skipped with a notice", () => {
    writeFileSync(join(entries(), "plain-note.md"), "Plain markdown about walruses\n");
    expect(
      sb
        .run(["recall", "walruses", "--json"])
        .json()
        .hits.map((h: any) => h.id),
    ).toEqual(["plain-note"]);
    writeFileSync(join(entries(), "broken.md"), "---\ntitle: [unclosed\n---\nnarwhal\n");
    const r = sb.run(["recall", "narwhal", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().hits).toHaveLength(0);
    expect(r.stderr).toContain("broken.md");
    unlinkSync(join(entries(), "broken.md"));
  });

  test("deleting index.db loses nothing; the next command rebuilds it and says so", () => {
    const before = sb.run(["list", "--json"]).json().total;
    rmSync(join(sb.cofferHome, "state/index.db"));
    rmSync(join(sb.cofferHome, "state/index.db-wal"), { force: true });
    rmSync(join(sb.cofferHome, "state/index.db-shm"), { force: true });
    const r = sb.run(["recall", "bumblebee", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/index\.db was missing; rebuilt it from memory\/ \(\d+ entries\)/);
    expect(r.json().hits).toHaveLength(1);
    expect(sb.run(["list", "--json"]).json().total).toBe(before);
  });

  test("a corrupt index.db is detected and rebuilt, never a crash", () => {
    const before = sb.run(["list", "--json"]).json().total;
    const db = join(sb.cofferHome, "state/index.db");
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    writeFileSync(db, Buffer.alloc(8192, 0x5a)); // not a database at all
    const r = sb.run(["recall", "bumblebee", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/rebuilt it from memory\//);
    expect(r.json().hits).toHaveLength(1);
    expect(sb.run(["list", "--json"]).json().total).toBe(before);

    // A valid header with garbage pages further in.
    const good = readFileSync(db);
    const bad = Buffer.from(good);
    bad.fill(0xff, 4096, Math.min(bad.length, 4096 * 4));
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    writeFileSync(db, bad);
    const r2 = sb.run(["list", "--json"]);
    expect(r2.code).toBe(0);
    expect(r2.json().total).toBe(before);
  });

  test("reindex rebuilds everything and reports the count", () => {
    const total = sb.run(["list", "--json", "--limit", "1000"]).json().total;
    const r = sb.run(["reindex", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().entries).toBe(total);
    expect(r.stderr).toBe(""); // no progress bar on a pipe
  });
});
