import { defineCommand } from "citty";
import { usageError } from "../lib/errors";
import { withExamples } from "./_run";

export default withExamples(
  defineCommand({
    meta: { name: "serve", description: "Web UI + HTTP API + MCP + background worker; --stdio for MCP over stdio" },
    args: {
      stdio: { type: "boolean", description: "Serve MCP over stdin/stdout (what agents start); no HTTP, no worker" },
      port: {
        type: "string",
        description: "TCP port (default: serve.port in config.toml, 26333; 0 picks a free one)",
        valueHint: "26333",
      },
      host: {
        type: "string",
        description: "Address to bind (default 127.0.0.1; anything else exposes the API beyond this machine)",
        valueHint: "127.0.0.1",
      },
      worker: {
        type: "boolean",
        default: true,
        description: "No background worker (by default it drains the session-end queue and sweeps transcripts)",
      },
    },
    async run({ args }) {
      if (args.stdio) {
        // Agents start this at every session: load the MCP SDK only here.
        const { runStdioServer } = await import("../mcp/stdio");
        return runStdioServer();
      }
      let port: number | undefined;
      if (args.port !== undefined) {
        port = Number(args.port);
        if (!/^\d+$/.test(String(args.port)) || port > 65535)
          throw usageError(`--port must be 0..65535 (got ${JSON.stringify(args.port)})`);
      }
      const { runHttpServer } = await import("../serve/http");
      const { createWeb } = await import("../web/server");
      await runHttpServer({ port, host: args.host, worker: args.worker !== false, ui: createWeb });
    },
  }),
  [
    "coffer serve                 # http://127.0.0.1:26333; prints a one-time login link for the web UI",
    "coffer serve --port 0        # any free port; the URL is printed at start",
    "coffer serve --stdio         # MCP over stdio, as agents run it",
  ],
);
