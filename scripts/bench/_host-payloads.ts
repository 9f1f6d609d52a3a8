/**
 * What each host sends `coffer hook session-start|prompt --agent <host>` and how its answer carries
 * the context, for the hook bench (`scripts/bench/hook.ts --agent <host>|all`). The stdin shapes are
 * the ones the hosts' tests use (test/hooks/, test/link/), captured from the real CLIs where they
 * run here and recorded in docs/hosts-observed.md; a fresh session each run, as the Claude rows.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Host } from "../../src/lib/hosts";

export type BenchEvent = "session-start" | "prompt";

/** One host: stdin per event (for a session id and the run's prompt) and the context of an answer. */
export type HostPayloads = {
  /** A builder may write what the host would have written first (Antigravity's transcript). */
  stdin: Partial<Record<BenchEvent, (session: string, prompt: string) => unknown>>;
  /** The context in this host's answer ("" for its empty answer); throws when the shape is not the host's. */
  context: (out: string) => string;
};

const json = (out: string) => JSON.parse(out) as Record<string, unknown>;
const text = (v: unknown) => (typeof v === "string" ? v : "");
/** Claude's shape, which Codex, Gemini and Qwen share. */
const specific = (out: string) =>
  text((json(out).hookSpecificOutput as { additionalContext?: unknown })?.additionalContext);
const snake = (out: string) => text(json(out).additional_context);

/**
 * The payloads for a project at `repo` with HOME at `home`. `bundle`: the session-start context,
 * which Gemini's first BeforeAgent prompt carries back in `<hook_context>`.
 */
export function hostPayloads(repo: string, home: string, bundle: string): Partial<Record<Host, HostPayloads>> {
  const cwd = repo;
  const ts = "2026-12-03T18:29:25.804Z";
  // Claude Code 2.1.328: the bench's own payloads, as before (SPEC 8).
  const claude: HostPayloads = {
    stdin: {
      "session-start": (s) => ({
        session_id: s,
        transcript_path: "/tmp/x.jsonl",
        cwd,
        hook_event_name: "SessionStart",
        source: "startup",
      }),
      prompt: (s, prompt) => ({
        session_id: s,
        transcript_path: "/tmp/x.jsonl",
        cwd,
        hook_event_name: "UserPromptSubmit",
        prompt,
      }),
    },
    context: specific,
  };
  // Codex 0.169.0.
  const codexBase = (s: string, name: string) => ({
    session_id: s,
    transcript_path: join(home, ".codex", "sessions", "2026", "12", "03", `rollout-2026-12-03T18-29-25-${s}.jsonl`),
    cwd,
    hook_event_name: name,
    model: "gpt-5.5",
    permission_mode: "bypassPermissions",
  });
  const codex: HostPayloads = {
    stdin: {
      "session-start": (s) => ({ ...codexBase(s, "SessionStart"), source: "startup" }),
      prompt: (s, prompt) => ({ ...codexBase(s, "UserPromptSubmit"), turn_id: `${s}-t1`, prompt }),
    },
    context: specific,
  };
  // Gemini CLI 0.61.0: BeforeAgent's prompt carries the SessionStart context before the user's text.
  const geminiBase = (s: string, name: string) => ({
    session_id: s,
    transcript_path: join(home, ".gemini", "tmp", "hooks", "chats", `session-2026-12-03T18-29-${s}.jsonl`),
    cwd,
    hook_event_name: name,
    timestamp: ts,
  });
  const gemini: HostPayloads = {
    stdin: {
      "session-start": (s) => ({ ...geminiBase(s, "SessionStart"), source: "startup" }),
      prompt: (s, prompt) => ({
        ...geminiBase(s, "BeforeAgent"),
        prompt: `<hook_context>${bundle}</hook_context>\n\n${prompt}`,
      }),
    },
    context: specific,
  };
  // Cursor 2.1: only sessionStart injects.
  const cursor: HostPayloads = {
    stdin: {
      "session-start": (s) => ({
        conversation_id: s,
        generation_id: "g1",
        hook_event_name: "sessionStart",
        workspace_roots: [repo],
        cursor_version: "2.1.0",
        is_background_agent: false,
      }),
    },
    context: snake,
  };
  // OpenCode and Kilo Code: the generated plugin's runner (session-start on a session's first message, with its prompt).
  const plugin: HostPayloads = {
    stdin: {
      "session-start": (s, prompt) => ({ session_id: s, cwd, hook_event_name: "session-start", prompt }),
      prompt: (s, prompt) => ({ session_id: s, cwd, hook_event_name: "prompt", prompt }),
    },
    context: snake,
  };
  // Pi: the extension's runner on before_agent_start (no prompt with session-start).
  const pi: HostPayloads = {
    stdin: {
      "session-start": (s) => ({ session_id: s, cwd, hook_event_name: "session-start" }),
      prompt: (s, prompt) => ({ session_id: s, cwd, hook_event_name: "prompt", prompt }),
    },
    context: snake,
  };
  // Copilot CLI 1.0.102 (PascalCase events: snake_case fields, source `new`).
  const copilotBase = (s: string, name: string) => ({ hook_event_name: name, session_id: s, timestamp: ts, cwd });
  const copilot: HostPayloads = {
    stdin: {
      "session-start": (s, prompt) => ({ ...copilotBase(s, "SessionStart"), source: "new", initial_prompt: prompt }),
      prompt: (s, prompt) => ({ ...copilotBase(s, "UserPromptSubmit"), prompt }),
    },
    context: (out) => text(json(out).additionalContext),
  };
  // Cline CLI 3.0.65: the bundle rides on PostToolUse (tool_result) or prompt_submit; here the first file tool.
  const clineBase = (s: string, hookName: string) => ({
    clineVersion: "",
    hookName,
    timestamp: ts,
    taskId: `conv_${s}`,
    sessionContext: { rootSessionId: s },
    workspaceRoots: [repo],
    workspaceInfo: { rootPath: repo, hint: "hooks" },
    userId: "unknown",
    agent_id: "agent_1",
    parent_agent_id: null,
  });
  const handler = join(repo, "src", "api", "handler.ts");
  const cline: HostPayloads = {
    stdin: {
      "session-start": (s) => ({
        ...clineBase(s, "tool_result"),
        iteration: 1,
        tool_result: {
          id: "call_1",
          name: "read_files",
          input: { files: [{ path: handler }] },
          output: [],
          durationMs: 16,
        },
        postToolUse: { toolName: "read_files", parameters: {}, result: "", success: true, executionTimeMs: 16 },
      }),
      prompt: (s, prompt) => ({ ...clineBase(s, "prompt_submit"), userPromptSubmit: { prompt, attachments: [] } }),
    },
    context: (out) => text(json(out).contextModification),
  };
  // Kimi Code 2.1.0: both hooks on UserPromptSubmit, `prompt` a list of content parts; plain-text answers.
  const kimiPayload = (s: string, prompt: string) => ({
    hook_event_name: "UserPromptSubmit",
    session_id: s,
    cwd,
    client_type: "kimi_code_cli",
    prompt: [{ type: "text", text: prompt }],
    is_steer: false,
  });
  const kimi: HostPayloads = { stdin: { "session-start": kimiPayload, prompt: kimiPayload }, context: (out) => out };
  // Antigravity (agy, not run here): both hooks on a turn's first PreInvocation (invocationNum 0); the
  // prompt is the transcript's last USER_INPUT step, written here as agy would have before the call.
  const agyPayload = (s: string, prompt: string) => {
    const dir = join(home, ".gemini", "antigravity-cli", "brain", s, ".system_generated", "logs");
    mkdirSync(dir, { recursive: true });
    const transcriptPath = join(dir, "transcript.jsonl");
    const step = {
      step_index: 0,
      source: "USER_EXPLICIT",
      type: "USER_INPUT",
      status: "DONE",
      created_at: ts,
      content: `<USER_REQUEST>\n${prompt}\n</USER_REQUEST>\n<ADDITIONAL_METADATA>${JSON.stringify({ cwd: repo })}</ADDITIONAL_METADATA>`,
    };
    writeFileSync(transcriptPath, `${JSON.stringify(step)}\n`);
    return { conversationId: s, workspacePaths: [repo], transcriptPath, invocationNum: 0 };
  };
  const antigravity: HostPayloads = {
    stdin: { "session-start": agyPayload, prompt: agyPayload },
    context: (out) =>
      text(
        (json(out).injectSteps as { systemMessage?: { systemMessage?: unknown } }[] | undefined)?.[0]?.systemMessage
          ?.systemMessage,
      ),
  };
  // Qwen Code 0.24.4.
  const qwenBase = (s: string, name: string) => ({
    session_id: s,
    transcript_path: join(home, ".qwen", "projects", "hooks", "chats", `${s}.jsonl`),
    cwd,
    hook_event_name: name,
    timestamp: ts,
    permission_mode: "auto",
  });
  const qwen: HostPayloads = {
    stdin: {
      "session-start": (s) => ({ ...qwenBase(s, "SessionStart"), source: "startup", model: "qwen3-coder-plus" }),
      prompt: (s, prompt) => ({
        ...qwenBase(s, "UserPromptSubmit"),
        prompt_id: `${s}########0`,
        prompt,
        submitted_prompt: prompt,
      }),
    },
    context: specific,
  };
  return { claude, codex, gemini, cursor, opencode: plugin, kilo: plugin, pi, copilot, cline, kimi, antigravity, qwen };
}
