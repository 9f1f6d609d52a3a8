/**
 * Keywords from the writer (issue 23): `coffer remember --keywords`, `coffer__remember` over MCP
 * stdio and HTTP, and the HTTP API's POST/PATCH take the other words someone would ask with. They
 * are scrubbed, stored in the entry's frontmatter, shown, and indexed (recall finds an entry by a
 * word only its keywords hold). A list that is not a list of short strings is refused with a clear
 * error, and nothing is written. (The web UI's own routes: test/web/api.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { httpClient, type Served, sandbox, startServe, stdioClient } from "../kit";

const sb = sandbox("coffer-keywords-");
let repo = "";
let served: Served;

const entriesDir = () => {
  const projects = join(sb.cofferHome, "memory", "projects");
  return join(projects, readdirSync(projects)[0]!, "entries");
};
const files = () => {
  try {
    return readdirSync(entriesDir()).filter((n) => n.endsWith(".md")).length;
  } catch {
    return 0;
  }
};
const fileOf = (id: string) => readFileSync(join(entriesDir(), `${id}.md`), "utf8");
const recallIds = (q: string) =>
  (sb.run(["recall", q, "--json"], { cwd: repo }).json().hits as { id: string }[]).map((h) => h.id);

/** Lists every write path must refuse, with a word of the message it must give. */
const BAD: [unknown, string][] = [
  ["database", "must be a list"],
  [[1, 2], "list of strings"],
  [Array.from({ length: 9 }, (_, i) => `word${i}`), "8"],
  [["fine", "x".repeat(61)], "60 characters"],
  [["fine", "one two three four five six seven"], "6 words"],
  [["fine", "a,b"], "comma"],
  [["fine", "   "], "invalid keyword"],
];

beforeAll(async () => {
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  served = await startServe(sb, repo, ["--no-worker"]);
});

afterAll(async () => {
  await served?.stop();
  sb.cleanup();
});

describe("coffer remember --keywords", () => {
  test("stored in the frontmatter, shown by show --json, found by recall through a keyword alone", () => {
    const r = sb.run(
      [
        "remember",
        "Sessions live in Redis with a 30 minute TTL",
        "--keywords",
        "cache, login timeout ,why am I logged out",
        "--json",
      ],
      { cwd: repo },
    );
    expect(r.code).toBe(0);
    const { id, keywords } = r.json();
    expect(keywords).toEqual(["cache", "login timeout", "why am I logged out"]);
    expect(fileOf(id)).toContain("keywords: [cache, login timeout, why am I logged out]");
    expect(sb.run(["show", id, "--json"], { cwd: repo }).json().keywords).toEqual(keywords);
    expect(recallIds("logged out")).toContain(id);
  });

  test("a near-duplicate adds its writer's keywords to the entry's own", () => {
    const r = sb.run(
      ["remember", "Sessions live in Redis with a 30 minute TTL", "--keywords", "Cache,session store", "--json"],
      { cwd: repo },
    );
    expect(r.json()).toMatchObject({
      status: "duplicate",
      keywords: ["cache", "login timeout", "why am I logged out", "session store"],
    });
  });

  test("a secret in a keyword is scrubbed like the text", () => {
    const token = `ghp_${"a1B2c3D4e5".repeat(4).slice(0, 36)}`;
    const r = sb.run(["remember", "The CI bot posts coverage", "--keywords", `coverage,${token}`, "--json"], {
      cwd: repo,
    });
    expect(r.code).toBe(0);
    expect(r.json().scrubbed).toContain("github");
    expect(fileOf(r.json().id)).not.toContain(token);
    expect(fileOf(r.json().id)).toContain('keywords: [coverage, "[redacted]"]');
  });

  test("bad lists are refused with a clear message, and nothing is written", () => {
    const before = files();
    for (const [arg, says] of [
      ["a,b,c,d,e,f,g,h,i", "9 items"],
      [`ok,${"x".repeat(61)}`, "60 characters"],
      ["ok,one two three four five six seven", "6 words"],
    ] as const) {
      const r = sb.run(["remember", "Builds run on Tuesdays", "--keywords", arg], { cwd: repo });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(says);
    }
    const empty = sb.run(["remember", "Builds run on Tuesdays", "--keywords", ""], { cwd: repo });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--keywords is empty");
    expect(files()).toBe(before);
  });

  test("--no-keywords still writes the entry, without keywords", () => {
    const r = sb.run(["remember", "Releases are tagged by CI", "--no-keywords", "--json"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(fileOf(r.json().id)).not.toContain("keywords:");
  });
});

describe("coffer__remember with keywords", () => {
  test("over stdio: stored, read back, recalled by a keyword alone", async () => {
    const mcp = await stdioClient(sb, repo);
    try {
      const r = await mcp.ok("remember", {
        text: "Payments go through Stripe Checkout, never raw card numbers",
        keywords: ["billing", "credit card form", "how do we charge customers"],
      });
      expect(r.status).toBe("created");
      expect((await mcp.ok("read", { id: r.id })).keywords).toEqual([
        "billing",
        "credit card form",
        "how do we charge customers",
      ]);
      expect((await mcp.ok("recall", { query: "billing" })).hits.map((h: any) => h.id)).toContain(r.id);
      const tools = (await mcp.client.listTools()).tools;
      const remember = tools.find((t) => t.name === "coffer__remember")!;
      expect(remember.description).toContain("keywords");
      const kw = (remember.inputSchema.properties as any).keywords;
      expect(kw).toMatchObject({ type: "array", maxItems: 8 });
      expect(kw.description).toContain("synonyms");
    } finally {
      await mcp.close();
    }
  });

  test("over stdio and HTTP: every bad list is an in-band error, and nothing is written", async () => {
    const before = files();
    for (const mcp of [await stdioClient(sb, repo), await httpClient(served)]) {
      try {
        for (const [keywords, says] of BAD) {
          const msg = await mcp.fail("remember", { text: "Deploys freeze on Fridays", keywords });
          expect(msg).toContain("keyword");
          expect(msg).toContain(says);
        }
      } finally {
        await mcp.close();
      }
    }
    expect(files()).toBe(before);
  });
});

describe("HTTP API", () => {
  test("POST and PATCH /api/v1/entries take keywords; a PATCH without them keeps the entry's own", async () => {
    const post = await served.api("/api/v1/entries", {
      method: "POST",
      body: { text: "Feature flags live in LaunchDarkly", keywords: ["toggles", "rollout switch"] },
    });
    expect(post.status).toBe(201);
    const { id, entry } = await post.json();
    expect(entry.keywords).toEqual(["toggles", "rollout switch"]);
    const retitled = await served.api(`/api/v1/entries/${id}`, { method: "PATCH", body: { title: "Flags" } });
    expect((await retitled.json()).keywords).toEqual(["toggles", "rollout switch"]);
    const patched = await served.api(`/api/v1/entries/${id}`, {
      method: "PATCH",
      body: { keywords: ["kill switch"] },
    });
    expect(patched.status).toBe(200);
    expect((await patched.json()).keywords).toEqual(["kill switch"]);
    expect(fileOf(id)).toContain("keywords: [kill switch]");
    expect(recallIds("kill switch")).toContain(id);
  });

  test("bad lists get 400 with the reason; the entry is unchanged and nothing is added", async () => {
    const { id } = await (
      await served.api("/api/v1/entries", { method: "POST", body: { text: "Logs ship to Loki" } })
    ).json();
    const before = files();
    const file = fileOf(id);
    for (const [keywords, says] of BAD) {
      const post = await served.api("/api/v1/entries", {
        method: "POST",
        body: { text: "Logs rotate daily", keywords },
      });
      expect(post.status).toBe(400);
      expect((await post.json()).error.message).toContain(says);
      const patch = await served.api(`/api/v1/entries/${id}`, { method: "PATCH", body: { keywords } });
      expect(patch.status).toBe(400);
      expect((await patch.json()).error.message).toContain("keyword");
    }
    expect(files()).toBe(before);
    expect(fileOf(id)).toBe(file);
  });
});
