/**
 * The web UI's server side without a browser: the one-time login, the cookie + page key + origin
 * checks on every /api route, and the UI routes' answers (filters, paging, validation, bulk,
 * scopes, rules bundle, inbox preview cancel) against the compiled `coffer serve`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox, writeTeamProposal } from "../kit";
import { newLoginUrl, type ServedUi, serveUi } from "./_browser";

const sb = sandbox("coffer-webapi-");
let repo = "";
let projectId = "";
let served: ServedUi;
let cookie = "";
let key = "";

/** A call as the page makes it: cookie, the page's key on every call, own Origin on writes. */
async function ui(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const method = init.method ?? "GET";
  const headers: Record<string, string> = { cookie, "x-coffer-key": key, ...init.headers };
  if (method !== "GET") headers.origin ??= served.url;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(served.url + path, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** What the login page does: GET shows the page (the code stays good), its POST trades the code. */
async function login(url: string): Promise<{ cookie: string; key: string }> {
  const page = await fetch(url, { redirect: "manual" });
  expect(page.status).toBe(200);
  expect(page.headers.get("set-cookie")).toBeNull();
  expect(await page.text()).toContain("<script");
  const res = await fetch(url, { method: "POST", headers: { origin: served.url } });
  expect(res.status).toBe(200);
  const set = res.headers.get("set-cookie")!;
  expect(set).toContain("HttpOnly");
  expect(set).toContain("SameSite=Strict");
  expect(set).toContain("Path=/");
  const body = (await res.json()) as { key: string };
  expect(body.key).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  return { cookie: set.split(";")[0]!, key: body.key };
}

beforeAll(async () => {
  repo = sb.repo("gadgets", "git@github.com:acme/gadgets.git");
  for (let i = 0; i < 60; i++) {
    const r = sb.run(
      ["remember", `Gadget fact number ${i}: the widget ${i % 2 ? "spins" : "hums"}`, "--tags", `t${i % 3}`],
      {
        cwd: repo,
      },
    );
    if (r.code !== 0) throw new Error(r.stderr);
  }
  sb.run(["remember", "Use tabs in Makefiles", "--scope", "global", "--kind", "convention"], { cwd: repo });
  projectId = readdirSync(join(sb.cofferHome, "memory", "projects"))[0]!;
  served = await serveUi(sb, repo);
  ({ cookie, key } = await login(served.loginUrl));
  expect((await ui("/api/v1/ui/session")).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await served?.stop();
  sb.cleanup();
});

describe("login and checks", () => {
  test("the login code works once; unknown codes and missing cookies get nothing", async () => {
    expect((await fetch(served.loginUrl, { redirect: "manual" })).status).toBe(403);
    expect((await fetch(served.loginUrl, { method: "POST", headers: { origin: served.url } })).status).toBe(403);
    expect((await fetch(`${served.url}/login`, { redirect: "manual" })).status).toBe(403);
    // Only the page's own POST trades a code: not another origin, not a client without Origin.
    const fresh = await newLoginUrl(served);
    for (const headers of [{ origin: "http://127.0.0.1:1" }, {}] as Record<string, string>[]) {
      const r = await fetch(fresh, { method: "POST", headers });
      expect(r.status).toBe(403);
      expect(r.headers.get("set-cookie")).toBeNull();
    }
    expect((await login(fresh)).key).not.toBe(key);
    const anon = await fetch(`${served.url}/api/v1/ui/entries`);
    expect(anon.status).toBe(401);
    const wrong = await fetch(`${served.url}/api/v1/ui/entries`, { headers: { cookie: `${cookie}x` } });
    expect(wrong.status).toBe(401);
    // /mcp never accepts the cookie.
    const mcp = await fetch(`${served.url}/mcp`, {
      method: "POST",
      headers: { cookie, "x-coffer-key": key, origin: served.url },
    });
    expect(mcp.status).toBe(401);
    // The stdout line names the login URL, never the token.
    expect(served.stdout()).not.toContain(served.token);
  });

  test("a replayed cookie alone gets nothing: no session, no reads, no writes (any Origin it claims)", async () => {
    const global = () => readdirSync(join(sb.cofferHome, "memory", "global", "entries")).length;
    const before = global();
    for (const k of ["", "guess", `${key}x`]) {
      const session = await ui("/api/v1/ui/session", { headers: { "x-coffer-key": k } });
      expect(session.status).toBe(401);
      expect(JSON.stringify(session.body)).not.toContain(key);
      expect((await ui("/api/v1/ui/entries", { headers: { "x-coffer-key": k } })).status).toBe(401);
      expect((await ui("/api/v1/entries?scope=global", { headers: { "x-coffer-key": k } })).status).toBe(401);
      const write = await ui("/api/v1/ui/entries", {
        method: "POST",
        body: { scope: "global", kind: "convention", text: "PLANTED convention" },
        headers: { "x-coffer-key": k, "x-coffer-csrf": k },
      });
      expect(write.status).toBe(401);
    }
    // Nor does a logout replayed without the page's Origin end the session.
    const out = await fetch(`${served.url}/logout`, { method: "POST", headers: { cookie }, redirect: "manual" });
    expect(out.status).toBe(403);
    expect((await ui("/api/v1/ui/session")).status).toBe(200);
    // Nor with a forged Origin: a logout needs the page's key like any other call.
    for (const k of [undefined, "", "guess", `${key}x`]) {
      const forged = await fetch(`${served.url}/logout`, {
        method: "POST",
        headers: { cookie, origin: served.url, ...(k === undefined ? {} : { "x-coffer-key": k }) },
        redirect: "manual",
      });
      expect(forged.status).toBe(403);
      expect(forged.headers.get("set-cookie")).toBeNull();
      expect((await ui("/api/v1/ui/session")).status).toBe(200);
    }
    expect(global()).toBe(before);
  });

  test("a foreign Origin or a cross-site fetch is refused even with the cookie and the key", async () => {
    const foreign = await ui("/api/v1/ui/entries", {
      method: "POST",
      body: { scope: "global", text: "x2" },
      headers: { origin: "http://127.0.0.1:1" },
    });
    expect(foreign.status).toBe(403);
    const site = await ui("/api/v1/ui/entries", { headers: { "sec-fetch-site": "cross-site" } });
    expect(site.status).toBe(403);
    const evilHost = await fetch(`${served.url}/`, { headers: { host: "evil.example" } });
    expect(evilHost.status).toBe(403);
    // The existing API takes the cookie too, with the same checks.
    const list = await ui("/api/v1/entries?scope=global");
    expect(list.status).toBe(200);
    const del = await ui(`/api/v1/entries/${list.body.entries[0].id}`, {
      method: "DELETE",
      headers: { "x-coffer-key": "nope" },
    });
    expect(del.status).toBe(401);
    expect(JSON.stringify(readdirSync(join(sb.cofferHome, "memory", "global", "entries")))).toContain(
      list.body.entries[0].id,
    );
  });

  test("a new login link needs the bearer token; logout ends the session", async () => {
    expect((await ui("/api/v1/ui/login-link")).status).toBe(403);
    const url = await newLoginUrl(served);
    const s2 = await login(url);
    const second = s2.cookie;
    const as2 = { cookie: second, "x-coffer-key": s2.key };
    // Another origin's form post, or a GET, does not log out.
    const foreign = await fetch(`${served.url}/logout`, {
      method: "POST",
      headers: { cookie: second, origin: "http://127.0.0.1:1" },
      redirect: "manual",
    });
    expect(foreign.status).toBe(403);
    expect((await fetch(`${served.url}/logout`, { headers: { cookie: second }, redirect: "manual" })).status).toBe(403);
    expect((await fetch(`${served.url}/api/v1/ui/session`, { headers: as2 })).status).toBe(200);
    const out = await fetch(`${served.url}/logout`, {
      method: "POST",
      headers: { cookie: second, origin: served.url, "x-coffer-key": s2.key },
      redirect: "manual",
    });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await fetch(`${served.url}/api/v1/ui/session`, { headers: as2 })).status).toBe(401);
    // The first session is untouched.
    expect((await ui("/api/v1/ui/session")).status).toBe(200);
  });

  test("the page and its assets are served from the binary with a strict CSP", async () => {
    const res = await fetch(`${served.url}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const a of assets) {
      const r = await fetch(served.url + a);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toMatch(/javascript|css|svg/); // the bundle, its style, its icon
    }
    expect((await fetch(`${served.url}/nope.js`)).status).toBe(404);
    expect((await fetch(`${served.url}/`, { method: "POST" })).status).toBe(405);
  });
});

describe("UI routes", () => {
  test("projects: label, origin, entry count, last activity", async () => {
    const r = await ui("/api/v1/projects");
    expect(r.status).toBe(200);
    expect(r.body.current).toBe(projectId);
    const p = r.body.projects.find((x: any) => x.scope === projectId);
    expect(p).toMatchObject({ label: "gadgets", origin: "github.com/acme/gadgets", entries: 60 });
    expect(p.last_activity).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(r.body.projects[0].scope).toBe("global");
    // The bearer token works as well (same route for scripts).
    expect((await served.api("/api/v1/projects")).status).toBe(200);
  });

  test("entries: paged, filtered by tag, kind, actor, date; keyword and grep", async () => {
    const p1 = await ui(`/api/v1/ui/entries?scope=${projectId}&limit=25`);
    expect(p1.body.total).toBe(60);
    expect(p1.body.entries.length).toBe(25);
    const p3 = await ui(`/api/v1/ui/entries?scope=${projectId}&limit=25&offset=50`);
    expect(p3.body.entries.length).toBe(10);
    const ids = new Set([...p1.body.entries, ...p3.body.entries].map((e: any) => e.id));
    expect(ids.size).toBe(35);
    const all = await ui("/api/v1/ui/entries?limit=200");
    expect(all.body.total).toBe(61);
    const sorted = [...all.body.entries].map((e: any) => e.updated);
    expect(sorted).toEqual([...sorted].sort().reverse());

    expect((await ui(`/api/v1/ui/entries?scope=${projectId}&tag=t1`)).body.total).toBe(20);
    expect((await ui("/api/v1/ui/entries?kind=convention")).body.total).toBe(1);
    expect((await ui("/api/v1/ui/entries?actor=user")).body.total).toBe(61);
    expect((await ui("/api/v1/ui/entries?actor=agent")).body.total).toBe(0);
    expect((await ui("/api/v1/ui/entries?since=2000-01-01")).body.total).toBe(61);
    expect((await ui("/api/v1/ui/entries?until=2000-01-01")).body.total).toBe(0);

    const kw = await ui(`/api/v1/ui/entries?q=${encodeURIComponent("spins")}&scope=${projectId}`);
    expect(kw.body.total).toBe(30);
    const grep = await ui(`/api/v1/ui/entries?mode=grep&q=${encodeURIComponent("/number 1\\d:/")}`);
    expect(grep.body.total).toBe(10);
    expect(grep.body.entries[0].lines[0].line).toBe(1);
    // A literal needle: case folded, % and _ taken literally.
    expect((await ui(`/api/v1/ui/entries?mode=grep&q=${encodeURIComponent("WIDGET Spins")}`)).body.total).toBe(30);
    expect((await ui(`/api/v1/ui/entries?mode=grep&q=${encodeURIComponent("number_1")}`)).body.total).toBe(0);
    expect((await ui(`/api/v1/ui/entries?mode=grep&q=${encodeURIComponent("100%")}`)).body.total).toBe(0);

    // A hand-written file with keywords: picked up, searchable by a keyword, shown with the entry.
    const kwId = "01KEYWORDS0000000000000000";
    writeFileSync(
      join(sb.cofferHome, "memory", "global", "entries", `${kwId}.md`),
      `---\nid: ${kwId}\nkind: fact\ntitle: Shipping\ntags: []\nkeywords: [rollout, launch]\nactor: user\nsource: cli\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nWe ship on Tuesdays.\n`,
    );
    const byKeyword = await ui("/api/v1/ui/entries?scope=global&q=rollout");
    expect(byKeyword.body.entries.map((e: any) => e.id)).toEqual([kwId]);
    expect((await ui(`/api/v1/ui/entries/${kwId}`)).body.keywords).toEqual(["rollout", "launch"]);
    rmSync(join(sb.cofferHome, "memory", "global", "entries", `${kwId}.md`));

    // The search is recall's: the vocabulary bridges a paraphrase, stems match, ranked best first.
    const pm = sb.run(["remember", "Use pnpm, never npm, in this repo", "--json"], { cwd: repo }).json().id;
    const para = await ui(`/api/v1/ui/entries?q=${encodeURIComponent("package manager")}`);
    expect(para.body.entries.map((e: any) => e.id)).toEqual([pm]);
    const stemmed = await ui(`/api/v1/ui/entries?q=${encodeURIComponent("spinning")}&scope=${projectId}`);
    expect(stemmed.body.total).toBe(30);
    expect(sb.run(["forget", pm], { cwd: repo }).code).toBe(0);

    const facets = await ui(`/api/v1/ui/facets?scope=${projectId}`);
    expect(facets.body.tags).toEqual(["t0", "t1", "t2"]);

    for (const bad of [
      "kind=nope",
      "limit=0",
      "since=yesterday",
      "mode=fuzzy",
      "scope=../etc",
      `scope=${"Z".repeat(26)}`,
    ]) {
      const r = await ui(`/api/v1/ui/entries?${bad}`);
      expect([400, 404]).toContain(r.status);
      expect(r.body.error.message.length).toBeGreaterThan(5);
    }
    expect((await ui("/api/v1/ui/entries?mode=grep&q=/[/")).status).toBe(400);
    expect((await ui("/api/v1/ui/entries/%E0%A4%A")).status).toBe(400);
    expect((await ui("/api/v1/ui/nothing-here")).status).toBe(404);
    expect((await ui("/api/v1/ui/entries", { method: "PUT" })).status).toBe(405);
  });

  test("add, edit, delete, restore, validation like the CLI", async () => {
    const bad = await ui("/api/v1/ui/entries", { method: "POST", body: { scope: projectId, text: "   " } });
    expect(bad.status).toBe(400);
    const long = await ui("/api/v1/ui/entries", { method: "POST", body: { scope: projectId, text: "x".repeat(9000) } });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toContain("limit is 8192");
    const tag = await ui("/api/v1/ui/entries", {
      method: "POST",
      body: { scope: projectId, text: "ok", tags: ["a,b"] },
    });
    expect(tag.status).toBe(400);

    const add = await ui("/api/v1/ui/entries", {
      method: "POST",
      body: { scope: projectId, text: "The gizmo needs a reset after updates", kind: "gotcha", tags: ["gizmo"] },
    });
    expect(add.status).toBe(201);
    const id = add.body.entry.id;
    const file = join(sb.cofferHome, "memory", "projects", projectId, "entries", `${id}.md`);
    expect(readFileSync(file, "utf8")).toContain("kind: gotcha");
    const dup = await ui("/api/v1/ui/entries", {
      method: "POST",
      body: { scope: projectId, text: "the gizmo needs a reset after updates!" },
    });
    expect(dup.body.status).toBe("duplicate");

    const edit = await ui(`/api/v1/ui/entries/${id}`, { method: "PATCH", body: { title: "Gizmo reset", tags: [] } });
    expect(edit.status).toBe(200);
    expect(readFileSync(file, "utf8")).toContain("title: Gizmo reset");
    expect((await ui(`/api/v1/ui/entries/${id}`, { method: "PATCH", body: { kind: "nope" } })).status).toBe(400);
    expect(
      (await ui("/api/v1/ui/entries/01ZZZZZZZZZZZZZZZZZZZZZZZZ", { method: "PATCH", body: { title: "x" } })).status,
    ).toBe(404);

    expect((await ui(`/api/v1/ui/entries/${id}`, { method: "DELETE" })).status).toBe(200);
    expect(existsSync(file)).toBe(false);
    // Soft: the file waits in state/trash/ (outside memory/: never indexed, never synced).
    const trashed = join(sb.cofferHome, "state", "trash", projectId, `${id}.md`);
    expect(readFileSync(trashed, "utf8")).toContain("title: Gizmo reset");
    expect((await ui(`/api/v1/ui/entries?q=gizmo&scope=${projectId}`)).body.total).toBe(0);
    const trash = await ui("/api/v1/ui/trash");
    expect(trash.body.items.map((t: any) => t.id)).toContain(id);
    expect((await ui(`/api/v1/ui/entries/${id}/restore`, { method: "POST" })).status).toBe(200);
    expect(readFileSync(file, "utf8")).toContain("title: Gizmo reset");
    expect((await ui(`/api/v1/ui/entries/${id}/restore`, { method: "POST" })).status).toBe(404);
    expect(existsSync(trashed)).toBe(false);

    // Trash older than 30 days is purged when the trash is listed.
    const old = await ui("/api/v1/ui/entries", {
      method: "POST",
      body: { scope: "global", text: "Soon forgotten for good" },
    });
    const oldId = old.body.entry.id;
    await ui(`/api/v1/ui/entries/${oldId}`, { method: "DELETE" });
    const meta = join(sb.cofferHome, "state", "trash", "global", `${oldId}.json`);
    const note = JSON.parse(readFileSync(meta, "utf8"));
    writeFileSync(meta, JSON.stringify({ ...note, deleted: new Date(Date.now() - 31 * 86_400_000).toISOString() }));
    expect((await ui("/api/v1/ui/trash")).body.items.map((t: any) => t.id)).not.toContain(oldId);
    expect(existsSync(join(sb.cofferHome, "state", "trash", "global", `${oldId}.md`))).toBe(false);
    // Scrubbed on save: the secret never reaches the file, and the answer says so.
    const token = `ghp_${"A1b2C3d4E5".repeat(3)}abcdef`;
    const secret = await ui("/api/v1/ui/entries", {
      method: "POST",
      body: { scope: projectId, text: `CI pushes with GITHUB_TOKEN=${token} from the vault`, title: `token ${token}` },
    });
    expect(secret.status).toBe(201);
    expect(secret.body.scrubbed).toMatch(/^scrubbed \d secrets? \(/);
    const secretFile = join(sb.cofferHome, "memory", "projects", projectId, "entries", `${secret.body.entry.id}.md`);
    expect(readFileSync(secretFile, "utf8")).not.toContain(token);
    expect(readFileSync(secretFile, "utf8")).toContain("[redacted]");
    const rules = await ui("/api/v1/ui/rules", {
      method: "PUT",
      body: { scope: "global", text: `- token is ${token}` },
    });
    expect(rules.body.scrubbed).toContain("scrubbed");
    expect(readFileSync(join(sb.cofferHome, "memory", "global", "rules.md"), "utf8")).not.toContain(token);
    await ui("/api/v1/ui/rules", { method: "PUT", body: { scope: "global", text: "" } });
    // The index follows: search finds it again.
    expect((await ui(`/api/v1/ui/entries?q=gizmo&scope=${projectId}`)).body.total).toBe(1);
  });

  test("keywords: saved on add and edit, kept by an edit without them, a bad list refused whole", async () => {
    const add = await ui("/api/v1/ui/entries", {
      method: "POST",
      body: { scope: projectId, text: "Widget prices come from the ERP nightly", keywords: ["pricing", "cost sync"] },
    });
    expect(add.status).toBe(201);
    const id = add.body.entry.id;
    expect(add.body.entry.keywords).toEqual(["pricing", "cost sync"]);
    const file = join(sb.cofferHome, "memory", "projects", projectId, "entries", `${id}.md`);
    expect(readFileSync(file, "utf8")).toContain("keywords: [pricing, cost sync]");
    const kept = await ui(`/api/v1/ui/entries/${id}`, { method: "PATCH", body: { title: "Widget prices" } });
    expect(kept.body.entry.keywords).toEqual(["pricing", "cost sync"]);
    const edit = await ui(`/api/v1/ui/entries/${id}`, { method: "PATCH", body: { keywords: ["how much it costs"] } });
    expect(edit.body.entry.keywords).toEqual(["how much it costs"]);
    expect((await ui(`/api/v1/ui/entries?q=costs&scope=${projectId}`)).body.entries.map((e: any) => e.id)).toContain(
      id,
    );
    const before = readFileSync(file, "utf8");
    const count = (await ui(`/api/v1/ui/entries?scope=${projectId}`)).body.total;
    for (const keywords of ["pricing", [7], Array.from({ length: 9 }, (_, i) => `k${i}`), ["ok", "a,b"]]) {
      const post = await ui("/api/v1/ui/entries", {
        method: "POST",
        body: { scope: projectId, text: "Widget costs are in euros", keywords },
      });
      expect(post.status).toBe(400);
      expect(post.body.error.message).toContain("keywords");
      const patch = await ui(`/api/v1/ui/entries/${id}`, { method: "PATCH", body: { keywords } });
      expect(patch.status).toBe(400);
    }
    expect(readFileSync(file, "utf8")).toBe(before);
    expect((await ui(`/api/v1/ui/entries?scope=${projectId}`)).body.total).toBe(count);
  });

  test("bulk: per-id results, unknown ids reported, scope checked", async () => {
    const list = await ui(`/api/v1/ui/entries?scope=${projectId}&tag=t2&limit=3`);
    const ids = list.body.entries.map((e: any) => e.id);
    const r = await ui("/api/v1/ui/bulk", {
      method: "POST",
      body: { ids: [...ids, "01ZZZZZZZZZZZZZZZZZZZZZZZZ"], action: "retag", add: ["bulk"], remove: ["t2"] },
    });
    expect(r.status).toBe(200);
    expect(r.body.results.filter((x: any) => x.ok).length).toBe(3);
    expect(r.body.results.at(-1).ok).toBe(false);
    expect((await ui(`/api/v1/ui/entries?scope=${projectId}&tag=bulk`)).body.total).toBe(3);
    expect((await ui("/api/v1/ui/bulk", { method: "POST", body: { ids, action: "move", to: "nowhere" } })).status).toBe(
      400,
    );
    expect((await ui("/api/v1/ui/bulk", { method: "POST", body: { ids, action: "explode" } })).status).toBe(400);
    expect((await ui("/api/v1/ui/bulk", { method: "POST", body: { ids: [], action: "delete" } })).status).toBe(400);
  });

  test("rules: bundle per host for a known working directory; handoffs per branch", async () => {
    sb.run(["handoff", "set", "Halfway through the gizmo refactor"], { cwd: repo });
    const put = await ui("/api/v1/ui/rules", {
      method: "PUT",
      body: { scope: projectId, text: "- Keep gadgets small" },
    });
    expect(put.body.changed).toBe(true);
    const r = await ui(`/api/v1/ui/rules?scope=${projectId}`);
    expect(r.body.cwd).toBe(repo);
    const claude = r.body.bundles.find((b: any) => b.host === "claude");
    expect(claude.text).toContain("Keep gadgets small");
    expect(claude.limit).toBe(9500);
    expect(claude.size).toBe(claude.text.length);
    expect(r.body.bundles.find((b: any) => b.host === "windsurf")).toBeUndefined();
    const h = await ui(`/api/v1/ui/handoffs?scope=${projectId}`);
    expect(h.body.handoffs.length).toBe(1);
    expect(h.body.handoffs[0].body).toContain("gizmo refactor");
    expect(h.body.handoffs[0].branch).toBe("main");
    expect((await ui("/api/v1/ui/rules?scope=global&cwd=relative/path")).status).toBe(400);
  });

  test("inbox, transcripts, model, health answer without a model configured", async () => {
    const model = (await ui("/api/v1/ui/model")).body;
    expect(model.model).toBeNull();
    expect(model).toMatchObject({ source: "none", why: expect.stringContaining("no [model] in config.toml") });
    expect((await ui("/api/v1/ui/inbox/nope/preview", { method: "POST" })).status).toBe(404);
    expect((await ui("/api/v1/ui/inbox/previews/nope/confirm", { method: "POST" })).status).toBe(404);
    expect((await ui("/api/v1/ui/transcripts?host=claude")).body.transcripts).toEqual([]);
    expect((await ui("/api/v1/ui/transcripts?host=vim")).status).toBe(400);
    const health = await ui("/api/v1/ui/health");
    expect(health.body.counts.entries).toBeGreaterThanOrEqual(61);
    expect(health.body.index.bytes).toBeGreaterThan(0);
    expect(health.body.doctor.hosts.length).toBeGreaterThanOrEqual(6);
    expect(health.body.audit[0].event).toBeDefined();
    expect(health.body.doctor.store.model_why).toContain("no [model] in config.toml");
    expect(JSON.stringify(health.body)).not.toContain(served.token);
    expect((await ui("/api/v1/ui/sessions")).body.sessions).toEqual([]);
  });

  test("health: per linked host, the last hook event seen and the injections of 7 days (doctor's proof)", async () => {
    expect(sb.run(["link", "claude", "--no-mcp"], { cwd: repo }).code).toBe(0);
    const payload = { session_id: "web-h1", cwd: repo, hook_event_name: "SessionStart", source: "startup" };
    expect(
      sb.run(["hook", "session-start", "--agent", "claude"], { cwd: repo, stdin: JSON.stringify(payload) }).code,
    ).toBe(0);
    const hosts = (await ui("/api/v1/ui/health")).body.doctor.hosts;
    const claude = hosts.find((x: any) => x.host === "claude" && x.scope === "user");
    expect(claude.hooks_seen.last).toMatchObject({ event: "session-start", project: "gadgets" });
    expect(claude.hooks_seen.injections_7d).toBe(1);
    expect(claude.warnings).toEqual([]);
    expect(hosts.find((x: any) => x.host === "codex").hooks_seen).toBeNull(); // not linked
  });
});

describe("error codes", () => {
  // One mapper (serve/errors.ts) turns each failure's code into a status; the page reads the code.
  test("404 not_found, 409 conflict, 400 ambiguous and bad_request, each with the store's hint", async () => {
    const add = await ui("/api/v1/ui/entries", {
      method: "POST",
      body: { scope: "global", text: "Kettles descale monthly" },
    });
    const id = add.body.entry.id as string;
    const file = join(sb.cofferHome, "memory", "global", "entries", `${id}.md`);
    const text = readFileSync(file, "utf8");

    const gone = await ui(`/api/v1/ui/entries/${id}/restore`, { method: "POST" });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: "not_found", details: { hint: expect.stringContaining("trash") } });

    // In the trash, and its file back in memory/ by hand: restoring would overwrite it.
    expect((await ui(`/api/v1/ui/entries/${id}`, { method: "DELETE" })).status).toBe(200);
    writeFileSync(file, text);
    const clash = await ui(`/api/v1/ui/entries/${id}/restore`, { method: "POST" });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe("conflict");
    expect(clash.body.error.message).toContain("already exists");
    rmSync(file);
    expect((await ui(`/api/v1/ui/entries/${id}/restore`, { method: "POST" })).status).toBe(200);

    // Entries made within minutes share their first six characters (the ULID's time).
    const ids = (await ui(`/api/v1/ui/entries?scope=${projectId}&limit=200`)).body.entries.map((e: any) => e.id);
    const counts = new Map<string, number>();
    for (const e of ids as string[]) counts.set(e.slice(0, 6), (counts.get(e.slice(0, 6)) ?? 0) + 1);
    const prefix = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    expect(counts.get(prefix)).toBeGreaterThan(1);
    const many = await ui(`/api/v1/ui/entries/${prefix}`);
    expect(many.status).toBe(400);
    expect(many.body.error.code).toBe("ambiguous");

    const long = await ui("/api/v1/ui/entries", { method: "POST", body: { scope: "global", text: "x".repeat(9000) } });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe("bad_request");
  });
});

describe("team-lane proposals", () => {
  test("listed and counted; approve promotes into the served checkout's .coffer/, reject keeps it personal", async () => {
    const remember = (text: string) =>
      sb.run(["remember", text, "--kind", "convention", "--json"], { cwd: repo }).json().id as string;
    const shared = remember("Gadget builds run with make gadgets");
    const mine = remember("Gadget notes live in my scratch folder");
    const project = { id: projectId, label: "gadgets", origin: "github.com/acme/gadgets" };
    const [a, b] = ["01KTEAMPR0P0SA100000000010", "01KTEAMPR0P0SA100000000020"];
    writeTeamProposal(sb, a, project, { id: shared, title: "Gadget builds run with make gadgets" });
    writeTeamProposal(sb, b, project, { id: mine, title: "Gadget notes live in my scratch folder" });
    const listed = (await ui("/api/v1/ui/team-proposals")).body.proposals;
    expect(listed.map((p: { id: string }) => p.id)).toEqual([a, b]);
    expect((await ui("/api/v1/ui/health")).body.counts.team).toBe(2);

    const ok = await ui(`/api/v1/ui/team-proposals/${a}/approve`, { method: "POST" });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: a, status: "promoted", entry: shared });
    expect(existsSync(join(repo, ".coffer", "entries", `${shared}.md`))).toBe(true);
    const no = await ui(`/api/v1/ui/team-proposals/${b}/reject`, { method: "POST" });
    expect(no.body).toMatchObject({ id: b, status: "rejected" });
    expect(existsSync(join(repo, ".coffer", "entries", `${mine}.md`))).toBe(false);
    expect(sb.run(["show", mine, "--json"], { cwd: repo }).json().scope).toBe("project");
    expect((await ui("/api/v1/ui/team-proposals")).body.proposals).toEqual([]);
    expect((await ui(`/api/v1/ui/team-proposals/${a}/approve`, { method: "POST" })).status).toBe(404);
  });
});

describe("sync conflicts", () => {
  test("an older copy sync kept is listed; deleting it resolves the conflict and unmarks the kept entry", async () => {
    const kept = sb
      .run(["remember", "Gadget firmware is flashed with make flash", "--kind", "fact", "--json"], { cwd: repo })
      .json().id as string;
    const dir = join(sb.cofferHome, "memory", "projects", projectId, "entries");
    const keptFile = join(dir, `${kept}.md`);
    // What sync writes after a both-sides edit (src/sync/merge.ts): the kept entry tagged, the copy superseded by it.
    writeFileSync(keptFile, readFileSync(keptFile, "utf8").replace(/^tags: \[\]$/m, "tags: [sync-conflict]"));
    expect(readFileSync(keptFile, "utf8")).toContain("tags: [sync-conflict]");
    const copy = "01KSYNCC0PY000000000000010";
    writeFileSync(
      join(dir, `${copy}.md`),
      `---\nid: ${copy}\nkind: fact\ntitle: Gadget firmware is flashed with the old script\ntags: [sync-conflict]\napplies_to: []\nactor: user\nsource: cli\nstatus: superseded\nsuperseded_by: ${kept}\ncreated: 2030-01-01T00:00:00Z\nupdated: 2030-01-02T00:00:00Z\n---\nGadget firmware is flashed with the old script\n`,
    );
    sb.run(["reindex"], { cwd: repo });
    const listed = (await ui("/api/v1/ui/sync-conflicts")).body.conflicts;
    expect(
      listed.map((c: { copy: string; kept: string; scope_label: string }) => [c.copy, c.kept, c.scope_label]),
    ).toEqual([[copy, kept, "gadgets"]]);
    expect((await ui(`/api/v1/ui/entries/${copy}`, { method: "DELETE" })).status).toBe(200);
    expect((await ui("/api/v1/ui/sync-conflicts")).body.conflicts).toEqual([]);
    expect(readFileSync(keptFile, "utf8")).not.toContain("sync-conflict");
  });
});
