import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { httpClient, type Mcp, type Sandbox, sandbox, startServe, stdioClient, type ToolResult } from "../kit";

let sb: Sandbox;
let repo: string;
let clients: Mcp[] = [];

beforeAll(async () => {
  sb = sandbox("coffer-mcp-conc-");
  repo = sb.repo("busy", "https://github.com/acme/busy.git");
  clients = await Promise.all([0, 1, 2, 3].map((i) => stdioClient(sb, repo, `writer-${i}`)));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  sb?.cleanup();
});

test("4 MCP clients x 100 writes into one scope: 400 entries, none lost, no SQLITE_BUSY", async () => {
  const started = performance.now();
  const failures: string[] = [];
  const ids = await Promise.all(
    clients.map(async (mcp, c) => {
      const mine: string[] = [];
      for (let i = 0; i < 100; i++) {
        const res = await mcp.call("remember", {
          text: `Writer ${c} fact ${i}: component-${c}-${i} owns queue ${i * 7 + c}`,
          tags: [`w${c}`],
        });
        if (res.isError) failures.push(res.content[0]?.text ?? "");
        else mine.push(res.structuredContent.id);
      }
      return mine;
    }),
  );
  const ms = Math.round(performance.now() - started);
  process.stderr.write(`[concurrency] 400 MCP writes from 4 stdio clients in ${ms} ms\n`);
  expect(failures).toEqual([]);
  const all = ids.flat();
  expect(new Set(all).size).toBe(400);
  for (const c of clients) expect(c.stderr()).not.toMatch(/SQLITE_BUSY|database is locked/i);

  const project = readdirSync(join(sb.cofferHome, "memory", "projects"))[0]!;
  expect(
    readdirSync(join(sb.cofferHome, "memory", "projects", project, "entries")).filter((n) => n.endsWith(".md")).length,
  ).toBe(400);
  const listed = await clients[0]!.ok("list", { scope: "project", limit: 200 });
  expect(listed.total).toBe(400);
  const cli = sb.run(["list", "--json", "--limit", "1000", "--scope", "project"], { cwd: repo });
  expect(new Set(cli.json().entries.map((e: any) => e.id))).toEqual(new Set(all));
  // Every writer's entries are searchable from every other client.
  for (let c = 0; c < 4; c++) {
    const hits = (await clients[(c + 1) % 4]!.ok("recall", { query: `component-${c}-42 owns`, mode: "grep" })).hits;
    expect(hits.length).toBe(1);
    expect(hits[0].text).toContain(`Writer ${c} fact 42`);
  }
});

test("HTTP and stdio MCP writers at once (one serve process + two stdio servers): every write kept", async () => {
  const served = await startServe(sb, repo, ["--no-worker"]);
  const http = await Promise.all([0, 1, 2, 3].map((i) => httpClient(served, `http-writer-${i}`)));
  try {
    const writers = [...http, clients[0]!, clients[1]!];
    const started = performance.now();
    const results = await Promise.all(
      writers.map(async (mcp, w) => {
        const out: ToolResult[] = [];
        for (let i = 0; i < 50; i++)
          out.push(await mcp.call("remember", { text: `Mixed writer ${w} item ${i}: shard-${w}-${i}` }));
        return out;
      }),
    );
    process.stderr.write(
      `[concurrency] 300 MCP writes from 4 HTTP + 2 stdio clients in ${Math.round(performance.now() - started)} ms\n`,
    );
    const flat = results.flat();
    expect(flat.filter((r) => r.isError).map((r) => r.content[0]?.text)).toEqual([]);
    expect(new Set(flat.map((r) => r.structuredContent.id)).size).toBe(300);
    expect((await http[0]!.ok("list", { scope: "project", limit: 1 })).total).toBe(700);
    expect(served.stderr()).not.toMatch(/SQLITE_BUSY|database is locked|failed/i);
  } finally {
    await Promise.all(http.map((c) => c.close()));
    await served.stop();
  }
});
