/**
 * Cline CLI hooks. Cline runs every file of its hooks folder named after an event; Coffer writes
 * two (`src/hosts/cline/link.ts`), each running `coffer hook session-start` and then the event's
 * own handler on the same payload, and joining their `contextModification`s:
 * - UserPromptSubmit (`hookName: "prompt_submit"`) -> session-start + prompt;
 * - PostToolUse (`hookName: "tool_result"`) -> session-start, + tool for `read_files` (the paths
 *   in `files[].path`) and `apply_patch` (the paths in the patch text).
 * session-start is always `resume` for Cline: its TaskStart hook cannot inject (Cline runs it
 * detached, output ignored), so the bundle goes with the first prompt or tool event of a session
 * that carries context, and again only when the rules change.
 *
 * Observed with Cline CLI 3.0.65 (docs/hosts-observed.md): the payload is
 * `{clineVersion, hookName, timestamp, taskId, sessionContext: {rootSessionId}, workspaceRoots,
 * workspaceInfo: {rootPath}, userId, agent_id, parent_agent_id, ...}`; the session's folder under
 * `~/.cline/data/sessions/` is `rootSessionId`. Cline cuts a hook's context at 50,000 characters
 * and puts it in a user message `<hook_context source="PostToolUse" tool_name=…>…</hook_context>`.
 */
import * as v from "valibot";
import { patchPaths } from "../codex/hook";
import { charCount, EMPTY_OBJECT, type HookEvent, type HostAdapter, type ParseResult } from "../hook";

/** Cline's own cap on one hook's context. */
export const CLINE_CONTEXT_MAX = 50_000;

const Stdin = v.looseObject({
  hookName: v.string(),
  taskId: v.optional(v.string()),
  sessionContext: v.optional(v.looseObject({ rootSessionId: v.optional(v.string()) })),
  workspaceRoots: v.optional(v.array(v.string())),
  workspaceInfo: v.optional(v.looseObject({ rootPath: v.optional(v.string()) })),
  agent_id: v.optional(v.string()),
  parent_agent_id: v.optional(v.nullable(v.string())),
  userPromptSubmit: v.optional(v.looseObject({ prompt: v.optional(v.string()) })),
  tool_result: v.optional(v.looseObject({ name: v.optional(v.string()), input: v.optional(v.unknown()) })),
});

/** Which Cline hook each Coffer event reads (session-start rides on either). */
const HOOK_NAME: Partial<Record<HookEvent, string>> = { prompt: "prompt_submit", tool: "tool_result" };

const USER_INPUT = /^\s*<user_input[^>]*>([\s\S]*)<\/user_input>\s*$/;

/** The files a Cline tool call touches: `read_files` `{files: [{path}]}`, `apply_patch` `{input: patch}`. */
export function clineToolPaths(name: string | undefined, input: unknown): string[] | undefined {
  const o = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
  if (name === "read_files" && Array.isArray(o.files))
    return o.files.flatMap((f) => (f && typeof f.path === "string" && f.path ? [f.path as string] : []));
  if (name === "apply_patch" && typeof o.input === "string") return patchPaths(o.input);
  return undefined;
}

function parse(event: HookEvent, raw: unknown, processCwd: string): ParseResult {
  const r = v.safeParse(Stdin, raw);
  if (!r.success) return { ok: false, reason: `stdin does not match Cline's hook payload: ${r.issues[0]?.message}` };
  const s = r.output;
  const wanted = HOOK_NAME[event];
  if (wanted && s.hookName !== wanted)
    return { ok: false, reason: `hookName ${JSON.stringify(s.hookName)} does not match ${wanted}` };
  const sessionId = s.sessionContext?.rootSessionId ?? s.taskId;
  if (!sessionId) return { ok: false, reason: "no sessionContext.rootSessionId or taskId" };
  const input = {
    host: "cline" as const,
    event,
    sessionId,
    cwd: s.workspaceInfo?.rootPath ?? s.workspaceRoots?.[0] ?? processCwd,
    ...(s.parent_agent_id && s.agent_id ? { agentId: s.agent_id } : {}),
  };
  switch (event) {
    case "session-start":
      return { ok: true, input: { ...input, source: "resume" } };
    case "prompt": {
      const prompt = s.userPromptSubmit?.prompt;
      if (typeof prompt !== "string") return { ok: false, reason: "prompt_submit without userPromptSubmit.prompt" };
      return { ok: true, input: { ...input, prompt: USER_INPUT.exec(prompt)?.[1] ?? prompt } };
    }
    case "tool": {
      const paths = clineToolPaths(s.tool_result?.name, s.tool_result?.input);
      if (!paths)
        return { ok: false, ignored: true, reason: `tool ${s.tool_result?.name ?? "(none)"} is not a path trigger` };
      return { ok: true, input: { ...input, filePaths: paths } };
    }
    default:
      return { ok: true, input };
  }
}

export const adapter: HostAdapter = {
  host: "cline",
  events: ["session-start", "prompt", "tool"],
  injects: ["session-start", "prompt", "tool"],
  parse,
  render: (_event, context) => JSON.stringify({ contextModification: context }),
  empty: () => EMPTY_OBJECT,
  // Two answers are joined into one hook output, which Cline cuts at 50,000 characters.
  capacity: (config) => ({
    limit: Math.min(config["load.max_tokens"] * 4, CLINE_CONTEXT_MAX / 2),
    unit: "chars",
    measure: charCount,
  }),
};
