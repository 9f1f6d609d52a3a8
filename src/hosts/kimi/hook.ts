/**
 * Kimi Code hooks. Only UserPromptSubmit can add context: Kimi puts each hook's plain stdout, as
 * it is, in a `<hook_result hook_event="UserPromptSubmit">` block before the prompt (JSON is not
 * read). So both Coffer hooks run on UserPromptSubmit: `session-start` (as a resume: the rules
 * bundle once a session, again when the rules change) and `prompt` (the memory the prompt
 * routes); Kimi runs them in parallel and appends both. SessionStart, PostToolUse and the others
 * are observe-only: no path triggers.
 *
 * Observed with Kimi Code 2.1.0 (docs/hosts-observed.md): the payload is `{hook_event_name,
 * session_id, cwd, client_type, prompt, is_steer}` and `prompt` is a list of content parts
 * (`[{type: "text", text}]`), not the string the docs show.
 */
import * as v from "valibot";
import { type HookEvent, type HostAdapter, maxTokensCapacity, type ParseResult } from "../hook";

const Stdin = v.looseObject({
  hook_event_name: v.optional(v.string()),
  session_id: v.string(),
  cwd: v.string(),
  prompt: v.optional(v.unknown()),
});

/** The prompt's text: a string, or the text parts of a content list. */
export function kimiPromptText(prompt: unknown): string | undefined {
  if (typeof prompt === "string") return prompt;
  if (!Array.isArray(prompt)) return undefined;
  return prompt
    .filter((p) => p && typeof p === "object" && p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("\n");
}

function parse(event: HookEvent, raw: unknown): ParseResult {
  const r = v.safeParse(Stdin, raw);
  if (!r.success) return { ok: false, reason: `stdin does not match Kimi Code's payload: ${r.issues[0]?.message}` };
  const s = r.output;
  if (s.hook_event_name !== undefined && s.hook_event_name !== "UserPromptSubmit")
    return {
      ok: false,
      reason: `hook_event_name ${JSON.stringify(s.hook_event_name)} does not match UserPromptSubmit`,
    };
  const input = { host: "kimi" as const, event, sessionId: s.session_id, cwd: s.cwd };
  if (event === "session-start") return { ok: true, input: { ...input, source: "resume" } };
  if (event === "prompt") {
    const prompt = kimiPromptText(s.prompt);
    return typeof prompt === "string"
      ? { ok: true, input: { ...input, prompt } }
      : { ok: false, reason: "UserPromptSubmit without a prompt" };
  }
  return { ok: true, input };
}

export const adapter: HostAdapter = {
  host: "kimi",
  events: ["session-start", "prompt"],
  injects: ["session-start", "prompt"],
  parse,
  // Plain text: Kimi appends stdout as it is.
  render: (_event, context) => context,
  empty: () => "",
  capacity: maxTokensCapacity,
};
