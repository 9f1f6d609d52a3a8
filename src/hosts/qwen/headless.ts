/**
 * Qwen Code as the distillation model: `qwen -p "" -o json` appends stdin (the conversation) to the
 * empty prompt and prints one JSON array of events, the last a `result`. Coffer's system prompt
 * replaces Qwen's (`QWEN_SYSTEM_MD` names a file). `--safe-mode` runs no hook, extension, skill
 * file or MCP server and reads no QWEN.md, yet keeps the user's settings (their sign-in and model);
 * `--bare` would drop those too. Tools: safe mode ignores `--core-tools`, so every tool Qwen
 * registers is named in `--exclude-tools`, and `--max-tool-calls 0` ends the run on a call to any
 * tool a later version adds. `--chat-recording false` keeps the run out of `~/.qwen/projects`, so
 * the sweep never distils Coffer's own summaries. Observed with 0.24.4: the answer is
 * `{type: "result", result, usage, stats: {models: {<model>: {tokens}}}}` (Gemini's stats); a
 * failure is `{type: "result", is_error: true, error: {message}}` with exit 1. Safe mode still lists
 * Qwen's bundled skills in a reminder (text only: their tool is excluded).
 */
import { statsUsage } from "../gemini/headless";
import { classifyFailure, type HeadlessCli, tail, usualPlaces } from "../headless";

/** Every tool Qwen Code 0.24.4 registers (its ToolNames, and the goal tools). */
const TOOLS = [
  "exec",
  "edit",
  "write_file",
  "read_file",
  "zoom_image",
  "grep_search",
  "glob",
  "run_shell_command",
  "todo_write",
  "save_memory",
  "agent",
  "skill",
  "exit_plan_mode",
  "enter_plan_mode",
  "web_fetch",
  "web_search",
  "image_gen",
  "list_directory",
  "lsp",
  "ask_user_question",
  "cron_create",
  "cron_list",
  "cron_delete",
  "loop_wakeup",
  "create_sub_session",
  "list_agents",
  "task_stop",
  "task_create",
  "task_update",
  "task_list",
  "team_create",
  "team_delete",
  "team_plan_approval",
  "request_shutdown",
  "send_message",
  "structured_output",
  "monitor",
  "notebook_edit",
  "tool_call",
  "tool_search",
  "read_mcp_resource",
  "enter_worktree",
  "exit_worktree",
  "workflow",
  "artifact",
  "record_artifact",
  "record_source",
  "report_findings",
  "get_goal",
  "update_goal",
];

/** The `result` event of Qwen's JSON array (or a bare error document), if the output holds one. */
function resultOf(stdout: string, stderr: string): Record<string, any> | undefined {
  for (const text of [stdout, stderr]) {
    const t = text.trim();
    const at = t.startsWith("[") || t.startsWith("{") ? 0 : Math.max(t.lastIndexOf("\n["), t.lastIndexOf("\n{")) + 1;
    if (at < 0) continue;
    try {
      const doc = JSON.parse(t.slice(at));
      const events: unknown[] = Array.isArray(doc) ? doc : [doc];
      const r = events.findLast(
        (e) => e && typeof e === "object" && ((e as any).type === "result" || (e as any).error),
      );
      if (r) return r as Record<string, any>;
    } catch {}
  }
  return undefined;
}

const NO_AUTH = /\bno auth type is selected\b/i;

export const headless: HeadlessCli = {
  provider: "qwen-code",
  host: "qwen",
  bin: "qwen",
  command: "qwen -p",
  plan: "your Qwen Code account",
  defaultModel: () => undefined,
  places: (home) => usualPlaces(home, "qwen"),
  argv: (s) => [
    "-p",
    "",
    "-o",
    "json",
    ...(s.model ? ["-m", s.model] : []),
    "--safe-mode",
    "--chat-recording",
    "false",
    "--exclude-tools",
    TOOLS.join(","),
    "--max-tool-calls",
    "0",
  ],
  // No relaunch into a second Node process (it only raises the heap limit: not needed for one turn).
  env: (s) => ({ QWEN_SYSTEM_MD: s.systemFile, QWEN_CODE_NO_RELAUNCH: "true" }),
  setup: { login: "run `qwen` in a terminal and choose how to sign in" },
  parse: ({ stdout, stderr, code }) => {
    const r = resultOf(stdout, stderr);
    if (r && (r.is_error === true || (r.error && typeof r.error === "object"))) {
      const message = String(r.error?.message ?? r.error?.type ?? "error");
      const status =
        Number(
          /\bAPI Error:\s*(\d{3})\b/.exec(message)?.[1] ?? /\bstatus(?: code)?:?\s*(\d{3})\b/i.exec(message)?.[1],
        ) || undefined;
      const kind = NO_AUTH.test(message) ? "auth" : classifyFailure({ text: message, status });
      return {
        ok: false,
        kind,
        message: status && !message.includes(String(status)) ? `${message} (HTTP ${status})` : message,
      };
    }
    if (!r || typeof r.result !== "string") {
      const why = tail(stderr) || tail(stdout);
      if (code !== 0)
        return { ok: false, kind: classifyFailure({ text: why }), message: `exited ${code}: ${why || "no output"}` };
      return {
        ok: false,
        kind: "malformed",
        message: `answered without its JSON result: ${tail(stdout) || "nothing"}`,
      };
    }
    return { ok: true, text: r.result, ...statsUsage(r.stats) };
  },
};
