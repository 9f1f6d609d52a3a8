import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox } from "../kit";

const sb = sandbox();
afterAll(() => sb.cleanup());

function roundTrip(cwd: string, scope: "global" | "project") {
  const rem = sb.run(
    [
      "remember",
      "The release goes out with make release, never with git push --tags",
      "--kind",
      "convention",
      "--tags",
      "release,ci",
      "--json",
    ],
    { cwd },
  );
  expect(rem.code).toBe(0);
  const { id, status } = rem.json();
  expect(status).toBe("created");
  expect(rem.json().scope).toBe(scope);

  const rec = sb.run(["recall", "release tags", "--json"], { cwd });
  expect(rec.code).toBe(0);
  const hit = rec.json().hits.find((h: any) => h.id === id);
  expect(hit).toMatchObject({
    id,
    kind: "convention",
    scope,
    title: "The release goes out with make release, never with git push --tags",
  });
  expect(hit.score).toBeGreaterThan(0);

  const show = sb.run(["show", id, "--json"], { cwd });
  expect(show.code).toBe(0);
  expect(show.json()).toMatchObject({
    id,
    kind: "convention",
    tags: ["release", "ci"],
    actor: "user",
    source: "cli",
    body: "The release goes out with make release, never with git push --tags",
  });
  const raw = sb.run(["show", id], { cwd }).stdout;
  expect(raw).toStartWith(`---\nid: ${id}\nkind: convention\n`);

  const gone = sb.run(["forget", id], { cwd });
  expect(gone.code).toBe(0);
  expect(
    sb
      .run(["recall", "release tags", "--json"], { cwd })
      .json()
      .hits.some((h: any) => h.id === id),
  ).toBe(false);
  const after = sb.run(["show", id], { cwd });
  expect(after.code).toBe(1);
  expect(after.stderr).toContain(`no entry with id "${id}"`);
  return id;
}

describe("remember -> recall -> show -> forget", () => {
  test("in the global scope (outside any repository)", () => {
    const id = roundTrip(sb.home, "global");
    expect(existsSync(join(sb.cofferHome, "memory/global/entries", `${id}.md`))).toBe(false);
  });

  test("in a project scope", () => {
    const repo = sb.repo("app", "https://github.com/acme/app.git");
    roundTrip(repo, "project");
    const projects = readdirSync(join(sb.cofferHome, "memory/projects"));
    expect(projects).toHaveLength(1);
    const projectMd = readFileSync(join(sb.cofferHome, "memory/projects", projects[0]!, "project.md"), "utf8");
    expect(projectMd).toContain('origin: "github.com/acme/app"');
    expect(projectMd).not.toContain(sb.root); // no machine paths in synced files
  });

  test("project recall also finds global entries; project hits rank first on ties", () => {
    const repo = sb.repo("lib", "git@github.com:acme/lib.git");
    const g = sb
      .run(["remember", "Rotate the signing keys every quarter", "--scope", "global", "--json"], { cwd: repo })
      .json();
    const p = sb.run(["remember", "Rotate the signing keys with scripts/rotate.sh", "--json"], { cwd: repo }).json();
    expect(g.scope).toBe("global");
    expect(p.scope).toBe("project");
    const hits = sb.run(["recall", "rotate signing keys", "--json"], { cwd: repo }).json().hits;
    expect(hits.map((h: any) => h.id)).toEqual([p.id, g.id]);
    const onlyGlobal = sb
      .run(["recall", "rotate signing keys", "--scope", "global", "--json"], { cwd: repo })
      .json().hits;
    expect(onlyGlobal.map((h: any) => h.id)).toEqual([g.id]);
    // Outside the repository only the global entry exists.
    const outside = sb.run(["recall", "rotate signing keys", "--json"]).json().hits;
    expect(outside.map((h: any) => h.id)).toEqual([g.id]);
  });

  test("the entry file has the SPEC frontmatter", () => {
    const { id } = sb
      .run([
        "remember",
        "Deploys need the VPN",
        "--title",
        "Deploy access",
        "--applies-to",
        "deploy/**,Makefile",
        "--json",
      ])
      .json();
    const text = readFileSync(join(sb.cofferHome, "memory/global/entries", `${id}.md`), "utf8");
    expect(text).toMatch(
      new RegExp(
        `^---\\nid: ${id}\\nkind: note\\ntitle: Deploy access\\ntags: \\[\\]\\napplies_to: \\["deploy/\\*\\*", "Makefile"\\]\\nactor: user\\nsource: cli\\ncreated: \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\nupdated: \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n---\\nDeploys need the VPN\\n$`,
      ),
    );
  });

  test("a near-duplicate refreshes the existing entry instead of adding one", () => {
    const a = sb.run(["remember", "Use   pnpm, never npm!", "--json"]).json();
    const b = sb.run(["remember", "use pnpm never npm", "--json"]).json();
    expect(b).toEqual({ id: a.id, scope: "global", status: "duplicate" });
    const files = readdirSync(join(sb.cofferHome, "memory/global/entries")).filter((f) => f.endsWith(".md"));
    expect(
      files.filter((f) =>
        readFileSync(join(sb.cofferHome, "memory/global/entries", f), "utf8")
          .toLowerCase()
          .includes("pnpm"),
      ),
    ).toHaveLength(1);
  });

  test("list shows newest first, filters by kind, and prints JSON", () => {
    const list = sb.run(["list", "--json"]).json();
    expect(list.total).toBeGreaterThan(1);
    const dates = list.entries.map((e: any) => e.updated);
    expect([...dates].sort().reverse()).toEqual(dates);
    const none = sb.run(["list", "--kind", "decision", "--json"]).json();
    expect(none).toEqual({ total: 0, entries: [] });
    expect(sb.run(["list", "--kind", "wish"]).code).toBe(2);
  });

  test("an id prefix works for show", () => {
    const { id } = sb.run(["remember", "Prefix lookups are handy", "--json"]).json();
    const r = sb.run(["show", id.slice(0, 20), "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().id).toBe(id);
  });

  test("grep mode finds literal and regex lines", () => {
    sb.run(["remember", "line one\nTODO(alice): wire the cache\nline three"]);
    const lit = sb.run(["recall", "wire the cache", "--mode", "grep", "--json"]).json().hits;
    expect(lit).toHaveLength(1);
    expect(lit[0]).toMatchObject({ line: 2, text: "TODO(alice): wire the cache" });
    const rx = sb.run(["recall", "/^TODO\\(\\w+\\)/", "--mode", "grep", "--json"]).json().hits;
    expect(rx.map((h: any) => h.text)).toEqual(["TODO(alice): wire the cache"]);
    const bad = sb.run(["recall", "/(/", "--mode", "grep"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("invalid regular expression");
  });
});
