/**
 * What Antigravity CLI (`agy`) writes in a conversation's transcript, read on the hook path as
 * well as by the transcript reader (`src/transcripts/antigravity.ts`): no imports beyond node.
 *
 * `~/.gemini/antigravity*\/brain/<conversation id>/.system_generated/logs/transcript.jsonl`, one
 * step a line: `{step_index, source, type, status?, created_at, content, tool_calls?: [{name,
 * args}], thinking?}`. `type` is `USER_INPUT` (source `USER_EXPLICIT`), `PLANNER_RESPONSE` (the
 * model's words, source `MODEL`), or a tool step (`VIEW_FILE`, `RUN_COMMAND`, ..., also source
 * `MODEL`). A USER_INPUT's content wraps what was typed in `<USER_REQUEST>…</USER_REQUEST>` and
 * adds agy's own blocks (`<ADDITIONAL_METADATA>` with the user's state, `<USER_SETTINGS_CHANGE>`).
 * Sources, none of them agy itself (closed source, not run here): claude-mem's Antigravity adapter
 * (`src/cli/adapters/antigravity-cli.ts`: "the assistant's final text lives ONLY in
 * type=PLANNER_RESPONSE nodes"), entireio/cli pull 1287 (a captured agy 2.0 fixture's fields),
 * shared/hosts-more.md (`cwd` only inside ADDITIONAL_METADATA), and third-party parsers' fixtures
 * (`<USER_REQUEST>Fix the auth bug</USER_REQUEST><USER_SETTINGS_CHANGE>…`).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** How much of a transcript's end the hook reads for the last USER_INPUT: a prompt longer than this is not routed. */
export const TAIL_BYTES = 256 * 1024;

const REQUEST = /<USER_REQUEST>([\s\S]*?)<\/USER_REQUEST>/g;
/** agy's blocks around the request: never typed by the user. */
const AGY_BLOCKS = /<(ADDITIONAL_METADATA|USER_SETTINGS_CHANGE)>[\s\S]*?<\/\1>/g;
const METADATA = /<ADDITIONAL_METADATA>([\s\S]*?)<\/ADDITIONAL_METADATA>/;

/** A step's content as text: a string, or the text parts of a list. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((c) => (c && typeof c === "object" && typeof c.text === "string" ? [c.text as string] : []))
    .join("\n");
}

/** What the user typed in a USER_INPUT's content: its USER_REQUEST blocks, else the content without agy's blocks. */
export function userRequestText(content: unknown): string {
  const text = contentText(content);
  const requests = [...text.matchAll(REQUEST)].map((m) => m[1]!.trim()).filter(Boolean);
  if (requests.length) return requests.join("\n\n");
  return text.replace(AGY_BLOCKS, "").trim();
}

/**
 * The working directory agy's ADDITIONAL_METADATA names, when it is JSON with one of the keys
 * below and an absolute path (its exact keys are not documented; anything else gives undefined).
 */
export function metadataCwd(content: unknown): string | undefined {
  const m = METADATA.exec(contentText(content));
  if (!m) return undefined;
  let meta: unknown;
  try {
    meta = JSON.parse(m[1]!);
  } catch {
    return undefined;
  }
  if (!meta || typeof meta !== "object") return undefined;
  const r = meta as Record<string, unknown>;
  const paths = r.workspacePaths ?? r.workspace_paths;
  const candidates = [r.cwd, r.workingDirectory, r.working_directory, Array.isArray(paths) ? paths[0] : undefined];
  return candidates.find((c): c is string => typeof c === "string" && (c.startsWith("/") || /^[A-Za-z]:[\\/]/.test(c)));
}

/**
 * The text of the transcript's last USER_INPUT step, read from at most the last `TAIL_BYTES`
 * of the file (one read, no parse of earlier lines); undefined when there is none in reach or
 * the file cannot be read.
 */
export function lastUserInput(path: string, max = TAIL_BYTES): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  let text: string;
  let whole: boolean;
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - max);
    const buf = Buffer.alloc(size - start);
    const n = readSync(fd, buf, 0, buf.length, start);
    text = buf.subarray(0, n).toString("utf8");
    whole = start === 0;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  const lines = text.split("\n");
  // A read that starts mid-file starts mid-line: that first piece is no step.
  for (let i = lines.length - 1; i >= (whole ? 0 : 1); i--) {
    const line = lines[i]!;
    if (!line.includes("USER_INPUT")) continue;
    let step: unknown;
    try {
      step = JSON.parse(line);
    } catch {
      continue;
    }
    if (!step || typeof step !== "object" || (step as { type?: unknown }).type !== "USER_INPUT") continue;
    return userRequestText((step as { content?: unknown }).content);
  }
  return undefined;
}
