import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { type Sandbox, sandbox, startServe } from "../kit";

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-serve-life-");
  repo = sb.repo("alpha");
});

afterAll(() => sb?.cleanup());

const serveJson = () => join(sb.cofferHome, "state", "serve.json");
const tokenFile = () => join(sb.cofferHome, "state", "token");

describe("coffer serve lifecycle", () => {
  test("SIGTERM and SIGINT shut down cleanly and remove serve.json", async () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const s = await startServe(sb, repo);
      expect(JSON.parse(readFileSync(serveJson(), "utf8"))).toMatchObject({
        pid: s.proc.pid,
        port: s.port,
        host: "127.0.0.1",
      });
      expect(statSync(serveJson()).mode & 0o777).toBe(0o600);
      expect((await s.api("/healthz")).status).toBe(200);
      s.proc.kill(signal);
      expect(await s.proc.exited).toBe(0);
      expect(existsSync(serveJson())).toBe(false);
      expect(s.stderr()).toContain(`${signal}: shutting down`);
      await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
    }
  });

  test("the token is created 0600 once and kept across restarts", async () => {
    const first = await startServe(sb, repo, ["--no-worker"]);
    const token = readFileSync(tokenFile(), "utf8").trim();
    expect(token.length).toBeGreaterThanOrEqual(43);
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
    await first.stop();
    chmodSync(tokenFile(), 0o644);
    const second = await startServe(sb, repo, ["--no-worker"]);
    expect(second.token).toBe(token);
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600); // tightened again
    expect((await second.api("/api/v1/entries")).status).toBe(200);
    await second.stop();
  });

  test("a taken port: clear message, exit 1, the running server's serve.json untouched", async () => {
    const s = await startServe(sb, repo, ["--no-worker"]);
    const before = readFileSync(serveJson(), "utf8");
    const res = sb.run(["serve", "--port", String(s.port)], { cwd: repo });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`port ${s.port} on 127.0.0.1 is already in use (coffer serve, pid ${s.proc.pid})`);
    expect(res.stderr).toContain("--port");
    expect(res.stdout).toBe("");
    expect(readFileSync(serveJson(), "utf8")).toBe(before);
    expect((await s.api("/healthz")).status).toBe(200);
    await s.stop();
    // Any other program holding the port gets the same clear refusal.
    const squatter = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("mine") });
    try {
      const other = sb.run(["serve", "--port", String(squatter.port)], { cwd: repo });
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(
        `port ${squatter.port} on 127.0.0.1 is already in use (another coffer serve, or another program)`,
      );
    } finally {
      squatter.stop(true);
    }
  });

  test("--host 0.0.0.0 warns, and still refuses foreign Host names", async () => {
    const s = await startServe(sb, repo, ["--no-worker", "--host", "0.0.0.0"]);
    try {
      expect(s.stderr()).toContain("reachable from other machines");
      expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
      const local = `http://127.0.0.1:${s.port}`;
      expect((await fetch(`${local}/healthz`)).status).toBe(200);
      const evil = await fetch(`${local}/healthz`, { headers: { host: "evil.example" } });
      expect(evil.status).toBe(403);
      const named = await fetch(`${local}/healthz`, { headers: { host: `${hostname()}:${s.port}` } });
      expect(named.status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  test("a bad --port is a usage error", () => {
    const res = sb.run(["serve", "--port", "http"], { cwd: repo });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("--port must be 0..65535");
  });

  test("the worker runs in serve and reports through /healthz", async () => {
    sb.run(["config", "set", "serve.worker_interval_seconds", "5"], { cwd: repo });
    const s = await startServe(sb, repo);
    try {
      const deadline = Date.now() + 8000;
      let status: any;
      do {
        await Bun.sleep(200);
        status = (await (await s.api("/healthz")).json()).worker;
      } while (status.passes < 1 && Date.now() < deadline);
      expect(status.passes).toBeGreaterThanOrEqual(1);
      expect(status.last_pass).toMatch(/^\d{4}-/);
    } finally {
      await s.stop();
    }
    const off = await startServe(sb, repo, ["--no-worker"]);
    expect((await (await off.api("/healthz")).json()).worker).toBeNull();
    await off.stop();
  });

  test("--help documents the flags", () => {
    const res = sb.run(["serve", "--help"]);
    expect(res.code).toBe(0);
    for (const flag of ["--stdio", "--port", "--host", "--no-worker"]) expect(res.stdout).toContain(flag);
  });
});
