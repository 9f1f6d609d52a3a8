import { defineCommand } from "citty";
import { CofferError, usageError } from "../lib/errors";
import { writeOut } from "../lib/output";
import { withExamples } from "./_run";

/**
 * Ask the running server for a new one-time login link (with the bearer token) and print it: the
 * server on --port, else the one state/serve.json names, else the configured port.
 */
async function printLoginLink(port: number | undefined): Promise<void> {
  const { readFileSync } = await import("node:fs");
  const { paths } = await import("../lib/paths");
  const { readServeInfo } = await import("../serve/state");
  const { loadConfigOrDefaults } = await import("../config/config");
  const info = readServeInfo();
  const base =
    port !== undefined
      ? `http://127.0.0.1:${port}`
      : (info?.url ?? `http://127.0.0.1:${loadConfigOrDefaults()["serve.port"]}`);
  let token = "";
  try {
    token = readFileSync(paths.token(), "utf8").trim();
  } catch {}
  const start = "Start one with `coffer serve` (it prints a login link), or name its port with --port.";
  if (!token) throw new CofferError(`no API token in ${paths.token()}: coffer serve has not run here`, 1, start);
  let res: Response;
  try {
    res = await fetch(`${base}/api/v1/ui/login-link`, { headers: { authorization: `Bearer ${token}` } });
  } catch {
    throw new CofferError(`no coffer serve answers on ${base}`, 1, start);
  }
  if (!res.ok) throw new CofferError(`${base} gave no login link (HTTP ${res.status})`, 1, start);
  const { url } = (await res.json()) as { url: string };
  writeOut(`Web UI: ${url} (one-time login link)\n`);
}

export default withExamples(
  defineCommand({
    meta: { name: "serve", description: "Web UI + HTTP API + MCP + background worker; --stdio for MCP over stdio" },
    args: {
      stdio: { type: "boolean", description: "Serve MCP over stdin/stdout (what agents start); no HTTP, no worker" },
      rules: {
        type: "boolean",
        description:
          "With --stdio: the rules bundle as the server's instructions (for agents whose hooks cannot inject)",
      },
      login: {
        type: "boolean",
        description: "Print a new one-time web UI login link from the server already running (on --port)",
      },
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
        if (!args.rules) return runStdioServer();
        const { rulesInstructions } = await import("../hooks/context");
        return runStdioServer(process.cwd(), { instructions: await rulesInstructions(process.cwd()) });
      }
      let port: number | undefined;
      if (args.port !== undefined) {
        port = Number(args.port);
        if (!/^\d+$/.test(String(args.port)) || port > 65535)
          throw usageError(`--port must be 0..65535 (got ${JSON.stringify(args.port)})`);
      }
      if (args.login) return printLoginLink(port);
      const { runHttpServer } = await import("../serve/http");
      const { createWeb } = await import("../web/server");
      await runHttpServer({ port, host: args.host, worker: args.worker !== false, ui: createWeb });
    },
  }),
  [
    "coffer serve                 # http://127.0.0.1:26333; prints a one-time login link for the web UI",
    "coffer serve --port 0        # any free port; the URL is printed at start",
    "coffer serve --stdio         # MCP over stdio, as agents run it",
    "coffer serve --login         # a new login link from the running server (each link works once)",
  ],
);
