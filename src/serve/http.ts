/**
 * `coffer serve`: one Bun HTTP server for `/healthz`, the `/api/v1` routes and MCP Streamable
 * HTTP at `/mcp`, plus the background worker and auto-sync (shutdown waits for both). Loopback
 * only unless `--host` is given; every /api and /mcp request needs the bearer token; the Host
 * header must name us.
 */

import pkg from "../../package.json" with { type: "json" };
import { loadConfig } from "../config/config";
import { CofferError } from "../lib/errors";
import { paths } from "../lib/paths";
import type { Periodic } from "../lib/periodic";
import { isoNow } from "../lib/time";
import { allowedHosts, ensureToken, hasBearer, hostAllowed, originAllowed } from "./auth";
import { BODY_MAX, declaredTooLarge, tooLarge } from "./body";
import { errorResponse, HttpError, json } from "./errors";
import { createMcpHttp, type McpHttp } from "./mcp-http";
import type { UiFactory, UiMount } from "./mount";
import { readServeInfo, removeServeInfo, writeServeInfo } from "./state";
import { handleApi } from "./v1-routes";
import { startWorker, type Worker } from "./worker";

export type HttpServerOptions = { port?: number; host?: string; worker?: boolean; cwd?: string; ui?: UiFactory };

const LOOPBACK_BINDS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

const log = (m: string) => process.stderr.write(`coffer serve: ${m}\n`);

/** The URL to reach the server from this machine (a wildcard bind is reached via loopback). */
function urlFor(host: string, port: number): string {
  const local = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "[::]" ? "::1" : host;
  const h = local.includes(":") && !local.startsWith("[") ? `[${local}]` : local;
  return `http://${h}:${port}`;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

function isAddrInUse(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === "EADDRINUSE" || /EADDRINUSE|address already in use|port \d+ in use/i.test(e?.message ?? "");
}

/** What requests reach besides the API: set up before listening (mcp) or right after (worker, web UI). */
type Mounts = { mcp: McpHttp; worker?: Worker; web?: UiMount };

type RouteContext = { hosts: Set<string>; token: string; cwd: string; mounts: Mounts };

/** Start the server and keep running until SIGINT/SIGTERM. */
export async function runHttpServer(opts: HttpServerOptions = {}): Promise<void> {
  const config = loadConfig();
  const host = opts.host?.trim() || "127.0.0.1";
  const port = opts.port ?? config["serve.port"];
  const cwd = opts.cwd ?? process.cwd();
  const previous = readServeInfo();
  if (previous && previous.pid !== process.pid && previous.port !== port && pidAlive(previous.pid)) {
    log(`note: another coffer serve (pid ${previous.pid}) is running at ${previous.url}`);
  }
  const { token, created } = ensureToken();
  const mounts: Mounts = { mcp: createMcpHttp({ cwd, log }) };
  const server = listen(host, port, previous, handlerFor({ hosts: allowedHosts(host), token, cwd, mounts }));

  const actualPort = server.port ?? port;
  const url = urlFor(host, actualPort);
  writeServeInfo({ pid: process.pid, port: actualPort, host, url, started: isoNow() });
  mounts.web = opts.ui?.({ port: actualPort, token, cwd, version: pkg.version });
  if (opts.worker !== false) {
    const intervalMs = config["serve.worker_interval_seconds"] * 1000;
    mounts.worker = startWorker({ intervalMs, log });
  }
  const { startAutoSync } = await import("../sync/auto");
  const autoSync = startAutoSync(config);
  announce(host, url, created, mounts.web);
  stopOnSignals(server, mounts, autoSync);
}

/** Every request: Host/Origin checks, /healthz, the web UI's pages, the bearer guard, then /mcp or /api. */
async function route(req: Request, ctx: RouteContext): Promise<Response> {
  if (!hostAllowed(req, ctx.hosts)) {
    throw new HttpError(
      403,
      "forbidden",
      `Host header ${JSON.stringify(req.headers.get("host") ?? "")} is not allowed; use http://127.0.0.1:<port>`,
    );
  }
  if (!originAllowed(req, ctx.hosts))
    throw new HttpError(403, "forbidden", `Origin ${req.headers.get("origin")} is not allowed`);
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw new HttpError(400, "bad_request", "the request's URL (path and Host header) is malformed");
  }
  const { mcp, web, worker } = ctx.mounts;
  if (url.pathname === "/healthz") {
    if (req.method !== "GET" && req.method !== "HEAD")
      throw new HttpError(405, "method_not_allowed", "use GET /healthz", null, { allow: "GET" });
    return json({ ok: true, version: pkg.version, worker: worker?.status() ?? null });
  }
  const guarded = url.pathname === "/mcp" || url.pathname === "/api" || url.pathname.startsWith("/api/");
  // The web UI: its page, assets and login; its API calls pass the guard below with a session cookie.
  if (!guarded && web) return web.page(req, url);
  if (!hasBearer(req, ctx.token) && (url.pathname === "/mcp" || !web?.authorized(req))) {
    throw new HttpError(
      401,
      "unauthorized",
      `missing or wrong bearer token; send "Authorization: Bearer <token>" with the token from ${paths.token()}`,
      null,
      {
        "www-authenticate": 'Bearer realm="coffer"',
      },
    );
  }
  if (declaredTooLarge(req)) throw tooLarge();
  if (url.pathname === "/mcp") return mcp.handle(req);
  if (web?.owns(url)) return web.api(req, url);
  return handleApi(req, url, { cwd: ctx.cwd, log });
}

/** route() with every failure turned into an error envelope (500s are logged with their stack). */
function handlerFor(ctx: RouteContext): (req: Request) => Promise<Response> {
  return async (req) => {
    try {
      return await route(req, ctx);
    } catch (err) {
      if (err instanceof HttpError) return errorResponse(err);
      log(`${req.method} ${URL.parse(req.url)?.pathname ?? req.url} failed: ${(err as Error)?.stack ?? String(err)}`);
      return errorResponse(new HttpError(500, "internal", `internal error: ${(err as Error)?.message ?? String(err)}`));
    }
  };
}

/** Bind the port, or explain who holds it. */
function listen(
  host: string,
  port: number,
  previous: ReturnType<typeof readServeInfo>,
  fetch: (req: Request) => Promise<Response>,
): ReturnType<typeof Bun.serve> {
  try {
    return Bun.serve({
      hostname: host,
      port,
      // Our own cap (1 MiB -> 413 with an error envelope) applies first; this is the backstop.
      maxRequestBodySize: BODY_MAX * 8,
      idleTimeout: 60,
      fetch,
      error: (err) => {
        log(`request failed: ${err.stack ?? err.message}`);
        return errorResponse(new HttpError(500, "internal", "internal error"));
      },
    });
  } catch (err) {
    if (isAddrInUse(err)) {
      const owner =
        previous && previous.port === port && pidAlive(previous.pid)
          ? `coffer serve, pid ${previous.pid}`
          : "another coffer serve, or another program";
      throw new CofferError(
        `port ${port} on ${host} is already in use (${owner})`,
        1,
        "Stop that process, or pick another port with --port (0 = any free port).",
      );
    }
    throw new CofferError(`cannot listen on ${host}:${port}: ${(err as Error).message}`, 1, "Check --host and --port.");
  }
}

function announce(host: string, url: string, createdToken: boolean, web: UiMount | undefined): void {
  if (!LOOPBACK_BINDS.has(host))
    log(`listening on ${host}: the API is reachable from other machines (bearer token still required)`);
  if (createdToken) log(`created the API token in ${paths.token()}`);
  process.stdout.write(`Coffer serving on ${url} (MCP at ${url}/mcp; bearer token in ${paths.token()})\n`);
  if (web) process.stdout.write(`Web UI: ${web.loginUrl(url)} (one-time login link)\n`);
}

/**
 * SIGINT/SIGTERM: let the background loops finish the pass in progress, then close MCP sessions
 * and the server and exit 0. A second signal exits at once.
 */
function stopOnSignals(server: ReturnType<typeof Bun.serve>, mounts: Mounts, autoSync: Periodic): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      // A second signal while waiting for a background pass: the user insists.
      log(`${signal} again: exiting now`);
      removeServeInfo();
      process.exit(1);
    }
    stopping = true;
    log(`${signal}: shutting down`);
    // A sync (commit, rebase, push) or a worker pass in progress finishes first; both are bounded
    // (network and model timeouts), and the worker stops after the session it is distilling.
    if (autoSync.running() || mounts.worker?.status().running)
      log("waiting for the background pass in progress (send the signal again to exit at once)");
    await Promise.all([autoSync.stop(), mounts.worker?.stop()]);
    // Never hang on a stuck request: exit within a few seconds whatever happens.
    setTimeout(() => {
      removeServeInfo();
      process.exit(0);
    }, 5000).unref();
    await mounts.mcp.close();
    await server.stop();
    removeServeInfo();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("exit", () => removeServeInfo());
}
