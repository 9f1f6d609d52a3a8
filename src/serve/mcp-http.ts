/**
 * MCP Streamable HTTP at `/mcp`: one MCP server + transport per session (so each session knows
 * its client's name for `actor`), JSON responses instead of SSE streams, no standalone GET stream.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMcpServer } from "../mcp/server";
import { BODY_MAX, readBodyText } from "./body";
import { HttpError } from "./errors";

type Session = { server: Server; transport: WebStandardStreamableHTTPServerTransport; lastUsed: number };

/** Oldest idle sessions are closed beyond this many (clients that vanish never send DELETE). */
const MAX_SESSIONS = 64;

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

export type McpHttp = {
  handle: (req: Request) => Promise<Response>;
  close: () => Promise<void>;
  sessions: () => number;
};

export function createMcpHttp(opts: { cwd: string; log: (m: string) => void }): McpHttp {
  const sessions = new Map<string, Session>();

  const drop = async (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    try {
      await s.server.close();
    } catch {}
  };

  const evict = async () => {
    while (sessions.size > MAX_SESSIONS) {
      const oldest = [...sessions.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (!oldest) break;
      await drop(oldest[0]);
    }
  };

  async function handle(req: Request): Promise<Response> {
    if (req.method === "GET") {
      // No server-initiated messages: clients treat 405 as "no standalone SSE stream".
      return new Response(null, { status: 405, headers: { allow: "POST, DELETE" } });
    }
    const sid = req.headers.get("mcp-session-id");
    if (req.method === "DELETE") {
      if (!sid || !sessions.has(sid)) return rpcError(404, -32001, "Session not found");
      const s = sessions.get(sid)!;
      const res = await s.transport.handleRequest(req);
      await drop(sid);
      return res;
    }
    if (req.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST, DELETE" } });

    let parsed: unknown;
    try {
      const text = await readBodyText(req);
      parsed = JSON.parse(text);
    } catch (err) {
      if (err instanceof HttpError) throw err;
      return rpcError(400, -32700, `Parse error: ${(err as Error).message}`);
    }

    if (sid) {
      const s = sessions.get(sid);
      if (!s) return rpcError(404, -32001, "Session not found; start a new one with initialize");
      s.lastUsed = Date.now();
      return s.transport.handleRequest(req, { parsedBody: parsed });
    }

    // No session yet: only an initialize request may open one; the transport answers anything else.
    const server = createMcpServer({ cwd: opts.cwd, source: "mcp", log: opts.log });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
      maxRequestBodySize: BODY_MAX,
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport, lastUsed: Date.now() });
        void evict();
      },
    });
    server.onerror = (err) => opts.log(`mcp: ${err.message}`);
    await server.connect(transport);
    const res = await transport.handleRequest(req, { parsedBody: parsed });
    if (!transport.sessionId || !sessions.has(transport.sessionId)) {
      try {
        await server.close();
      } catch {}
    }
    return res;
  }

  return {
    handle,
    sessions: () => sessions.size,
    close: async () => {
      for (const id of [...sessions.keys()]) await drop(id);
    },
  };
}
