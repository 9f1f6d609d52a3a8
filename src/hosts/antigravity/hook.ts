/**
 * Antigravity CLI (`agy`) hooks. Only PreInvocation (before each model call) can add context, as
 * steps its answer injects; so both Coffer hooks run on it, as with Kimi Code: `session-start` (as a
 * resume: the rules bundle on the session's first turn, again when the rules change) and `prompt`
 * (the memory the turn's prompt routes). PreInvocation fires before every model call of a turn;
 * `invocationNum` 0 is the turn's first, and later calls answer `{}`.
 *
 * Not run against agy (closed source, not installable here); from its documentation and other
 * tools' adapters (docs/hosts-observed.md):
 * - stdin is camelCase with no event name and no prompt: `conversationId`, `workspacePaths`,
 *   `transcriptPath`, `invocationNum` (antigravity.google/docs/hooks, via a mirror and a third-party
 *   assessment of agy 1.2.2). claude-mem's later adapter, read from agy's embedded protobuf
 *   descriptor, says the same fields may come nested (`{common: {...}, preInvocationHookArgs:
 *   {invocationNum}}`) and that `common` may carry `lastUserInput`: both forms are read. protojson
 *   leaves a zero out, so a missing `invocationNum` is 0.
 * - the prompt is `lastUserInput` when sent, else the transcript's last USER_INPUT step (a bounded
 *   tail read, `steps.ts`).
 * - the answer is parsed strictly (protojson: an unknown field fails the hook). Context goes in as
 *   `{"injectSteps": [{"systemMessage": {"systemMessage": "…"}}]}` (claude-mem, from agy's
 *   `hooks.proto`; `ephemeralMessage` is the older form other tools still write). `{}` is a valid
 *   PreInvocation answer.
 * - PostToolUse's answer has no fields at all (claude-mem), so there are no path triggers; and a
 *   PreToolUse answer without an explicit allow blocks the tool, so Coffer registers neither.
 * - payload cap: not documented; Gemini CLI's (`load.max_tokens` as chars) is used.
 */
import * as v from "valibot";
import { EMPTY_OBJECT, type HookEvent, type HostAdapter, maxTokensCapacity, type ParseResult } from "../hook";
import { lastUserInput, userRequestText } from "./steps";

const Common = {
  conversationId: v.optional(v.string()),
  workspacePaths: v.optional(v.array(v.string())),
  transcriptPath: v.optional(v.string()),
  lastUserInput: v.optional(v.unknown()),
};

const Stdin = v.looseObject({
  ...Common,
  common: v.optional(v.looseObject(Common)),
  invocationNum: v.optional(v.number()),
  preInvocationHookArgs: v.optional(v.looseObject({ invocationNum: v.optional(v.number()) })),
  toolCall: v.optional(v.unknown()),
  terminationReason: v.optional(v.unknown()),
});

/** Fields (flat) or oneof keys (nested) of the events other than PreInvocation. */
const OTHER_EVENTS = [
  "toolCall",
  "terminationReason",
  "modelOutput",
  "preToolHookArgs",
  "postToolHookArgs",
  "postInvocationHookArgs",
  "stopHookArgs",
  "sessionStartHookArgs",
];

const isAbsolutePath = (p: string) => p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p);

function parse(event: HookEvent, raw: unknown): ParseResult {
  const r = v.safeParse(Stdin, raw);
  if (!r.success)
    return { ok: false, reason: `stdin does not match Antigravity's PreInvocation payload: ${r.issues[0]?.message}` };
  const s = r.output;
  const other = OTHER_EVENTS.find((k) => (s as Record<string, unknown>)[k] !== undefined);
  if (other) return { ok: false, reason: `not a PreInvocation payload (it has ${other})` };
  const num = s.preInvocationHookArgs?.invocationNum ?? s.invocationNum ?? 0;
  if (num > 0)
    return { ok: false, ignored: true, reason: `invocation ${num} of a turn: only its first (0) carries context` };
  const c = { ...s, ...s.common };
  if (!c.conversationId) return { ok: false, reason: "no conversationId" };
  const cwd = c.workspacePaths?.[0];
  if (!cwd) return { ok: false, reason: "no workspacePaths" };
  const transcriptPath = c.transcriptPath && isAbsolutePath(c.transcriptPath) ? c.transcriptPath : undefined;
  const input = { host: "antigravity" as const, event, sessionId: c.conversationId, cwd, transcriptPath };
  if (event === "session-start") return { ok: true, input: { ...input, source: "resume" } };
  if (event === "prompt") {
    const sent = c.lastUserInput !== undefined ? userRequestText(c.lastUserInput) : undefined;
    const prompt = sent || (transcriptPath ? lastUserInput(transcriptPath) : undefined);
    return typeof prompt === "string"
      ? { ok: true, input: { ...input, prompt } }
      : { ok: false, reason: "no USER_INPUT step in the transcript's tail (and no lastUserInput)" };
  }
  return { ok: true, input };
}

export const adapter: HostAdapter = {
  host: "antigravity",
  events: ["session-start", "prompt"],
  injects: ["session-start", "prompt"],
  parse,
  render: (_event, context) => JSON.stringify({ injectSteps: [{ systemMessage: { systemMessage: context } }] }),
  empty: () => EMPTY_OBJECT,
  capacity: maxTokensCapacity,
};
