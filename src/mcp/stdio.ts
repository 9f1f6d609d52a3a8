/**
 * `coffer serve --stdio`: MCP over stdin/stdout. stdout carries only the protocol; every log
 * line goes to stderr. The process ends when the client closes stdin.
 *
 * The transport reads newline-delimited JSON-RPC itself (the SDK's stdio transport closes the
 * whole server when one line exceeds its buffer): a line longer than `MAX_LINE` is skipped up to
 * its newline and answered with a JSON-RPC error (its id when the line's start names one), and a
 * line that is not a JSON-RPC message gets a parse error; the server keeps serving either way.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "./server";

/** The longest JSON-RPC line the server reads (one message). */
export const MAX_LINE = 10 * 1024 * 1024;

type Id = string | number | null;

/** The request id at the start of a line (JSON-RPC clients write `{"jsonrpc":"2.0","id":...` first), if any. */
function idAtStart(head: string): Id {
  const m = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return null;
  }
}

/** Newline-delimited JSON-RPC over stdin/stdout with a bounded line length. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Inside a line longer than MAX_LINE: drop bytes up to its newline. */
  private skipping = false;
  private head = "";
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxLine = MAX_LINE,
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    let buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (;;) {
      const nl = buf.indexOf(10);
      const part = nl < 0 ? buf : buf.subarray(0, nl);
      if (!this.skipping) {
        if (this.size + part.length > this.maxLine) {
          this.head = Buffer.concat([...this.chunks, part])
            .subarray(0, 256)
            .toString("utf8");
          this.chunks = [];
          this.size = 0;
          this.skipping = true;
        } else {
          this.chunks.push(part);
          this.size += part.length;
        }
      }
      if (nl < 0) return;
      this.endLine();
      buf = buf.subarray(nl + 1);
    }
  };

  private endLine(): void {
    if (this.skipping) {
      this.skipping = false;
      const mib = Math.round(this.maxLine / 1024 / 1024);
      this.reply(idAtStart(this.head), -32600, `Invalid Request: message larger than ${mib} MiB; it was not read`);
      this.onerror?.(new Error(`skipped a JSON-RPC line larger than ${mib} MiB`));
      this.head = "";
      return;
    }
    const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.size = 0;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      this.reply(idAtStart(line.slice(0, 256)), -32700, "Parse error: not a JSON-RPC message");
      return;
    }
    this.onmessage?.(message);
  }

  private reply(id: Id, code: number, message: string): void {
    void this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage);
  }

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("error", (err: Error) => this.onerror?.(err));
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.chunks = [];
    this.onclose?.();
  }
}

export async function runStdioServer(cwd = process.cwd(), opts: { instructions?: string } = {}): Promise<void> {
  const log = (m: string) => process.stderr.write(`coffer: ${m}\n`);
  const server = createMcpServer({ cwd, source: "mcp", log, instructions: opts.instructions });
  const transport = new LineTransport();
  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    try {
      await server.close();
    } catch {}
    process.exit(code);
  };
  server.onerror = (err) => log(`mcp: ${err.message}`);
  server.onclose = () => void shutdown(0);
  process.stdin.on("end", () => void shutdown(0));
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  await server.connect(transport);
}
