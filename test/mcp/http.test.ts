import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { httpClient, type Sandbox, type Served, sandbox, startServe, stdioClient } from "../kit";

let sb: Sandbox;
let repo: string;
let other: string;
let served: Served;

beforeAll(async () => {
  sb = sandbox("coffer-mcp-http-");
  repo = sb.repo("alpha", "git@github.com:acme/alpha.git");
  other = sb.repo("beta");
  served = await startServe(sb, repo, ["--no-worker"]);
});

afterAll(async () => {
  await served?.stop();
  sb?.cleanup();
});

describe("MCP over Streamable HTTP", () => {
  test("the same seven tools, with the same schemas as over stdio", async () => {
    const http = await httpClient(served);
    const stdio = await stdioClient(sb, repo);
    try {
      const a = (await http.client.listTools()).tools;
      const b = (await stdio.client.listTools()).tools;
      expect(a.length).toBe(7);
      expect(a).toEqual(b);
    } finally {
      await http.close();
      await stdio.close();
    }
  });

  test("every tool works end to end, writes carry the client's name", async () => {
    const mcp = await httpClient(served, "cursor-vscode");
    try {
      const r = await mcp.ok("remember", {
        text: "The API gateway retries 5xx twice with jitter",
        kind: "fact",
        tags: ["api"],
      });
      expect(r).toMatchObject({ scope: "project", status: "created" });
      const e = await mcp.ok("read", { id: r.id });
      expect(e).toMatchObject({ id: r.id, actor: "agent:cursor-vscode", source: "mcp", kind: "fact", tags: ["api"] });
      expect((await mcp.ok("recall", { query: "gateway retries" })).hits[0].id).toBe(r.id);
      expect((await mcp.ok("recall", { query: "jitter", mode: "grep" })).hits[0].id).toBe(r.id);
      expect((await mcp.ok("list", {})).entries.map((x: any) => x.id)).toContain(r.id);
      expect(await mcp.ok("resume")).toEqual({ found: false });
      expect(await mcp.ok("set_handoff", { body: "Gateway retry tests half written" })).toEqual({
        status: "saved",
        branch: "main",
        scope: "project",
      });
      expect((await mcp.ok("resume")).body).toBe("Gateway retry tests half written");
      expect(await mcp.ok("forget", { id: r.id })).toEqual({ id: r.id, status: "deleted" });
      expect(await mcp.fail("read", { id: r.id })).toContain("no entry with id");
      const file = readdirSync(join(sb.cofferHome, "memory", "projects"));
      expect(file.length).toBe(1);
    } finally {
      await mcp.close();
    }
  });

  test("errors come back in-band, as over stdio", async () => {
    const mcp = await httpClient(served);
    try {
      expect(await mcp.fail("remember", { text: "x".repeat(9000) })).toContain("the limit is 8192");
      expect(await mcp.fail("recall", { query: "x", scope: "galaxy" })).toContain(
        'scope must be "project", "team" or "global"',
      );
      expect(await mcp.fail("read", { id: "01ZZZZZZZZZZZZZZZZZZZZZZZZ" })).toContain("no entry with id");
      const plain = join(sb.root, "plain");
      mkdirSync(plain, { recursive: true });
      expect(await mcp.fail("set_handoff", { body: "x", cwd: plain })).toContain("needs a git project");
    } finally {
      await mcp.close();
    }
  });

  test("the server's cwd is the default project; cwd selects another", async () => {
    const mcp = await httpClient(served);
    try {
      const a = await mcp.ok("remember", { text: "Alpha builds with bazel" });
      const b = await mcp.ok("remember", { text: "Beta builds with make", cwd: other });
      expect((await mcp.ok("recall", { query: "builds" })).hits.map((h: any) => h.id)).toEqual([a.id]);
      expect((await mcp.ok("recall", { query: "builds", cwd: other })).hits.map((h: any) => h.id)).toEqual([b.id]);
      expect(readdirSync(join(sb.cofferHome, "memory", "projects")).length).toBe(2);
    } finally {
      await mcp.close();
    }
  });

  test("sessions are separate: each client's writes carry its own name", async () => {
    const one = await httpClient(served, "agent-one");
    const two = await httpClient(served, "agent-two");
    try {
      const r1 = await one.ok("remember", { text: "first agent note about caching" });
      const r2 = await two.ok("remember", { text: "second agent note about logging" });
      expect((await two.ok("read", { id: r1.id })).actor).toBe("agent:agent-one");
      expect((await one.ok("read", { id: r2.id })).actor).toBe("agent:agent-two");
      const text = readFileSync(join(sb.cofferHome, "state", "audit.jsonl"), "utf8");
      expect(text).toContain('"actor":"agent:agent-two"');
      expect(text).not.toContain("second agent note"); // the audit log never holds content
    } finally {
      await one.close();
      await two.close();
    }
  });

  test("without the bearer token the MCP client cannot connect", async () => {
    await expect(httpClient(served, "intruder", "wrong-token")).rejects.toThrow(/401|unauthorized/i);
  });

  test("an unknown session id is refused; a non-initialize first request is refused", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const unknown = await served.api("/mcp", {
      method: "POST",
      headers: { ...headers, "mcp-session-id": "nope" },
      body: JSON.stringify(call),
    });
    expect(unknown.status).toBe(404);
    const noInit = await served.api("/mcp", { method: "POST", headers, body: JSON.stringify(call) });
    expect(noInit.status).toBe(400);
    const bad = await served.api("/mcp", { method: "POST", headers, body: "{not json" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe(-32700);
  });
});
