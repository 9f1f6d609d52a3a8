/**
 * Codex hooks: same stdin/output family as Claude, with Codex's differences.
 * SessionStart -> session-start (its output must always be the hookSpecificOutput shape, even
 * empty: Codex rejects `{}` there), UserPromptSubmit -> prompt, PreToolUse on `apply_patch` -> tool
 * (paths come from the patch text in `tool_input.command`), PreCompact -> compact,
 * SubagentStart -> subagent-start (subagents carry the parent's session_id plus agent_id).
 * Codex moves additionalContext over ~2,500 tokens into a file, so Coffer stays at 2,400
 * tokens counted as UTF-8 bytes / 4.
 */
import * as v from "valibot";
import {
  EMPTY_OBJECT,
  type HookEvent,
  type HostAdapter,
  type ParseResult,
  readStdin,
  type StartSource,
  specificOutput,
  utf8Bytes,
} from "../hook";

const NATIVE: Record<HookEvent, string> = {
  "session-start": "SessionStart",
  prompt: "UserPromptSubmit",
  tool: "PreToolUse",
  compact: "PreCompact",
  "subagent-start": "SubagentStart",
  "session-end": "SessionEnd",
};

const Stdin = v.object({
  session_id: v.string(),
  cwd: v.string(),
  hook_event_name: v.optional(v.string()),
  transcript_path: v.optional(v.nullable(v.string())),
  source: v.optional(v.string()),
  prompt: v.optional(v.string()),
  tool_name: v.optional(v.string()),
  tool_input: v.optional(v.unknown()),
  agent_id: v.optional(v.string()),
});

const SOURCES: Record<string, StartSource> = {
  startup: "startup",
  resume: "resume",
  clear: "clear",
  compact: "compact",
};

const PATCH_FILE = /^\*\*\* (?:Update File|Add File|Delete File|Move to): (.+)$/gm;

/** The files an apply_patch envelope touches (`*** Update File: <path>`, Add, Delete, Move to). */
export function patchPaths(patch: string): string[] {
  const out = new Set<string>();
  for (const m of patch.matchAll(PATCH_FILE)) {
    const p = m[1]!.trim();
    if (p) out.add(p);
    if (out.size >= 64) break;
  }
  return [...out];
}

/** apply_patch input: `{command: "<patch>"}` (current), a bare string, or `{input|patch: "<patch>"}`. */
function patchText(toolInput: unknown): string | undefined {
  if (typeof toolInput === "string") return toolInput;
  if (toolInput && typeof toolInput === "object") {
    const o = toolInput as Record<string, unknown>;
    for (const k of ["command", "input", "patch"]) if (typeof o[k] === "string") return o[k] as string;
  }
  return undefined;
}

function parse(event: HookEvent, raw: unknown): ParseResult {
  const read = readStdin(Stdin, raw, "Codex", NATIVE[event]);
  if (!read.ok) return read;
  const s = read.s;
  const input = {
    host: "codex" as const,
    event,
    sessionId: s.session_id,
    cwd: s.cwd,
    agentId: s.agent_id,
    transcriptPath: s.transcript_path ?? undefined,
  };
  switch (event) {
    case "session-start":
      return { ok: true, input: { ...input, source: SOURCES[s.source ?? "startup"] ?? "startup" } };
    case "prompt":
      if (typeof s.prompt !== "string") return { ok: false, reason: "UserPromptSubmit without a prompt" };
      return { ok: true, input: { ...input, prompt: s.prompt } };
    case "tool": {
      if (s.tool_name !== "apply_patch")
        return { ok: false, ignored: true, reason: `tool ${s.tool_name ?? "(none)"} is not a path trigger` };
      const text = patchText(s.tool_input);
      if (!text) return { ok: false, reason: "apply_patch without patch text" };
      const paths = patchPaths(text);
      if (!paths.length) return { ok: false, ignored: true, reason: "apply_patch names no file" };
      return { ok: true, input: { ...input, filePaths: paths } };
    }
    default:
      return { ok: true, input };
  }
}

export const adapter: HostAdapter = {
  host: "codex",
  events: ["session-start", "prompt", "tool", "compact", "subagent-start", "session-end"],
  injects: ["session-start", "prompt", "tool", "subagent-start"],
  parse,
  render: (event, context) => specificOutput(NATIVE[event], context),
  empty: (event) => (event === "session-start" ? specificOutput("SessionStart", "") : EMPTY_OBJECT),
  capacity: () => ({ limit: 2400 * 4, unit: "UTF-8 bytes (2,400 tokens at bytes / 4)", measure: utf8Bytes }),
};
