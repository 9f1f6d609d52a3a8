import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { HOSTS } from "../../src/lib/hosts";
import { type ApiResponse, type Sandbox, type Served, sandbox, startServe } from "../kit";

let sb: Sandbox;
let repo: string;
let plain: string;
let served: Served;

beforeAll(async () => {
  sb = sandbox("coffer-serve-");
  repo = sb.repo("alpha", "git@github.com:acme/alpha.git");
  plain = join(sb.root, "plain");
  mkdirSync(plain, { recursive: true });
  served = await startServe(sb, repo, ["--no-worker"]);
});

afterAll(async () => {
  await served?.stop();
  sb?.cleanup();
});

/** One raw HTTP/1.1 exchange, so headers such as Host are exactly what we write. */
function raw(port: number, head: string, body = ""): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1");
    let data = "";
    sock.on("data", (d) => (data += d.toString()));
    sock.on("error", reject);
    sock.on("end", () => {
      const [h, ...rest] = data.split("\r\n\r\n");
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(h ?? "")?.[1]),
        headers: h ?? "",
        body: rest.join("\r\n\r\n"),
      });
    });
    sock.write(`${head.replace(/\n/g, "\r\n")}\r\n\r\n${body}`);
  });
}

async function errorOf(res: ApiResponse): Promise<{ code: string; message: string; details: unknown }> {
  const body = await res.json();
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "details", "message"]);
  return body.error;
}

describe("guards", () => {
  test("/healthz answers without a token", async () => {
    const res = await served.api("/healthz", { auth: false });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true });
  });

  test("401 without a token and with a wrong one, on /api and /mcp", async () => {
    for (const path of ["/api/v1/entries", "/api/v1/rules", "/mcp"]) {
      const none = await served.api(path, { auth: false });
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toContain("Bearer");
      expect((await errorOf(none)).code).toBe("unauthorized");
      const wrong = await served.api(path, { headers: { authorization: `Bearer ${served.token.slice(0, -1)}x` } });
      expect(wrong.status).toBe(401);
      const basic = await served.api(path, { headers: { authorization: `Basic ${served.token}` } });
      expect(basic.status).toBe(401);
    }
  });

  test("403 for a Host header that is not a loopback name (DNS rebinding)", async () => {
    const evil = await raw(
      served.port,
      `GET /api/v1/entries HTTP/1.1\nHost: evil.example\nAuthorization: Bearer ${served.token}\nConnection: close`,
    );
    expect(evil.status).toBe(403);
    const body = JSON.parse(evil.body);
    expect(body.error.code).toBe("forbidden");
    expect(body.error.message).toContain("evil.example");
    const evilPort = await raw(
      served.port,
      `GET /healthz HTTP/1.1\nHost: evil.example:${served.port}\nConnection: close`,
    );
    expect(evilPort.status).toBe(403);
    for (const host of [`127.0.0.1:${served.port}`, `localhost:${served.port}`, "localhost", `[::1]:${served.port}`]) {
      const ok = await raw(served.port, `GET /healthz HTTP/1.1\nHost: ${host}\nConnection: close`);
      expect(ok.status).toBe(200);
    }
  });

  test("403 for a foreign Origin; no CORS headers are ever sent", async () => {
    const res = await served.api("/api/v1/entries", { headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(403);
    const ok = await served.api("/api/v1/entries", { headers: { origin: served.url } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await served.api("/api/v1/entries", {
      method: "OPTIONS",
      auth: false,
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("413 for a body over 1 MiB (declared or streamed), before anything is parsed", async () => {
    const big = JSON.stringify({ text: "x".repeat(1024 * 1024 + 10) });
    const res = await served.api("/api/v1/entries", {
      method: "POST",
      body: big,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("payload_too_large");
    const chunked = await raw(
      served.port,
      `POST /api/v1/recall HTTP/1.1\nHost: 127.0.0.1\nAuthorization: Bearer ${served.token}\nTransfer-Encoding: chunked\nConnection: close`,
      `${(1100000).toString(16)}\r\n${"y".repeat(1100000)}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(413);
    const mcp = await served.api("/mcp", {
      method: "POST",
      body: big,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    });
    expect(mcp.status).toBe(413);
    expect((await mcp.json()).error.code).toBe("payload_too_large");
    expect((await served.api("/api/v1/entries")).status).toBe(200); // still serving
  });
});

describe("error envelopes", () => {
  test("404 for an unknown route, entry or host; 405 with Allow", async () => {
    const route = await served.api("/api/v1/nothing");
    expect(route.status).toBe(404);
    expect((await errorOf(route)).code).toBe("not_found");
    const outside = await served.api("/elsewhere", { auth: false });
    expect(outside.status).toBe(404);
    const entry = await served.api("/api/v1/entries/01ZZZZZZZZZZZZZZZZZZZZZZZZ");
    expect(entry.status).toBe(404);
    expect((await errorOf(entry)).message).toContain('no entry with id "01ZZZZZZZZZZZZZZZZZZZZZZZZ"');
    const host = await served.api(`/api/v1/agents/notepad/session-context?cwd=${encodeURIComponent(repo)}`);
    expect(host.status).toBe(404);
    expect((await errorOf(host)).details).toEqual({
      allowed: [...HOSTS],
    });
    const put = await served.api("/api/v1/entries", { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST");
    expect((await errorOf(put)).code).toBe("method_not_allowed");
  });

  test("400 for malformed JSON, invalid fields and bad query values", async () => {
    const json = await served.api("/api/v1/recall", { method: "POST", body: "{nope" });
    expect(json.status).toBe(400);
    expect((await errorOf(json)).code).toBe("invalid_json");
    const empty = await served.api("/api/v1/entries", { method: "POST", body: { text: "" } });
    expect(empty.status).toBe(400);
    expect((await errorOf(empty)).message).toContain("text is empty");
    const big = await served.api("/api/v1/entries", { method: "POST", body: { text: "z".repeat(8193) } });
    expect((await errorOf(big)).message).toContain("the limit is 8192");
    const kind = await served.api("/api/v1/entries?kind=rumour");
    expect(kind.status).toBe(400);
    expect((await errorOf(kind)).message).toContain("kind must be one of");
    const limit = await served.api("/api/v1/entries?limit=500");
    expect((await errorOf(limit)).message).toContain("limit must be at most 200");
    const cwd = await served.api("/api/v1/entries?cwd=relative");
    expect((await errorOf(cwd)).message).toContain("cwd must be an absolute path");
    const scope = await served.api(`/api/v1/entries?scope=project&cwd=${encodeURIComponent(plain)}`);
    expect(scope.status).toBe(400);
    expect((await errorOf(scope)).message).toContain("not inside a git repository");
    const topk = await served.api("/api/v1/recall", { method: "POST", body: { query: "x", top_k: 99 } });
    expect((await errorOf(topk)).message).toContain("top_k must be at most 20");
  });
});

describe("error codes", () => {
  // The tools' errors keep the store's code through the tool table, so the one mapper gives each its status.
  test("an id prefix two entries share: 400 ambiguous (not a bad_request)", async () => {
    const ids: string[] = [];
    for (const text of ["Kettle one boils fast", "Kettle two boils slow"]) {
      const res = await served.api("/api/v1/entries", { method: "POST", body: { text, scope: "global" } });
      expect(res.status).toBe(201);
      ids.push((await res.json()).id);
    }
    let n = 4;
    while (ids[0]!.slice(0, n + 1) === ids[1]!.slice(0, n + 1)) n++;
    expect(ids[1]!.startsWith(ids[0]!.slice(0, n))).toBe(true);
    const both = await served.api(`/api/v1/entries/${ids[0]!.slice(0, n)}?scope=global`);
    expect(both.status).toBe(400);
    expect((await errorOf(both)).code).toBe("ambiguous");
    for (const id of ids)
      expect((await served.api(`/api/v1/entries/${id}?scope=global`, { method: "DELETE" })).status).toBe(200);
  });
});

describe("agents routes", () => {
  test("session-context equals what `coffer hook session-start` injects for that host and cwd", async () => {
    expect(sb.run(["rules", "add", "Run bun test before committing"], { cwd: repo }).code).toBe(0);
    expect(sb.run(["rules", "add", "Answer in English", "--scope", "global"], { cwd: repo }).code).toBe(0);
    expect(sb.run(["remember", "Deploys use make release", "--kind", "convention"], { cwd: repo }).code).toBe(0);
    let n = 0;
    for (const host of ["claude", "codex", "gemini", "cursor"]) {
      for (const cwd of [repo, plain]) {
        const session = `s-ctx-${++n}`;
        const transcript_path = join(sb.home, `${session}.jsonl`);
        const stdin = JSON.stringify(
          host === "cursor"
            ? { conversation_id: session, workspace_roots: [cwd], hook_event_name: "sessionStart", transcript_path }
            : { session_id: session, hook_event_name: "SessionStart", source: "startup", cwd, transcript_path },
        );
        const hook = sb.run(["hook", "session-start", "--agent", host], { cwd, stdin });
        expect(hook.code).toBe(0);
        const out = hook.stdout.trim() ? JSON.parse(hook.stdout) : {};
        const injected: string =
          out.hookSpecificOutput?.additionalContext ?? out.additionalContext ?? out.additional_context ?? "";
        const res = await served.api(`/api/v1/agents/${host}/session-context?cwd=${encodeURIComponent(cwd)}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ additional_context: injected });
      }
    }
  });

  test("session-context needs an absolute, existing cwd", async () => {
    expect((await served.api("/api/v1/agents/claude/session-context")).status).toBe(400);
    const rel = await served.api("/api/v1/agents/claude/session-context?cwd=..%2Fx");
    expect((await errorOf(rel)).message).toContain("absolute path");
  });

  test("session end reports an outcome; ids are checked", async () => {
    const res = await served.api("/api/v1/agents/claude/sessions/4f1c-aa.b_9/end", {
      method: "POST",
      body: { transcript_path: join(sb.home, "x.jsonl") },
    });
    expect(res.status).toBe(200);
    const { outcome } = await res.json();
    expect(["distilled", "already_distilled", "no_model", "not_found", "skipped"]).toContain(outcome);
    const noBody = await served.api("/api/v1/agents/codex/sessions/abc/end", { method: "POST" });
    expect(noBody.status).toBe(200);
    const bad = await served.api("/api/v1/agents/claude/sessions/..%2F..%2Fetc/end", { method: "POST" });
    expect(bad.status).toBe(400);
    const rel = await served.api("/api/v1/agents/claude/sessions/abc/end", {
      method: "POST",
      body: { transcript_path: "t.jsonl" },
    });
    expect(rel.status).toBe(400);
  });

  test("transcripts list and distill", async () => {
    const list = await served.api("/api/v1/agents/claude/transcripts?limit=5");
    expect(list.status).toBe(200);
    expect(Array.isArray((await list.json()).transcripts)).toBe(true);
    const run = await served.api("/api/v1/agents/claude/transcripts/distill", {
      method: "POST",
      body: { sessions: ["no-such-session"] },
    });
    expect(run.status).toBe(200);
    const { results } = await run.json();
    expect(results.length).toBe(1);
    expect(results[0].session).toBe("no-such-session");
    const none = await served.api("/api/v1/agents/claude/transcripts/distill", {
      method: "POST",
      body: { sessions: [] },
    });
    expect((await errorOf(none)).message).toContain("sessions is empty");
  });
});

describe("entries, recall, rules, inbox", () => {
  test("entries CRUD round trip with recall", async () => {
    const created = await served.api("/api/v1/entries", {
      method: "POST",
      body: {
        text: "The staging database is reset every Sunday at 03:00 UTC",
        title: "Staging reset",
        kind: "gotcha",
        tags: ["staging"],
      },
    });
    expect(created.status).toBe(201);
    const c = await created.json();
    expect(c).toMatchObject({ scope: "project", status: "created" });
    expect(c.entry).toMatchObject({
      id: c.id,
      title: "Staging reset",
      kind: "gotcha",
      actor: "user",
      source: "http",
      tags: ["staging"],
    });
    const projects = readdirSync(join(sb.cofferHome, "memory", "projects"));
    const file = join(sb.cofferHome, "memory", "projects", projects[0]!, "entries", `${c.id}.md`);
    expect(readFileSync(file, "utf8")).toContain("source: http");

    const dup = await served.api("/api/v1/entries", {
      method: "POST",
      body: { text: "the staging database is reset every sunday at 03 00 utc" },
    });
    expect(dup.status).toBe(200);
    expect((await dup.json()).status).toBe("duplicate");

    const got = await served.api(`/api/v1/entries/${c.id}`);
    expect(await got.json()).toMatchObject({
      id: c.id,
      text: "The staging database is reset every Sunday at 03:00 UTC",
    });

    const recall = await served.api("/api/v1/recall", { method: "POST", body: { query: "staging reset sunday" } });
    expect((await recall.json()).hits[0]).toMatchObject({ id: c.id, scope: "project", kind: "gotcha" });

    const patched = await served.api(`/api/v1/entries/${c.id}`, {
      method: "PATCH",
      body: { title: "Staging DB reset", tags: ["staging", "db"] },
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      id: c.id,
      title: "Staging DB reset",
      tags: ["staging", "db"],
      kind: "gotcha",
      text: "The staging database is reset every Sunday at 03:00 UTC",
    });
    const text = await served.api(`/api/v1/entries/${c.id}`, {
      method: "PATCH",
      body: { text: "The staging database is reset every Saturday at 02:00 UTC" },
    });
    expect(await text.json()).toMatchObject({
      title: "Staging DB reset",
      text: "The staging database is reset every Saturday at 02:00 UTC",
    });
    expect((await served.api(`/api/v1/entries/${c.id}`, { method: "PATCH", body: {} })).status).toBe(400);
    expect((await served.api(`/api/v1/entries/${c.id}`, { method: "PATCH", body: { kind: "rumour" } })).status).toBe(
      400,
    );
    expect(
      (await served.api("/api/v1/entries/01ZZZZZZZZZZZZZZZZZZZZZZZZ", { method: "PATCH", body: { title: "x" } }))
        .status,
    ).toBe(404);

    const recall2 = await served.api("/api/v1/recall", {
      method: "POST",
      body: { query: "saturday", scope: "project" },
    });
    expect((await recall2.json()).hits.map((h: any) => h.id)).toEqual([c.id]);

    const list = await served.api("/api/v1/entries?kind=gotcha");
    const l = await list.json();
    expect(l.total).toBe(1);
    expect(l.entries[0]).toMatchObject({ id: c.id, scope: "project", title: "Staging DB reset" });

    const del = await served.api(`/api/v1/entries/${c.id}`, { method: "DELETE" });
    expect(await del.json()).toEqual({ id: c.id, status: "deleted" });
    expect((await served.api(`/api/v1/entries/${c.id}`)).status).toBe(404);
    expect((await served.api(`/api/v1/entries/${c.id}`, { method: "DELETE" })).status).toBe(404);
  });

  test("entries in another project and global by cwd and scope", async () => {
    const g = await (
      await served.api("/api/v1/entries", {
        method: "POST",
        body: { text: "Global preference: short commit subjects", scope: "global" },
      })
    ).json();
    expect(g.scope).toBe("global");
    const p = await (
      await served.api("/api/v1/entries", { method: "POST", body: { text: "Only outside a repo", cwd: plain } })
    ).json();
    expect(p.scope).toBe("global");
    const list = await (await served.api(`/api/v1/entries?scope=global`)).json();
    expect(list.entries.map((e: any) => e.id).sort()).toEqual([g.id, p.id].sort());
    const paged = await (await served.api(`/api/v1/entries?scope=global&limit=1&offset=1`)).json();
    expect(paged.total).toBe(2);
    expect(paged.entries.length).toBe(1);
  });

  test("rules GET and PUT", async () => {
    const before = await (await served.api("/api/v1/rules")).json();
    expect(before.rules.map((r: any) => r.scope)).toEqual(["project", "global"]);
    expect(before.rules[0].text).toContain("Run bun test before committing");
    const put = await served.api("/api/v1/rules", {
      method: "PUT",
      body: { scope: "project", text: "- Use conventional commits\n- Never force-push main" },
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({
      scope: "project",
      changed: true,
      text: "- Use conventional commits\n- Never force-push main\n",
    });
    const same = await served.api("/api/v1/rules", {
      method: "PUT",
      body: { scope: "project", text: "- Use conventional commits\n- Never force-push main\n" },
    });
    expect((await same.json()).changed).toBe(false);
    const shown = sb.run(["rules", "show", "--json"], { cwd: repo }).json();
    expect(shown.rules[0].text).toBe("- Use conventional commits\n- Never force-push main\n");
    const g = await (await served.api("/api/v1/rules?scope=global")).json();
    expect(g.rules).toEqual([{ scope: "global", text: "- Answer in English\n" }]);
    expect((await served.api("/api/v1/rules", { method: "PUT", body: { text: "x" } })).status).toBe(400);
    const outside = await served.api("/api/v1/rules", {
      method: "PUT",
      body: { scope: "project", text: "x", cwd: plain },
    });
    expect(outside.status).toBe(400);
    expect(readFileSync(join(sb.cofferHome, "state", "audit.jsonl"), "utf8")).toContain('"event":"rules_replaced"');
  });

  test("inbox list, approve/reject of an unknown item", async () => {
    const list = await served.api("/api/v1/inbox");
    expect(list.status).toBe(200);
    expect(Array.isArray((await list.json()).items)).toBe(true);
    for (const action of ["approve", "reject"]) {
      const res = await served.api(`/api/v1/inbox/no-such-trace/${action}`, { method: "POST" });
      expect(res.status).toBe(404);
      expect((await errorOf(res)).code).toBe("not_found");
    }
  });

  test("state files are private", () => {
    expect(statSync(join(sb.cofferHome, "state", "token")).mode & 0o777).toBe(0o600);
    expect(statSync(join(sb.cofferHome, "state", "serve.json")).mode & 0o777).toBe(0o600);
    const info = JSON.parse(readFileSync(join(sb.cofferHome, "state", "serve.json"), "utf8"));
    expect(info).toMatchObject({ pid: served.proc.pid, port: served.port });
    expect(typeof info.started).toBe("string");
  });
});

describe("a busy index", () => {
  test("a write waiting for another process's lock does not stall other requests; it lands once the lock is gone", async () => {
    expect((await served.api(`/api/v1/entries?cwd=${encodeURIComponent(repo)}`)).status).toBe(200); // index.db exists
    // Another process (this test) holds index.db's write lock.
    const db = new Database(join(sb.cofferHome, "state", "index.db"));
    db.run("BEGIN IMMEDIATE");
    let released = false;
    try {
      const write = served
        .api("/api/v1/entries", { method: "POST", body: { text: "Written while the index was locked", cwd: repo } })
        .then(async (res) => ({ status: res.status, body: await res.json(), released }));
      // Reads need no write lock: they are answered while the write is still waiting.
      for (let i = 0; i < 3; i++) {
        const rules = await served.api(`/api/v1/rules?cwd=${encodeURIComponent(repo)}`);
        expect(rules.status).toBe(200);
      }
      const settled = await Promise.race([write.then(() => true), Bun.sleep(300).then(() => false)]);
      expect(settled).toBe(false); // still waiting for the lock, not failed
      db.run("ROLLBACK");
      released = true;
      const res = await write;
      expect(res.status).toBe(201);
      expect(res.released).toBe(true);
      expect(res.body.entry.text).toBe("Written while the index was locked");
    } finally {
      if (!released) db.run("ROLLBACK");
      db.close();
    }
  });
});
