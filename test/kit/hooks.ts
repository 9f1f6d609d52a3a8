/** Hook runs: payloads per host, the answer's context, and the ids a context lists. */
import type { RunResult, Sandbox } from "./sandbox";

export type Host = "claude" | "codex" | "gemini" | "cursor" | "windsurf" | "opencode";
export type Event = "session-start" | "prompt" | "tool" | "compact" | "subagent-start" | "session-end";

export function hook(
  sb: Sandbox,
  host: Host,
  event: Event,
  payload: unknown,
  opts: { cwd?: string; env?: Record<string, string> } = {},
): RunResult {
  return sb.run(["hook", event, "--agent", host], {
    stdin: typeof payload === "string" ? payload : JSON.stringify(payload),
    cwd: opts.cwd,
    env: opts.env,
  });
}

/** The additionalContext of a Claude/Codex/Gemini answer ("" when none). */
export function contextOf(r: RunResult): string {
  const j = JSON.parse(r.stdout);
  return j.hookSpecificOutput?.additionalContext ?? j.additional_context ?? "";
}

export function claudePrompt(session: string, cwd: string, prompt: string, extra: Record<string, unknown> = {}) {
  return {
    session_id: session,
    transcript_path: `/tmp/${session}.jsonl`,
    cwd,
    permission_mode: "default",
    hook_event_name: "UserPromptSubmit",
    prompt,
    ...extra,
  };
}

export function claudeStart(session: string, cwd: string, source = "startup") {
  return {
    session_id: session,
    transcript_path: `/tmp/${session}.jsonl`,
    cwd,
    hook_event_name: "SessionStart",
    source,
  };
}

/** Ids of the `## [ID] title` body blocks in a context. */
export function bodyIds(context: string): string[] {
  return [...context.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]!);
}

/** Ids of the `- [ID] title` cards in a context. */
export function cardIds(context: string): string[] {
  return [...context.matchAll(/^- \[([^\]]+)\]/gm)].map((m) => m[1]!);
}

export function alreadyLoaded(context: string): string[] | undefined {
  const m = /^already loaded: (.*)$/m.exec(context);
  return m ? m[1]!.split(", ") : undefined;
}
