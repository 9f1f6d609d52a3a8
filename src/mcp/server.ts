/**
 * One MCP server definition for both transports: `tools/list` from the tool table, `tools/call`
 * validated and dispatched through it. Results are JSON text plus `structuredContent`; errors a
 * caller can fix come back in-band (`isError: true`) with a message that says what to fix.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import { runTool, TOOL_NAMES, TOOL_PREFIX, ToolError, toolDefinitions, toolNameOf } from "./tools";

export type McpServerOptions = {
  /** Project scope of calls that pass no `cwd`. */
  cwd: string;
  source: "mcp";
  /** Where unexpected errors are reported (stderr; never stdout, which is the stdio protocol). */
  log: (message: string) => void;
  /** The initialize answer's `instructions` (`serve --stdio --rules`: the rules bundle, for Goose). */
  instructions?: string;
};

/** `agent:<client name>` from the initialize handshake, reduced to characters safe in YAML and logs. */
export function actorFor(clientName: string | undefined): string {
  const name = (clientName ?? "")
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
  return `agent:${name || "unknown"}`;
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

export function createMcpServer(opts: McpServerOptions): Server {
  const server = new Server(
    { name: "coffer", version: pkg.version },
    { capabilities: { tools: {} }, ...(opts.instructions ? { instructions: opts.instructions } : {}) },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await toolDefinitions() }));

  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const name = toolNameOf(req.params.name);
    if (!name)
      return errorResult(
        `unknown tool "${req.params.name}" (available: ${TOOL_NAMES.map((n) => TOOL_PREFIX + n).join(", ")})`,
      );
    try {
      const result = await runTool(name, req.params.arguments, {
        cwd: opts.cwd,
        actor: actorFor(server.getClientVersion()?.name),
        source: opts.source,
      });
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    } catch (err) {
      if (err instanceof ToolError) return errorResult(err.message);
      opts.log(`${req.params.name} failed: ${(err as Error)?.stack ?? String(err)}`);
      return errorResult(
        `${req.params.name} failed: ${(err as Error)?.message ?? String(err)} (an internal error; details are in coffer's stderr)`,
      );
    }
  });

  return server;
}
