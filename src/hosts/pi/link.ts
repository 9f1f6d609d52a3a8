/**
 * Pi (npm `@mariozechner/pi-coding-agent`): no hooks file and no MCP. Coffer generates an extension,
 * `~/.pi/agent/extensions/coffer.ts` (project `.pi/extensions/coffer.ts`), which Pi discovers and
 * loads with jiti; its first line is a marker comment, and a file without it is a person's and is
 * never overwritten. On `before_agent_start` it runs `coffer hook session-start --agent pi` on a
 * session's first prompt in this process and `coffer hook prompt --agent pi` on every prompt, keeps
 * the last non-empty answer as the session's slot, and appends it to the system prompt Pi builds
 * for the turn. On `tool_result` of read|edit|write it runs `coffer hook tool --agent pi` with the
 * file's path and appends the answer to the tool's result. `$PI_CODING_AGENT_DIR` moves `~/.pi/agent`.
 * oh-my-pi (`omp`) gets the same extension in its own folder (`ompExtension`) and, having an MCP
 * client, Coffer's server in its `mcp.json` (`ompMcp`). Finished sessions are
 * found by the transcript sweep (`--session-end`).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { commandOf, envDir, type HostLink, stdioServer, type Target } from "../link";
import { pluginBinaryOf, pluginHookRunner, pluginMarkerLine } from "../opencode/link";

const agentDir = (t: Target) => envDir("PI_CODING_AGENT_DIR", t.home, true) ?? join(t.home, ".pi", "agent");

/**
 * oh-my-pi (npm `@oh-my-pi/pi-coding-agent`, `omp`), a Pi fork that loads Pi extensions from its
 * own folders: `~/.omp/agent/extensions/` (project `.omp/extensions/`). `coffer link pi` writes the
 * same extension there when omp is set up (`~/.omp`, or the repository's `.omp`). omp honours
 * `$PI_CODING_AGENT_DIR` too: then one folder serves both. (Named omp profiles,
 * `~/.omp/profiles/<name>/agent`, are not covered.)
 */
function ompExtension(t: Target): string | undefined {
  if (t.root) {
    const dir = join(t.root, ".omp");
    return existsSync(dir) ? join(dir, "extensions", "coffer.ts") : undefined;
  }
  if (envDir("PI_CODING_AGENT_DIR", t.home, true)) return undefined;
  const dir = join(t.home, ".omp");
  return existsSync(dir) ? join(dir, "agent", "extensions", "coffer.ts") : undefined;
}

/**
 * omp has an MCP client (Pi has none): `mcp.json` in its agent folder (`$PI_CODING_AGENT_DIR` when
 * set), project `.omp/mcp.json`, `{mcpServers: {<name>: {command, args}}}`; it lists the tools as
 * `xd://mcp__coffer_recall`… devices in its system prompt. Registered only when omp is set up.
 */
function ompMcp(t: Target): string | undefined {
  if (t.root) {
    const dir = join(t.root, ".omp");
    return existsSync(dir) ? join(dir, "mcp.json") : undefined;
  }
  if (!existsSync(join(t.home, ".omp"))) return undefined;
  return join(envDir("PI_CODING_AGENT_DIR", t.home, true) ?? join(t.home, ".omp", "agent"), "mcp.json");
}

/** The generated extension: plain JavaScript in a .ts file (jiti loads it; no types, no dependencies). */
export function renderExtension(bin: string): string {
  return `${pluginMarkerLine("pi")}
import { spawn } from "node:child_process";

const COFFER = ${JSON.stringify(bin)};
const TIMEOUT_MS = 10000;
/** Pi's tools that touch one file (\`input.path\`): their results carry the entries that apply to it. */
const PATH_TOOLS = new Set(["read", "edit", "write"]);

${pluginHookRunner("pi")}

export default function coffer(pi) {
  /** Sessions whose start this process has announced. */
  const started = new Set();
  /** sessionId -> the one context slot (replaced by a non-empty answer, kept on {}). */
  const slots = new Map();

  pi.on("before_agent_start", async (event, ctx) => {
    const sm = ctx && ctx.sessionManager;
    const sessionId = sm && typeof sm.getSessionId === "function" ? sm.getSessionId() : undefined;
    if (typeof sessionId !== "string" || !sessionId) return;
    const cwd = (ctx && ctx.cwd) || process.cwd();
    const base = { session_id: sessionId, cwd };
    if (!started.has(sessionId)) {
      started.add(sessionId);
      const start = await runHook("session-start", { ...base, hook_event_name: "session-start" }, cwd);
      if (start) slots.set(sessionId, start);
    }
    const prompt = event && typeof event.prompt === "string" ? event.prompt : "";
    const routed = await runHook("prompt", { ...base, hook_event_name: "prompt", prompt }, cwd);
    if (routed) slots.set(sessionId, routed);
    const context = slots.get(sessionId);
    if (!context || !event) return;
    // Pi hands the system prompt over as one string; oh-my-pi (omp) as a list of parts.
    if (Array.isArray(event.systemPrompt)) return { systemPrompt: [...event.systemPrompt, context] };
    if (typeof event.systemPrompt !== "string") return;
    return { systemPrompt: \`\${event.systemPrompt}\\n\\n\${context}\` };
  });

  pi.on("tool_result", async (event, ctx) => {
    if (!event || !PATH_TOOLS.has(event.toolName) || event.isError) return;
    const filePath = event.input && typeof event.input.path === "string" ? event.input.path : "";
    const sm = ctx && ctx.sessionManager;
    const sessionId = sm && typeof sm.getSessionId === "function" ? sm.getSessionId() : undefined;
    if (!filePath || typeof sessionId !== "string" || !sessionId) return;
    const cwd = (ctx && ctx.cwd) || process.cwd();
    const payload = { hook_event_name: "tool", session_id: sessionId, cwd, tool_name: event.toolName, file_path: filePath };
    const context = await runHook("tool", payload, cwd);
    if (!context) return;
    const content = Array.isArray(event.content) ? event.content : [];
    return { content: [...content, { type: "text", text: context }] };
  });
}
`;
}

export const link: HostLink = {
  host: "pi",
  name: "Pi",
  hooks: {
    kind: "plugin",
    file: (t) =>
      t.root ? join(t.root, ".pi", "extensions", "coffer.ts") : join(agentDir(t), "extensions", "coffer.ts"),
    marker: pluginMarkerLine("pi"),
    render: renderExtension,
    more: (t) => {
      const omp = ompExtension(t);
      return omp ? [{ file: omp, render: renderExtension }] : [];
    },
    binaryOf: pluginBinaryOf,
    events: ["before_agent_start", "tool_result"],
  },
  mcp: {
    file: (t) => {
      const path = ompMcp(t);
      return path ? { path, dialect: "json" } : undefined;
    },
    path: ["mcpServers", "coffer"],
    value: stdioServer,
    binaryOf: commandOf,
    unavailable: () =>
      "Pi has no MCP client (pi-mcp-adapter, a third-party extension, is not set up by Coffer); oh-my-pi's mcp.json is registered when ~/.omp exists",
  },
  sessionEnd: "sweep",
  gets: {
    bundle: "hook",
    promptDelta: true,
    pathTriggers: ["read", "edit", "write"],
    subagents: false,
    summariser: "pi",
    harvest: false,
  },
  installed: { dirs: [".pi/agent", ".omp"], bins: ["pi", "omp"], env: "PI_CODING_AGENT_DIR", envTilde: true },
};
