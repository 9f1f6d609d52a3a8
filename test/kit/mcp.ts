/**
 * MCP and serve: the SDK's own Client over stdio (spawning the compiled binary)
 * or Streamable HTTP, and a `coffer serve --port 0` process with its URL and token.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN, type Sandbox } from "./sandbox";

export type Mcp = {
  client: Client;
  /** Call a tool; returns the whole result (content, structuredContent, isError). */
  call: (name: string, args?: Record<string, unknown>) => Promise<ToolResult>;
  /** Call a tool that must succeed; returns structuredContent after checking it equals the JSON text. */
  ok: (name: string, args?: Record<string, unknown>) => Promise<any>;
  /** Call a tool that must fail in-band; returns the error message. */
  fail: (name: string, args?: Record<string, unknown>) => Promise<string>;
  stderr: () => string;
  close: () => Promise<void>;
};

export type ToolResult = { content: { type: string; text?: string }[]; structuredContent?: any; isError?: boolean };

function wrap(client: Client, close: () => Promise<void>, stderr: () => string): Mcp {
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name: `coffer__${name}`, arguments: args })) as ToolResult;
  return {
    client,
    call,
    ok: async (name, args) => {
      const res = await call(name, args);
      if (res.isError) throw new Error(`coffer__${name} failed: ${res.content[0]?.text}\n${stderr()}`);
      const text = res.content[0]?.text ?? "";
      if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(res.structuredContent)) {
        throw new Error(`structuredContent differs from the JSON text: ${text}`);
      }
      return res.structuredContent;
    },
    fail: async (name, args) => {
      const res = await call(name, args);
      if (!res.isError) throw new Error(`coffer__${name} should have failed: ${JSON.stringify(res.structuredContent)}`);
      return res.content[0]?.text ?? "";
    },
    stderr,
    close,
  };
}

/** `coffer serve --stdio` in `cwd`, driven by the SDK client named `name`. */
export async function stdioClient(sb: Sandbox, cwd: string, name = "test-agent"): Promise<Mcp> {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["serve", "--stdio"],
    env: sb.env,
    cwd,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  return wrap(
    client,
    () => client.close(),
    () => err,
  );
}

export type Served = {
  url: string;
  port: number;
  token: string;
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  stdout: () => string;
  stderr: () => string;
  /** fetch against the server with the bearer token (unless `auth: false`); a non-string body is sent as JSON. */
  api: (path: string, init?: ApiInit) => Promise<ApiResponse>;
  stop: () => Promise<number>;
};

export type ApiInit = Omit<RequestInit, "body"> & { auth?: boolean; body?: unknown };
export type ApiResponse = Omit<Response, "json"> & { json: () => Promise<any> };

async function collect(stream: ReadableStream<Uint8Array>, into: { text: string }): Promise<void> {
  const dec = new TextDecoder();
  for await (const chunk of stream) into.text += dec.decode(chunk, { stream: true });
}

/** Start `coffer serve --port 0 ...` and wait for the URL line. */
export async function startServe(sb: Sandbox, cwd: string, extra: string[] = []): Promise<Served> {
  const proc = Bun.spawn([BIN, "serve", "--port", "0", ...extra], {
    cwd,
    env: sb.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = { text: "" };
  const err = { text: "" };
  void collect(proc.stdout, out);
  void collect(proc.stderr, err);
  const deadline = Date.now() + 10_000;
  let m: RegExpExecArray | null = null;
  while (!(m = /serving on (http:\/\/[^\s]+:(\d+))/.exec(out.text))) {
    if (proc.exitCode !== null || Date.now() > deadline)
      throw new Error(`coffer serve did not start (exit ${proc.exitCode}):\n${out.text}\n${err.text}`);
    await Bun.sleep(20);
  }
  const url = m[1]!;
  const token = readFileSync(join(sb.cofferHome, "state", "token"), "utf8").trim();
  const api = (path: string, init: ApiInit = {}): Promise<ApiResponse> => {
    const headers = new Headers(init.headers);
    if (init.auth !== false && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
    let body = init.body;
    if (
      body !== undefined &&
      typeof body !== "string" &&
      !(body instanceof Uint8Array) &&
      !(body instanceof ReadableStream)
    ) {
      body = JSON.stringify(body);
      headers.set("content-type", "application/json");
    }
    return fetch(url + path, { ...init, headers, body: body as RequestInit["body"] }) as Promise<ApiResponse>;
  };
  return {
    url,
    port: Number(m[2]),
    token,
    proc,
    stdout: () => out.text,
    stderr: () => err.text,
    api,
    stop: async () => {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      return await proc.exited;
    },
  };
}

/** The SDK client over Streamable HTTP against a running `coffer serve`. */
export async function httpClient(served: Served, name = "http-agent", token = served.token): Promise<Mcp> {
  const transport = new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  return wrap(
    client,
    async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
    served.stderr,
  );
}
