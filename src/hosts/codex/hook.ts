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
  CLAUDE_CONTRACT,
  CLAUDE_NATIVE,
  familyFields,
  familyParse,
  type HostAdapter,
  START_SOURCES,
  utf8Bytes,
} from "../hook";

const Stdin = v.object({
  ...familyFields,
  transcript_path: v.optional(v.nullable(v.string())),
  tool_input: v.optional(v.unknown()),
  agent_id: v.optional(v.string()),
});

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

const parse = familyParse({
  host: "codex",
  name: "Codex",
  native: CLAUDE_NATIVE,
  schema: Stdin,
  source: (s) => START_SOURCES[s.source ?? "startup"] ?? "startup",
  pathTools: new Set(["apply_patch"]),
  toolPaths: (s) => {
    const text = patchText(s.tool_input);
    if (!text) return { ok: false, reason: "apply_patch without patch text" };
    const paths = patchPaths(text);
    return paths.length ? paths : { ok: false, ignored: true, reason: "apply_patch names no file" };
  },
});

export const adapter: HostAdapter = {
  host: "codex",
  ...CLAUDE_CONTRACT,
  parse,
  capacity: () => ({ limit: 2400 * 4, unit: "UTF-8 bytes (2,400 tokens at bytes / 4)", measure: utf8Bytes }),
};
