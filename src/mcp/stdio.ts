/**
 * `coffer serve --stdio`: MCP over stdin/stdout. stdout carries only the protocol; every log
 * line goes to stderr. The process ends when the client closes stdin.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer } from "./server";

export async function runStdioServer(cwd = process.cwd()): Promise<void> {
  const log = (m: string) => process.stderr.write(`coffer: ${m}\n`);
  const server = createMcpServer({ cwd, source: "mcp", log });
  const transport = new StdioServerTransport();
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
