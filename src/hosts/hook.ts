import * as v from "valibot";
import type { Host } from "../lib/hosts";
import type { Config } from "../store/config";

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
  const tokens = Number(config["load.max_tokens"] ?? 1600) || 1600;
  return { limit: tokens * 4, unit: "chars", measure: charCount };
}

/** `{"hookSpecificOutput":{"hookEventName":..,"additionalContext":..}}` — the shape Claude, Codex and Gemini share. */
export function specificOutput(hookEventName: string, additionalContext: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext } });
}

export const EMPTY_OBJECT = "{}";
