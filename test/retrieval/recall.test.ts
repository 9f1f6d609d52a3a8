/**
 * Recall (issue 24): the query analysis routing uses (stems, the vocabulary, keywords), ranked by
 * relevance across scopes (more and rarer matched terms first, a title holding every term above
 * partial matches, then BM25, recency, project before global), and `--explain`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox } from "../kit";

const sb = sandbox("coffer-recall-");
afterAll(() => sb.cleanup());
let repo = "";
let projectDir = "";

const stamp = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
/** An entry file written as an import would (straight into memory/, indexed by the next command). */
function entryFile(dir: string, id: string, fields: { title: string; body: string; keywords?: string[]; i: number }) {
  const kw = fields.keywords ? `keywords: [${fields.keywords.join(", ")}]\n` : "";
  writeFileSync(
    join(dir, `${id}.md`),
    `---\nid: ${id}\nkind: note\ntitle: ${fields.title}\ntags: []\n${kw}actor: user\nsource: import\ncreated: ${stamp(fields.i)}\nupdated: ${stamp(fields.i)}\n---\n${fields.body}\n`,
  );
}
const recallTitles = (q: string, extra: string[] = []) => {
  const r = sb.run(["recall", q, "--json", ...extra], { cwd: repo });
  expect(r.code).toBe(0);
  return r.json().hits.map((h: { title: string }) => h.title) as string[];
};

beforeAll(() => {
  repo = sb.repo("zoo", "git@github.com:acme/zoo.git");
  expect(sb.run(["remember", "The zoo keeps its notes here"], { cwd: repo }).code).toBe(0);
  projectDir = join(sb.cofferHome, "memory", "projects", readdirSync(join(sb.cofferHome, "memory", "projects"))[0]!);
  const dir = join(projectDir, "entries");
  mkdirSync(dir, { recursive: true });
  // 201 imported entries that differ only in their number, like a bulk import of observations.
  for (let i = 0; i <= 200; i++)
    entryFile(dir, `01QUOKKA${String(i).padStart(18, "0")}`, {
      title: `Quokka observation ${i}`,
      body: `Quokka observation ${i}: seen near the enclosure, behaviour logged.`,
      i,
    });
}, 120_000);

describe("ranking", () => {
  test("the entry whose title holds every query term comes first (Quokka observation 42)", () => {
    const titles = recallTitles("Quokka observation 42");
    expect(titles[0]).toBe("Quokka observation 42");
    expect(titles).toHaveLength(5);
  });

  test("entries tied on every match come newest first, page after page (201 tied on 'quokka enclosure')", () => {
    expect(recallTitles("quokka enclosure")).toEqual([200, 199, 198, 197, 196].map((i) => `Quokka observation ${i}`));
    expect(recallTitles("quokka enclosure", ["--limit", "12"]).slice(10)).toEqual([
      "Quokka observation 190",
      "Quokka observation 189",
    ]);
    // With the full text of each hit, not only the title the order read.
    const hit = sb.run(["recall", "quokka enclosure", "--json", "--limit", "1"], { cwd: repo }).json().hits[0];
    expect(hit.text).toBe("Quokka observation 200: seen near the enclosure, behaviour logged.");
  });

  test("make release: the entry matching both words ranks above one matching one", () => {
    // The partial match is the better BM25 hit for "release" alone (short, the word thrice).
    expect(
      sb.run(["remember", "Release notes: each release gets a release section", "--title", "Release notes"], {
        cwd: repo,
      }).code,
    ).toBe(0);
    expect(
      sb.run(
        [
          "remember",
          "We ship a new version of the zoo app by running make release from a clean main branch",
          "--title",
          "Shipping the zoo app",
        ],
        {
          cwd: repo,
        },
      ).code,
    ).toBe(0);
    expect(recallTitles("make release").slice(0, 2)).toEqual(["Shipping the zoo app", "Release notes"]);
  });

  test("project and global are ranked on one scale, not fused by rank: a full match in global beats a partial one in the project", () => {
    expect(sb.run(["remember", "Otters nap after lunch", "--scope", "global"], { cwd: repo }).code).toBe(0);
    expect(sb.run(["remember", "Otters eat fish"], { cwd: repo }).code).toBe(0);
    expect(recallTitles("otters nap")[0]).toBe("Otters nap after lunch");
  });
});

describe("one query analysis with the hook", () => {
  test('a stemmed and a vocabulary paraphrase are found (README: recall "package manager")', () => {
    expect(sb.run(["remember", "Use pnpm, never npm, in this repo"], { cwd: repo }).code).toBe(0);
    expect(sb.run(["remember", "Deploys run from the ci pipeline on merge"], { cwd: repo }).code).toBe(0);
    expect(recallTitles("package manager")[0]).toBe("Use pnpm, never npm, in this repo");
    expect(recallTitles("which package manager do we use?")[0]).toBe("Use pnpm, never npm, in this repo");
    expect(recallTitles("deploying")[0]).toBe("Deploys run from the ci pipeline on merge");
    const text = sb.run(["recall", "package manager"], { cwd: repo });
    expect(text.stdout).toContain("Use pnpm, never npm, in this repo");
    expect(text.stdout).not.toContain("Nothing found");
  });

  test("a keyword-only match is found", () => {
    entryFile(join(projectDir, "entries"), "01KEYWORDONLY0000000000000", {
      title: "Nightly snapshot",
      body: "The database is copied to cold storage every night at 02:00.",
      keywords: ["offsite vault", "restore point"],
      i: 500,
    });
    const hits = sb.run(["recall", "offsite vault", "--json", "--explain"], { cwd: repo }).json().hits;
    expect(hits[0].title).toBe("Nightly snapshot");
    expect(hits[0].explain.terms).toEqual([
      { term: "offsite", field: "keywords" },
      { term: "vault", field: "keywords" },
    ]);
  });

  test("--explain says which terms matched, in which field, through which alternative", () => {
    const out = sb.run(["recall", "which package manager", "--explain"], { cwd: repo }).stdout;
    expect(out).toContain("Use pnpm, never npm, in this repo");
    expect(out).toMatch(/matched 1\/1 terms/);
    expect(out).toMatch(/"package manager" in title through "(pnpm|npm)" \(vocabulary\)/);
    const quokka = sb.run(["recall", "Quokka observation 42", "--explain", "--limit", "2"], { cwd: repo }).stdout;
    expect(quokka).toContain("the title is the query");
    expect(quokka).toContain('"42" in title');
    expect(quokka).toContain('not matched: "42"'); // the runner-up lacks the number
    const stem = sb.run(["recall", "deploying", "--explain", "--json"], { cwd: repo }).json().hits[0].explain;
    expect(stem.terms).toEqual([{ term: "deploying", field: "title", stemmed: true }]);
    // Without --explain, --json stays as it was: no explain field.
    expect(sb.run(["recall", "deploying", "--json"], { cwd: repo }).json().hits[0].explain).toBeUndefined();
  });

  test("an irregular verb's other forms count as the word itself (freeze / froze, stolen / stole)", () => {
    expect(
      sb.run(["remember", "Last June the platform team froze the schema before the audit"], { cwd: repo }).code,
    ).toBe(0);
    expect(sb.run(["remember", "Someone stole the staging token from a pasted log"], { cwd: repo }).code).toBe(0);
    const froze = sb
      .run(["recall", "when did they freeze the schema", "--json", "--explain"], { cwd: repo })
      .json().hits;
    expect(froze[0].text).toContain("froze the schema");
    expect(froze[0].explain.terms).toContainEqual({
      term: "freeze",
      field: "title",
      via: "froze",
      source: "inflection",
    });
    expect(recallTitles("was a staging token stolen")[0]).toContain("stole the staging token");
  });

  test("a path the query names finds the entries whose applies_to covers it", () => {
    expect(
      sb.run(["remember", "Handlers return problem+json errors", "--applies-to", "src/api/**"], { cwd: repo }).code,
    ).toBe(0);
    const hits = sb.run(["recall", "tidy up src/api/users.ts", "--json", "--explain"], { cwd: repo }).json().hits;
    expect(hits[0].title).toBe("Handlers return problem+json errors");
    expect(hits[0].explain.terms).toContainEqual({ term: "src/api/users.ts", field: "applies_to" });
  });
});

describe("a question hit brings its answer", () => {
  // A captured exchange, one entry per turn: the question holds the query's words, the answer
  // written right after it holds what was asked for, in none of the query's words.
  const turn = (id: string, body: string, i: number, dir = join(projectDir, "entries")) =>
    entryFile(dir, id, { title: JSON.stringify(body.slice(0, 60)), body, i: 10_000 + i });
  beforeAll(() => {
    turn("01TURN000000000000000000001", "Mel: What got you into woodturning, Caro?", 0);
    turn("01TURN000000000000000000002", "Caro: My grandfather's lathe in the garage, every summer.", 1);
    turn("01TURN000000000000000000003", "Mel: That is lovely. Is dinner at eight?", 2);
    // Written two days after its question: not its answer.
    turn("01TURN000000000000000000004", "Mel: Which knot do sailors use for mooring?", 3);
    turn("01TURN000000000000000000005", "Caro: Roasted peppers with feta, as always.", 3 * 24 * 60);
    // A URL's `?` asks nothing.
    turn(
      "01TURN000000000000000000006",
      "Docs at https://wiki.example/kilns?id=glaze for kiln glaze temperatures",
      4 * 24 * 60,
    );
    turn("01TURN000000000000000000007", "Caro: unrelated note about parking", 4 * 24 * 60 + 1);
  });

  test("the entry written right after a matching question comes just below it, and --explain says why", () => {
    const hits = sb.run(["recall", "what got you into woodturning", "--json", "--explain"], { cwd: repo }).json().hits;
    expect(hits[0].text).toContain("What got you into woodturning");
    expect(hits[1].text).toContain("grandfather's lathe");
    expect(hits[1].explain.answers).toBe("01TURN000000000000000000001");
    expect(hits[1].explain.matched).toBe(0);
  });

  test("an entry written long after the question, or after a URL's `?`, is not brought", () => {
    const sailors = sb.run(["recall", "sailors mooring knot", "--json"], { cwd: repo }).json().hits;
    expect(sailors[0].text).toContain("mooring");
    expect(sailors.map((h: { text: string }) => h.text).join("\n")).not.toContain("Roasted peppers");
    const kiln = sb.run(["recall", "kiln glaze temperatures", "--json"], { cwd: repo }).json().hits;
    expect(kiln[0].text).toContain("kiln glaze");
    expect(kiln.map((h: { text: string }) => h.text).join("\n")).not.toContain("parking");
  });
});

describe("a new user's small store (issue 37 item 13)", () => {
  test("'which database do we use' puts the database decision above entries sharing only 'use'", () => {
    const small = sandbox("coffer-recall-small-");
    try {
      const dir = small.repo("shop", "git@github.com:acme/shop.git");
      for (const [text, kind] of [
        ["Use pnpm, never npm, in this repo", "convention"],
        ["We chose PostgreSQL 16 as the primary database for orders", "decision"],
        ["Releases go out with make release", "convention"],
        ["Use 2 spaces for indentation", "preference"],
        ["Tests run with vitest", "convention"],
        ["The API is deployed on Fly.io", "fact"],
      ])
        expect(small.run(["remember", text!, "--kind", kind!], { cwd: dir }).code).toBe(0);
      const hits = small.run(["recall", "which database do we use", "--json"], { cwd: dir }).json().hits as {
        title: string;
      }[];
      expect(hits[0]!.title).toContain("PostgreSQL");
    } finally {
      small.cleanup();
    }
  });
});
