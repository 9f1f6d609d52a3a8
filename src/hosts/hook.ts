import * as v from "valibot";
import type { Config } from "../config/config";
import type { Host } from "../lib/hosts";

/**
 * Set in the environment of the agent CLIs Coffer runs headless to distil: a `coffer hook` that
 * sees it answers the host's empty output at once (no store, no log, no queue).
 */
export const NO_HOOKS_ENV = "COFFER_NO_HOOKS";

/** The Coffer events a host's native hook events map onto. */
export const HOOK_EVENTS = ["session-start", "prompt", "tool", "compact", "subagent-start", "session-end"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export type StartSource = "startup" | "resume" | "clear" | "compact";

/** What every adapter normalizes its host's stdin into. */
export type HookInput = {
  host: Host;
  event: HookEvent;
  sessionId: string;
  cwd: string;
  prompt?: string;
  /** Touched paths of a tool event, as the host sent them (absolute or relative to cwd). */
  filePaths?: string[];
  agentId?: string;
  source?: StartSource;
  transcriptPath?: string;
};

/**
 * An adapter's verdict on stdin: a normalized input, or "nothing to do" with a reason for the
 * log (`ignored` marks valid payloads that are simply not for Coffer, e.g. another tool).
 */
export type ParseResult = { ok: true; input: HookInput } | { ok: false; reason: string; ignored?: boolean };

/**
 * The first step of the adapters whose stdin names its event (Claude, Codex, Gemini): validate
 * against the host's schema and check `hook_event_name` is the native event this command handles.
 */
export function readStdin<S extends v.GenericSchema<unknown, { hook_event_name?: string }>>(
  schema: S,
  raw: unknown,
  hostName: string,
  native: string,
): { ok: true; s: v.InferOutput<S> } | { ok: false; reason: string } {
  const r = v.safeParse(schema, raw);
  if (!r.success)
    return { ok: false, reason: `stdin does not match ${hostName}'s ${native} payload: ${r.issues[0]?.message}` };
  const name = r.output.hook_event_name;
  if (name !== undefined && name !== native)
    return { ok: false, reason: `hook_event_name ${JSON.stringify(name)} does not match ${native}` };
  return { ok: true, s: r.output };
}

/** Claude Code's native event names, which Codex adopted as they are. */
export const CLAUDE_NATIVE: Record<HookEvent, string> = {
  "session-start": "SessionStart",
  prompt: "UserPromptSubmit",
  tool: "PreToolUse",
  compact: "PreCompact",
  "subagent-start": "SubagentStart",
  "session-end": "SessionEnd",
};

/**
 * Claude Code's hook contract, which Codex follows too: events, which inject, and the answers
 * (SessionStart answers its own shape even when empty: Codex rejects `{}` there).
 */
export const CLAUDE_CONTRACT = {
  events: ["session-start", "prompt", "tool", "compact", "subagent-start", "session-end"],
  injects: ["session-start", "prompt", "tool", "subagent-start"],
  render: (event, context) => specificOutput(CLAUDE_NATIVE[event], context),
  empty: (event) => (event === "session-start" ? specificOutput("SessionStart", "") : EMPTY_OBJECT),
} satisfies Partial<HostAdapter>;

/** SessionStart `source` values the family sends as they are. */
export const START_SOURCES: Record<string, StartSource> = {
  startup: "startup",
  resume: "resume",
  clear: "clear",
  compact: "compact",
};

/** Schema entries of the stdin fields every family host sends (each adds its own). */
export const familyFields = {
  session_id: v.string(),
  cwd: v.string(),
  hook_event_name: v.optional(v.string()),
  source: v.optional(v.string()),
  prompt: v.optional(v.string()),
  tool_name: v.optional(v.string()),
};

/** The stdin fields the hookSpecificOutput family (Claude, Codex, Gemini) shares. */
type FamilyStdin = {
  session_id: string;
  cwd: string;
  hook_event_name?: string;
  transcript_path?: string | null;
  source?: string;
  prompt?: string;
  tool_name?: string;
  agent_id?: string;
};

/** What tells one family host from another: its names, schema and the few event rules of its own. */
export type FamilyHost<S extends FamilyStdin> = {
  host: Host;
  /** The product's name in log reasons ("Claude", "Codex", "Gemini"). */
  name: string;
  /** Coffer event -> the host's native event name. */
  native: Record<HookEvent, string>;
  schema: v.GenericSchema<unknown, S>;
  /** The start source a SessionStart payload means. */
  source: (s: S) => StartSource;
  /** Tools whose calls are path triggers. */
  pathTools: ReadonlySet<string>;
  /** The touched paths of a path-trigger tool call, or why there are none. */
  toolPaths: (s: S & { tool_name: string }) => string[] | Extract<ParseResult, { ok: false }>;
  /** The prompt as routed (e.g. earlier hook context stripped), or why it is not the user's. */
  prompt?: (prompt: string) => string | Extract<ParseResult, { ok: false }>;
  /** Extra rule for compact (Gemini: an `auto` PreCompress is not a compression). */
  compact?: (s: S) => Extract<ParseResult, { ok: false }> | undefined;
};

/** One `parse` for the family: readStdin, the shared fields, then the host's rules per event. */
export function familyParse<S extends FamilyStdin>(h: FamilyHost<S>): HostAdapter["parse"] {
  return (event, raw) => {
    const read = readStdin(h.schema, raw, h.name, h.native[event]);
    if (!read.ok) return read;
    const s = read.s;
    const input: HookInput = {
      host: h.host,
      event,
      sessionId: s.session_id,
      cwd: s.cwd,
      agentId: s.agent_id,
      transcriptPath: s.transcript_path ?? undefined,
    };
    switch (event) {
      case "session-start":
        return { ok: true, input: { ...input, source: h.source(s) } };
      case "prompt": {
        if (typeof s.prompt !== "string") return { ok: false, reason: `${h.native.prompt} without a prompt` };
        const prompt = h.prompt ? h.prompt(s.prompt) : s.prompt;
        return typeof prompt === "string" ? { ok: true, input: { ...input, prompt } } : prompt;
      }
      case "tool": {
        if (!s.tool_name || !h.pathTools.has(s.tool_name))
          return { ok: false, ignored: true, reason: `tool ${s.tool_name ?? "(none)"} is not a path trigger` };
        const paths = h.toolPaths(s as S & { tool_name: string });
        return Array.isArray(paths) ? { ok: true, input: { ...input, filePaths: paths } } : paths;
      }
      case "compact":
        return h.compact?.(s) ?? { ok: true, input };
      default:
        return { ok: true, input };
    }
  };
}

/**
 * How a host measures injected context, and how much it takes before truncating. `measure`
 * must be additive over concatenation (chars, bytes) so the planner can size parts separately.
 */
export type Capacity = { limit: number; unit: string; measure: (text: string) => number };

/** One host's knowledge: stdin schema, output shapes, payload cap. Lives in src/hosts/<host>/hook.ts. */
export type HostAdapter = {
  host: Host;
  /** Coffer events this host fires (others answer the empty output). */
  events: readonly HookEvent[];
  /** Events whose output can carry context (Windsurf: none). */
  injects: readonly HookEvent[];
  /** `replace`: the host keeps one context slot that each output replaces (OpenCode), so outputs are self-contained. */
  slot?: "replace";
  /**
   * A resumed session keeps its history (what prompts delivered is still there) but rebuilds the
   * system prompt the session-start context lived in (Qwen Code): on resume the bundle is sent
   * again and the delivered set is kept.
   */
  resumeRebuildsStart?: boolean;
  /**
   * `tool`: the host runs SubagentStart but its context never reaches the subagent, while the
   * subagent's tool calls fire the tool event with its agent id (Qwen Code): the subagent's first
   * tool result carries what SubagentStart would have (the rules and the parent's routed memory).
   */
  subagentsVia?: "tool";
  parse: (event: HookEvent, raw: unknown, processCwd: string) => ParseResult;
  /** The output JSON carrying `context` (non-empty) for `event`. */
  render: (event: HookEvent, context: string) => string;
  /** The host's valid "nothing" output for `event`. */
  empty: (event: HookEvent) => string;
  capacity: (config: Config) => Capacity;
};

/** `^[A-Za-z0-9_.-]+$`: anything that ends up in a key or a file path. */
export const SAFE_ID = /^[A-Za-z0-9_.-]{1,200}$/;

/** Chars, the unit of Claude and of `load.max_tokens * 4` elsewhere. */
export const charCount = (text: string): number => text.length;

/** UTF-8 bytes: Codex counts tokens as bytes / 4, so 2,400 tokens = 9,600 bytes (and bytes add up exactly). */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/** `load.max_tokens` (default 1,600) as chars: tokens = chars / 4. */
export function maxTokensCapacity(config: Config): Capacity {
  const tokens = config["load.max_tokens"];
  return { limit: tokens * 4, unit: "chars", measure: charCount };
}

/** `{"hookSpecificOutput":{"hookEventName":..,"additionalContext":..}}` — the shape Claude, Codex and Gemini share. */
export function specificOutput(hookEventName: string, additionalContext: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext } });
}

export const EMPTY_OBJECT = "{}";
