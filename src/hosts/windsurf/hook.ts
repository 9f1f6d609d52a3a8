/**
 * Windsurf (Cascade) hooks: `pre_user_prompt` -> prompt. Its stdin carries `trajectory_id`
 * (the session) and `tool_info.user_prompt`, and no cwd (the process cwd is the workspace).
 * Windsurf has no context-injection output, so every answer is `{}`; Coffer reaches Windsurf
 * through MCP, and nothing is recorded as delivered.
 */
import * as v from "valibot";
import { EMPTY_OBJECT, type HookEvent, type HostAdapter, maxTokensCapacity, type ParseResult } from "../hook";

const Stdin = v.object({
  agent_action_name: v.optional(v.string()),
  trajectory_id: v.string(),
  execution_id: v.optional(v.string()),
  tool_info: v.optional(v.looseObject({ user_prompt: v.optional(v.string()) })),
});

function parse(event: HookEvent, raw: unknown, processCwd: string): ParseResult {
  const r = v.safeParse(Stdin, raw);
  if (!r.success) return { ok: false, reason: `stdin does not match Windsurf's payload: ${r.issues[0]?.message}` };
  const s = r.output;
  if (s.agent_action_name !== undefined && s.agent_action_name !== "pre_user_prompt") {
    return { ok: false, reason: `agent_action_name ${JSON.stringify(s.agent_action_name)} is not pre_user_prompt` };
  }
  return {
    ok: true,
    input: {
      host: "windsurf",
      event,
      sessionId: s.trajectory_id,
      cwd: processCwd,
      prompt: s.tool_info?.user_prompt ?? "",
    },
  };
}

export const adapter: HostAdapter = {
  host: "windsurf",
  events: ["prompt"],
  injects: [],
  parse,
  render: () => EMPTY_OBJECT,
  empty: () => EMPTY_OBJECT,
  capacity: maxTokensCapacity,
};
