/**
 * Cursor hooks: only `sessionStart` can inject (beforeSubmitPrompt cannot), answered with
 * `{"additional_context": "..."}`. The session is `conversation_id` (`session_id` on newer
 * builds) and the cwd the first of `workspace_roots`.
 */
import * as v from "valibot";
import { EMPTY_OBJECT, type HookEvent, type HostAdapter, maxTokensCapacity, type ParseResult } from "../hook";

const Stdin = v.object({
  conversation_id: v.optional(v.string()),
  session_id: v.optional(v.string()),
  workspace_roots: v.optional(v.array(v.string())),
  cwd: v.optional(v.string()),
  hook_event_name: v.optional(v.string()),
  transcript_path: v.optional(v.nullable(v.string())),
});

function parse(event: HookEvent, raw: unknown, processCwd: string): ParseResult {
  const r = v.safeParse(Stdin, raw);
  if (!r.success) return { ok: false, reason: `stdin does not match Cursor's payload: ${r.issues[0]?.message}` };
  const s = r.output;
  if (event === "session-start" && s.hook_event_name !== undefined && s.hook_event_name !== "sessionStart") {
    return { ok: false, reason: `hook_event_name ${JSON.stringify(s.hook_event_name)} does not match sessionStart` };
  }
  const sessionId = s.conversation_id ?? s.session_id;
  if (!sessionId) return { ok: false, reason: "no conversation_id" };
  const cwd = s.workspace_roots?.[0] ?? s.cwd ?? processCwd;
  return {
    ok: true,
    input: { host: "cursor", event, sessionId, cwd, source: "startup", transcriptPath: s.transcript_path ?? undefined },
  };
}

export const adapter: HostAdapter = {
  host: "cursor",
  events: ["session-start"],
  injects: ["session-start"],
  parse,
  render: (_event, context) => JSON.stringify({ additional_context: context }),
  empty: () => EMPTY_OBJECT,
  capacity: maxTokensCapacity,
};
