import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { BIN, type Mcp, type Sandbox, sandbox, stdioClient } from "../kit";

const TOOLS = [
  "coffer__forget",
  "coffer__list",
  "coffer__read",
  "coffer__recall",
  "coffer__remember",
  "coffer__resume",
  "coffer__set_handoff",
];

let sb: Sandbox;
let repo: string;
let other: string;
let plain: string;
let mcp: Mcp;

beforeAll(async () => {
  sb = sandbox("coffer-mcp-");
  repo = sb.repo("alpha", "git@github.com:acme/alpha.git");
  other = sb.repo("beta", "https://github.com/acme/beta.git");
  plain = join(sb.root, "plain");
  mkdirSync(plain, { recursive: true });
  mcp = await stdioClient(sb, repo, "claude-code");
});

afterAll(async () => {
  await mcp?.close();
  sb?.cleanup();
});

describe("tools/list", () => {
  test("seven tools, each with an object input schema", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const by = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.description!.length).toBeGreaterThan(10);
      expect(t.description!.length).toBeLessThanOrEqual(120);
      expect((t.inputSchema as any).additionalProperties).toBe(false);
      expect(Object.keys(t.inputSchema.properties ?? {})).toContain("cwd");
    }
    expect(by.coffer__recall!.inputSchema.required).toEqual(["query"]);
    expect(by.coffer__remember!.inputSchema.required).toEqual(["text"]);
    expect(by.coffer__read!.inputSchema.required).toEqual(["id"]);
    expect(by.coffer__forget!.inputSchema.required).toEqual(["id"]);
    expect(by.coffer__set_handoff!.inputSchema.required).toEqual(["body"]);
    expect((by.coffer__recall!.inputSchema.properties as any).top_k).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 20,
    });
    expect((by.coffer__list!.inputSchema.properties as any).limit).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 200,
    });
    expect((by.coffer__recall!.inputSchema.properties as any).mode.enum).toEqual(["keyword", "grep"]);
    expect((by.coffer__remember!.inputSchema.properties as any).kind.enum).toContain("gotcha");
    // Tool definitions are paid for by every agent session: keep the whole list small (the output
    // schemas, which clients use to check answers, are measured on their own below).
    const inputs = tools.map(({ outputSchema: _o, ...t }) => t);
    expect(JSON.stringify(inputs).length).toBeLessThan(4500);
  });
});

describe("success paths", () => {
  let id: string;

  test("remember creates a project entry carrying actor agent:<client> and source mcp", async () => {
    const res = await mcp.ok("remember", {
      text: "Releases go out with `make release`, never git push --tags.",
      title: "Release process",
      kind: "convention",
      tags: ["release", "ci"],
      applies_to: ["Makefile"],
    });
    expect(res).toMatchObject({ scope: "project", status: "created" });
    expect(res.id).toMatch(/^[0-9A-Z]{26}$/);
    id = res.id;
    const files = readdirSync(join(sb.cofferHome, "memory", "projects"));
    expect(files.length).toBe(1);
    const text = readFileSync(join(sb.cofferHome, "memory", "projects", files[0]!, "entries", `${id}.md`), "utf8");
    expect(text).toContain("actor: agent:claude-code");
    expect(text).toContain("source: mcp");
    expect(text).toContain("kind: convention");
  });

  test("remember of the same text (case/punctuation folded) reports duplicate", async () => {
    const res = await mcp.ok("remember", { text: "releases go out with make release never git push tags" });
    expect(res).toEqual({ id, scope: "project", status: "duplicate" });
  });

  test("remember with id rewrites the entry", async () => {
    const res = await mcp.ok("remember", {
      id,
      text: "Releases go out with `make release` (tags are pushed by CI).",
      title: "Release process",
      kind: "convention",
    });
    expect(res).toEqual({ id, scope: "project", status: "updated" });
  });

  test("remember scope global", async () => {
    const res = await mcp.ok("remember", {
      text: "Prefer pnpm over npm in every repository.",
      kind: "preference",
      scope: "global",
    });
    expect(res).toMatchObject({ scope: "global", status: "created" });
  });

  test("read returns the whole entry", async () => {
    const e = await mcp.ok("read", { id });
    expect(e).toMatchObject({
      id,
      scope: "project",
      kind: "convention",
      title: "Release process",
      tags: ["release", "ci"],
      applies_to: ["Makefile"],
      actor: "agent:claude-code",
      source: "mcp",
      text: "Releases go out with `make release` (tags are pushed by CI).",
    });
    expect(e.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(e.updated).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  test("read accepts a lowercase id", async () => {
    expect((await mcp.ok("read", { id: id.toLowerCase() })).id).toBe(id);
  });

  test("recall (keyword) finds project and global entries with the spec's hit shape", async () => {
    const res = await mcp.ok("recall", { query: "release process" });
    expect(res.hits.length).toBeGreaterThanOrEqual(1);
    const hit = res.hits[0];
    expect(Object.keys(hit).sort()).toEqual(["id", "kind", "scope", "score", "text", "title", "updated"]);
    expect(hit).toMatchObject({ id, scope: "project", kind: "convention", title: "Release process" });
    expect(typeof hit.score).toBe("number");
    const g = await mcp.ok("recall", { query: "pnpm", scope: "global" });
    expect(g.hits.map((h: any) => h.scope)).toEqual(["global"]);
    const p = await mcp.ok("recall", { query: "pnpm", scope: "project" });
    expect(p.hits).toEqual([]);
  });

  test("recall shares the hook's query analysis: a vocabulary and a stemmed paraphrase, explained on request", async () => {
    // "Prefer pnpm over npm in every repository." was remembered globally above.
    const res = await mcp.ok("recall", { query: "which package manager do we use?", explain: true });
    expect(res.hits[0].text).toBe("Prefer pnpm over npm in every repository.");
    expect(res.hits[0].explain.terms[0]).toMatchObject({ term: "package manager", source: "vocabulary" });
    expect(["pnpm", "npm"]).toContain(res.hits[0].explain.terms[0].via);
    const stem = await mcp.ok("recall", { query: "preferring", explain: true });
    expect(stem.hits[0].explain.terms).toEqual([{ term: "preferring", field: "title", stemmed: true }]);
    expect(await mcp.fail("recall", { query: "x", explain: "yes" })).toContain("explain must be true or false");
  });

  test("recall top_k limits the hits", async () => {
    for (let i = 0; i < 6; i++)
      await mcp.ok("remember", { text: `Widget fact number ${i}: widgets are blue ${"x".repeat(i)}` });
    expect((await mcp.ok("recall", { query: "widgets" })).hits.length).toBe(5);
    expect((await mcp.ok("recall", { query: "widgets", top_k: 2 })).hits.length).toBe(2);
    expect((await mcp.ok("recall", { query: "widgets", top_k: 20 })).hits.length).toBe(6);
  });

  test("recall mode grep returns matching lines", async () => {
    const res = await mcp.ok("recall", { query: "make release", mode: "grep" });
    expect(res.hits.length).toBe(1);
    expect(res.hits[0]).toMatchObject({ id, kind: "convention", scope: "project" });
    expect(res.hits[0].text).toContain("1: Releases go out with `make release`");
    const rx = await mcp.ok("recall", { query: "/number [0-2]:/", mode: "grep", top_k: 20 });
    expect(rx.hits.length).toBe(3);
  });

  test("list: total, newest first, kind filter and limit", async () => {
    const all = await mcp.ok("list", {});
    expect(all.total).toBe(8);
    expect(Object.keys(all.entries[0]).sort()).toEqual(["id", "kind", "title", "updated"]);
    const updated = all.entries.map((e: any) => e.updated);
    expect([...updated].sort().reverse()).toEqual(updated);
    expect((await mcp.ok("list", { kind: "convention" })).entries.map((e: any) => e.id)).toEqual([id]);
    expect((await mcp.ok("list", { scope: "global" })).total).toBe(1);
    const two = await mcp.ok("list", { limit: 2 });
    expect(two.total).toBe(8);
    expect(two.entries.length).toBe(2);
  });

  test("forget deletes the entry", async () => {
    const gone = await mcp.ok("remember", { text: "A short-lived note to delete" });
    expect(await mcp.ok("forget", { id: gone.id })).toEqual({ id: gone.id, status: "deleted" });
    expect(await mcp.fail("read", { id: gone.id })).toContain("no entry with id");
  });

  test("resume before any handoff: found false; set_handoff then resume", async () => {
    expect(await mcp.ok("resume", {})).toEqual({ found: false });
    const saved = await mcp.ok("set_handoff", {
      body: "Half way through the release script rewrite; next: tests for --dry-run.",
    });
    expect(saved).toEqual({ status: "saved", branch: "main", scope: "project" });
    const r = await mcp.ok("resume");
    expect(r).toMatchObject({
      found: true,
      branch: "main",
      body: "Half way through the release script rewrite; next: tests for --dry-run.",
    });
    // freshness from the repository: nothing moved since, so not stale
    expect(r.stale).toBe(false);
    expect(r.note).toMatch(/^saved \d+ s ago; no commits or file changes since$/);
  });

  test("changes made by another process are seen by the running server", async () => {
    const cli = sb.run(["remember", "Written by the CLI while the MCP server runs: zebra stripes", "--json"], {
      cwd: repo,
    });
    expect(cli.code).toBe(0);
    const cliId = cli.json().id;
    expect((await mcp.ok("recall", { query: "zebra" })).hits.map((h: any) => h.id)).toEqual([cliId]);
    expect(sb.run(["forget", cliId], { cwd: repo }).code).toBe(0);
    expect((await mcp.ok("recall", { query: "zebra" })).hits).toEqual([]);
  });
});

describe("error paths (in-band isError with what to fix)", () => {
  test("remember: missing, empty, whitespace-only and oversized text", async () => {
    expect(await mcp.fail("remember", {})).toBe("text is required");
    expect(await mcp.fail("remember", { text: 42 })).toBe("text must be a string");
    expect(await mcp.fail("remember", { text: "" })).toContain("text is empty");
    expect(await mcp.fail("remember", { text: "   \n " })).toContain("text is empty");
    const big = await mcp.fail("remember", { text: "x".repeat(8193) });
    expect(big).toContain("8193 characters; the limit is 8192");
    expect(big).toContain("Shorten it");
    expect((await mcp.ok("list", { limit: 200 })).entries.length).toBe(8); // nothing written
  });

  test("remember: bad title, kind, tags, applies_to", async () => {
    expect(await mcp.fail("remember", { text: "ok", title: "t".repeat(121) })).toContain(
      "title is 121 characters; the limit is 120",
    );
    expect(await mcp.fail("remember", { text: "ok", kind: "rumour" })).toContain("kind must be one of: fact, decision");
    expect(await mcp.fail("remember", { text: "ok", tags: "release" })).toContain("tags must be a list of strings");
    expect(await mcp.fail("remember", { text: "ok", applies_to: ["../etc/passwd"] })).toContain(
      "invalid applies_to glob",
    );
  });

  test("unknown id for read, forget and remember-rewrite", async () => {
    for (const tool of ["read", "forget"]) {
      const msg = await mcp.fail(tool, { id: "01ZZZZZZZZZZZZZZZZZZZZZZZZ" });
      expect(msg).toContain('no entry with id "01ZZZZZZZZZZZZZZZZZZZZZZZZ"');
      expect(msg).toContain("coffer__recall or coffer__list");
    }
    expect(await mcp.fail("remember", { id: "01ZZZZZZZZZZZZZZZZZZZZZZZZ", text: "x" })).toContain("no entry with id");
    expect(await mcp.fail("read", {})).toMatch(/id/);
    expect(await mcp.fail("read", { id: "" })).toContain("id is empty");
  });

  test("bad scope, mode, top_k, limit", async () => {
    expect(await mcp.fail("recall", { query: "x", scope: "teams" })).toContain(
      'scope must be "project", "team" or "global"',
    );
    expect(await mcp.fail("remember", { text: "x", scope: "everywhere" })).toContain(
      'scope must be "project", "team" or "global"',
    );
    expect(await mcp.fail("list", { scope: "all" })).toContain('scope must be "project", "team" or "global"');
    expect(await mcp.fail("recall", { query: "x", mode: "vector" })).toContain('mode must be "keyword" or "grep"');
    expect(await mcp.fail("recall", { query: "x", top_k: 21 })).toContain("top_k must be at most 20");
    expect(await mcp.fail("recall", { query: "x", top_k: 0 })).toContain("top_k must be at least 1");
    expect(await mcp.fail("recall", { query: "x", top_k: 2.5 })).toContain("top_k must be an integer");
    expect(await mcp.fail("list", { limit: 201 })).toContain("limit must be at most 200");
    expect(await mcp.fail("recall", { query: "" })).toContain("query is empty");
    expect(await mcp.fail("recall", { query: "/[unclosed/", mode: "grep" })).toContain("invalid regular expression");
  });

  test("unknown argument and unknown tool", async () => {
    const msg = await mcp.fail("recall", { query: "x", limit: 3 });
    expect(msg).toContain('unknown argument "limit"');
    expect(msg).toContain("allowed: query, scope, top_k, mode, explain, cwd");
    const res = (await mcp.client.callTool({ name: "coffer__nope", arguments: {} })) as any;
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toContain('unknown tool "coffer__nope"');
  });

  test("cwd must be an absolute, existing directory", async () => {
    expect(await mcp.fail("list", { cwd: "relative/dir" })).toContain(
      "cwd must be an absolute path of an existing directory",
    );
    expect(await mcp.fail("list", { cwd: join(sb.root, "missing") })).toContain("cwd must be an absolute path");
    expect(await mcp.fail("list", { cwd: join(repo, ".git", "HEAD") })).toContain("cwd must be an absolute path");
  });

  test("set_handoff, resume and scope project outside a git project", async () => {
    const set = await mcp.fail("set_handoff", { body: "where things stand", cwd: plain });
    expect(set).toContain("needs a git project");
    expect(set).toContain(plain);
    expect(set).toContain("pass cwd");
    expect(await mcp.fail("resume", { cwd: plain })).toContain("needs a git project");
    const rem = await mcp.fail("remember", { text: "x", scope: "project", cwd: plain });
    expect(rem).toContain('or scope "global"');
    expect(await mcp.fail("set_handoff", { body: "" })).toContain("body is empty");
  });

  test("a server started outside any repository: global default, set_handoff refuses", async () => {
    const outside = await stdioClient(sb, plain, "codex-mcp-client");
    try {
      expect(await outside.fail("set_handoff", { body: "notes" })).toContain("needs a git project");
      const r = await outside.ok("remember", { text: "Written from outside any repository" });
      expect(r.scope).toBe("global");
      const e = await outside.ok("read", { id: r.id });
      expect(e.actor).toBe("agent:codex-mcp-client");
    } finally {
      await outside.close();
    }
  });
});

describe("project scoping by cwd", () => {
  test("a cwd argument selects another project; the server's cwd stays the default", async () => {
    const inBeta = await mcp.ok("remember", { text: "Beta uses tabs for indentation", kind: "convention", cwd: other });
    expect(inBeta.scope).toBe("project");
    // Not visible from alpha (the server's cwd) ...
    expect((await mcp.ok("recall", { query: "tabs indentation" })).hits).toEqual([]);
    expect((await mcp.ok("list", { kind: "convention" })).entries.length).toBe(1);
    // ... but from beta, by argument ...
    const hits = (await mcp.ok("recall", { query: "tabs indentation", cwd: other })).hits;
    expect(hits.map((h: any) => [h.id, h.scope])).toEqual([[inBeta.id, "project"]]);
    // ... and from a server started in beta.
    const beta = await stdioClient(sb, other);
    try {
      expect((await beta.ok("list", { scope: "project" })).entries.map((e: any) => e.id)).toEqual([inBeta.id]);
      expect(await beta.ok("resume")).toEqual({ found: false }); // alpha's handoff is alpha's
    } finally {
      await beta.close();
    }
    expect(readdirSync(join(sb.cofferHome, "memory", "projects")).length).toBe(2);
  });

  test("a subdirectory of the repository is the same project", async () => {
    const sub = join(repo, "src", "deep");
    mkdirSync(sub, { recursive: true });
    expect((await mcp.ok("recall", { query: "release process", cwd: sub })).hits[0].scope).toBe("project");
    expect((await mcp.ok("resume", { cwd: sub })).found).toBe(true);
  });

  test("handoffs are per branch", async () => {
    const head = join(repo, ".git", "HEAD");
    writeFileSync(head, "ref: refs/heads/feature/x\n");
    try {
      expect(await mcp.ok("resume")).toEqual({ found: false });
      expect((await mcp.ok("set_handoff", { body: "feature work" })).branch).toBe("feature/x");
    } finally {
      writeFileSync(head, "ref: refs/heads/main\n");
    }
    expect((await mcp.ok("resume")).body).toContain("release script");
  });
});

describe("stdio hygiene", () => {
  test("stdout carries only JSON-RPC, even when the store prints a notice", async () => {
    // A missing index.db makes the store rebuild it and say so: that notice must go to stderr.
    rmSync(join(sb.cofferHome, "state", "index.db"), { force: true });
    const proc = Bun.spawn([BIN, "serve", "--stdio"], {
      cwd: repo,
      env: sb.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const send = (msg: object) => proc.stdin.write(`${JSON.stringify(msg)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "coffer__recall", arguments: { query: "release" } },
    });
    send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "coffer__remember", arguments: { text: "" } },
    });
    await proc.stdin.flush();
    let out = "";
    const reader = proc.stdout.getReader();
    const dec = new TextDecoder();
    while (out.split("\n").filter(Boolean).length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      out += dec.decode(value);
    }
    proc.stdin.end();
    expect(await proc.exited).toBe(0); // closing stdin ends the server
    const lines = out.split("\n").filter(Boolean);
    expect(lines.length).toBe(3);
    for (const line of lines) expect(JSON.parse(line).jsonrpc).toBe("2.0");
    // Responses are matched by id (JSON-RPC): tool calls run concurrently and may answer out of order.
    const byId = new Map(lines.map((l) => [JSON.parse(l).id, JSON.parse(l)]));
    expect([...byId.keys()].sort()).toEqual([1, 2, 3]);
    expect(byId.get(2).result.structuredContent.hits[0].title).toBe("Release process");
    expect(byId.get(3).result.isError).toBe(true);
    expect(await new Response(proc.stderr).text()).toContain("index.db was missing; rebuilt it");
  });
});

describe("outputSchema", () => {
  test("every tool declares one; each call's structuredContent validates against it", async () => {
    const { tools } = await mcp.client.listTools();
    const validator = new AjvJsonSchemaValidator();
    const check = Object.fromEntries(
      tools.map((t) => {
        expect(t.outputSchema?.type).toBe("object");
        return [t.name.replace("coffer__", ""), validator.getValidator(t.outputSchema!)];
      }),
    );
    expect(JSON.stringify(tools.map((t) => t.outputSchema)).length).toBeLessThan(5000);
    const valid = async (name: string, args: Record<string, unknown>) => {
      const out = await mcp.ok(name, args);
      const res = check[name]!(out);
      if (!res.valid) throw new Error(`${name}: ${res.errorMessage}\n${JSON.stringify(out)}`);
      return out;
    };
    const gamma = sb.repo("gamma", "https://github.com/acme/gamma.git");
    expect((await valid("resume", { cwd: gamma })).found).toBe(false);
    const made = await valid("remember", { text: "Schemas are checked by the client", tags: ["mcp"] });
    await valid("read", { id: made.id });
    expect((await valid("recall", { query: "schemas checked client", explain: true })).hits[0].explain).toBeDefined();
    await valid("recall", { query: "checked", mode: "grep" });
    await valid("list", { limit: 3 });
    await valid("set_handoff", { body: "Output schemas declared; tests next.", cwd: gamma });
    expect((await valid("resume", { cwd: gamma })).found).toBe(true);
    await valid("forget", { id: made.id });
    // Not a schema that accepts anything: a wrong shape fails.
    expect(check.recall!({ hits: [{ id: 1 }] }).valid).toBe(false);
    expect(check.resume!({ found: true }).valid).toBe(false);
  });
});
