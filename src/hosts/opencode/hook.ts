/**
 * OpenCode: Coffer's generated plugin pipes `{hook_event_name, session_id, cwd, prompt}` to
 * `coffer hook session-start|prompt --agent opencode` (session-start on a session's first
 * message, then prompt on every message, the first included) and reads back `{"additional_context": "..."}` or `{}`.
 * OpenCode keeps one system-prompt slot: a non-empty answer REPLACES the slot, `{}` means
 * RETAIN it. So every non-empty answer is self-contained (rules bundle + routed memory), and
 * an unchanged routed set answers `{}`.
 */
import * as v from "valibot";
import { EMPTY_OBJECT, type HookEvent, type HostAdapter, maxTokensCapacity, type ParseResult } from "../hook";

const Stdin = v.object({
  hook_event_name: v.optional(v.string()),
  session_id: v.string(),
  cwd: v.string(),
  prompt: v.optional(v.string()),
  /** A tool event's touched file (Pi's extension sends it; OpenCode's plugin has no tool event). */
  file_path: v.optional(v.string()),
});

/**
 * The adapter of a host that runs a plugin Coffer generates and keeps one context slot: OpenCode,
 * its fork Kilo Code (the same plugin), and Pi (its own extension, the same payload and slot).
 */
export function pluginAdapter(
  host: "opencode" | "kilo" | "pi",
  name: string,
  opts: { pathTriggers?: boolean } = {},
): HostAdapter {
  const parse = (event: HookEvent, raw: unknown): ParseResult => {
    const r = v.safeParse(Stdin, raw);
    if (!r.success)
      return { ok: false, reason: `stdin does not match the ${name} plugin's payload: ${r.issues[0]?.message}` };
    const s = r.output;
    const input = { host, event, sessionId: s.session_id, cwd: s.cwd };
    if (event === "prompt") return { ok: true, input: { ...input, prompt: s.prompt ?? "" } };
    if (event === "session-start") return { ok: true, input: { ...input, source: "startup" } };
    if (event === "tool")
      return s.file_path
        ? { ok: true, input: { ...input, filePaths: [s.file_path] } }
        : { ok: false, ignored: true, reason: "tool event without a file_path" };
    return { ok: true, input };
  };
  return {
    host,
    // Path triggers answer with the entries alone: they join a tool's result, not the slot.
    events: opts.pathTriggers ? ["session-start", "prompt", "tool", "compact"] : ["session-start", "prompt", "compact"],
    injects: opts.pathTriggers ? ["session-start", "prompt", "tool"] : ["session-start", "prompt"],
    slot: "replace",
    parse,
    render: (_event, context) => JSON.stringify({ additional_context: context }),
    empty: () => EMPTY_OBJECT,
    capacity: maxTokensCapacity,
  };
}

export const adapter: HostAdapter = pluginAdapter("opencode", "OpenCode");
