/**
 * Antigravity CLI (`agy`) conversations: `~/.gemini/antigravity*\/brain/<conversation id>/
 * .system_generated/logs/transcript.jsonl` (`antigravity-cli` for agy 2.x, `antigravity` before;
 * both are listed), one step a line (the shape is in `src/hosts/antigravity/steps.ts`). The
 * conversation is its USER_INPUT steps (what was typed, inside `<USER_REQUEST>`) and its
 * PLANNER_RESPONSE steps (the model's words); tool steps and `tool_calls` are activity. The
 * working directory is only in a USER_INPUT's `<ADDITIONAL_METADATA>` when at all. Built from
 * third-party descriptions of the format, not from a real agy (docs/hosts-observed.md).
 */
import { join } from "node:path";
import { metadataCwd, userRequestText } from "../hosts/antigravity/steps";
import { homeDir } from "../lib/paths";
import { cleanText } from "./clean";
import { entries, fileStat, jsonObject, readHeadLines, type SessionFile, type SessionHead } from "./files";
import { type Act, actText, atMs, isoOrUndefined, type ParsedTranscript, sessionTitle, widen } from "./types";

const TRANSCRIPT = join(".system_generated", "logs", "transcript.jsonl");

/** agy's app-data folders under `~/.gemini` (`antigravity`, `antigravity-cli`, ...). */
function appDirs(): string[] {
  const gemini = join(homeDir(), ".gemini");
  return entries(gemini)
    .filter((n) => n.startsWith("antigravity"))
    .map((n) => join(gemini, n));
}

/** The newest layout's brain folder (detection by path also checks every `antigravity*` folder's). */
export function antigravityRoot(): string {
  return join(homeDir(), ".gemini", "antigravity-cli", "brain");
}

/** Every `brain` folder of agy's app-data folders. */
export function antigravityRoots(): string[] {
  return appDirs().map((d) => join(d, "brain"));
}

export function listAntigravitySessions(): SessionFile[] {
  const out: SessionFile[] = [];
  for (const brain of antigravityRoots()) {
    for (const id of entries(brain)) {
      const path = join(brain, id, TRANSCRIPT);
      const st = fileStat(path);
      if (st) out.push({ host: "antigravity", path, session_id: id, ...st });
    }
  }
  return out;
}

/** The conversation id of a transcript path (`brain/<id>/.system_generated/logs/transcript.jsonl`). */
function idOf(path: string): string | undefined {
  const parts = path.split(/[\\/]/);
  const i = parts.lastIndexOf(".system_generated");
  return i > 0 && parts[i - 2] === "brain" ? parts[i - 1] : undefined;
}

export function antigravityHead(path: string): SessionHead {
  const head: SessionHead = {};
  const id = idOf(path);
  if (id) head.session_id = id;
  const scan = (lines: string[]) => {
    for (const line of lines) {
      const r = jsonObject(line);
      if (!r) continue;
      if (!head.first_activity && isoOrUndefined(r.created_at)) head.first_activity = r.created_at;
      if (!head.cwd && r.type === "USER_INPUT") head.cwd = metadataCwd(r.content);
    }
    return Boolean(head.cwd);
  };
  scan(readHeadLines(path, scan));
  return head;
}

function* steps(text: string): Generator<Record<string, any>> {
  for (const line of text.split("\n")) {
    if (line.length < 2) continue;
    const r = jsonObject(line);
    if (r && typeof r.type === "string") yield r;
  }
}

export function parseAntigravity(text: string): ParsedTranscript {
  const parsed: ParsedTranscript = { host: "antigravity", title: "", turns: [] };
  for (const r of steps(text)) {
    const at = isoOrUndefined(r.created_at);
    widen(parsed, at);
    if (r.type === "USER_INPUT") {
      parsed.cwd ??= metadataCwd(r.content);
      const typed = cleanText(userRequestText(r.content));
      if (typed) parsed.turns.push({ role: "user", text: typed, at });
    } else if (r.type === "PLANNER_RESPONSE") {
      const said = cleanText(typeof r.content === "string" ? r.content : "");
      if (said) parsed.turns.push({ role: "assistant", text: said, at });
    }
  }
  parsed.title = sessionTitle(undefined, parsed.turns);
  return parsed;
}

/**
 * What happened (capture/use.ts): prompts (USER_INPUT), the model's words and its `tool_calls`
 * (PLANNER_RESPONSE), and tool steps (any other type from the model: their content is the result).
 */
export function antigravityActivity(text: string): Act[] {
  const acts: Act[] = [];
  for (const r of steps(text)) {
    const at = atMs(r.created_at);
    if (r.type === "USER_INPUT") {
      const typed = cleanText(userRequestText(r.content));
      if (typed) acts.push({ kind: "prompt", text: typed, at });
    } else if (r.type === "PLANNER_RESPONSE") {
      if (typeof r.content === "string" && r.content.trim()) acts.push({ kind: "say", text: r.content, at });
      for (const c of Array.isArray(r.tool_calls) ? r.tool_calls : []) {
        if (!c || typeof c !== "object") continue;
        acts.push({ kind: "tool", text: actText(c.args), at, tool: String(c.name ?? "") });
      }
    } else if (r.source === "MODEL" && r.content !== undefined) {
      acts.push({ kind: "result", text: actText(r.content), at, tool: String(r.type).toLowerCase() });
    }
  }
  return acts;
}
