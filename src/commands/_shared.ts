import { readFileSync } from "node:fs";
import type { ArgDef } from "citty";
import { type ConsolaInstance, type ConsolaOptions, createConsola } from "consola/core";
import type { WrittenEntry } from "../distill/session";
import { CofferError, usageError } from "../lib/errors";
import { handle } from "../lib/handle";
import { isTerminal, writeErr, writeOut } from "../lib/output";
import { KINDS, type OpenOptions, openStore, type Store } from "../store";

/**
 * Messages for people: notices, warnings, errors and prompts go to stderr, so stdout carries only
 * a command's data (`coffer list | wc -l`, `--json`). A success line ("Remembered <id>") is the
 * result of a write and stays on stdout. One plain style, no badges: warnings and errors read
 * `coffer <command>: message`, as usage errors do (`_run.ts`); notices are plain lines.
 * Made on first use: most runs of `list` or `status` print no message and need none.
 */
let instance: ConsolaInstance | undefined;
const made = (): ConsolaInstance =>
  (instance ??= createConsola({
    throttle: 0,
    // consola/core, not "consola": the full entry reads process.stdout at import (building Node's
    // stream) and loads node:util's inspect, about 9 ms on every command. Its prompts load it on
    // the first question instead.
    prompt: ((message, opts) =>
      import("consola").then((m) => m.consola.prompt(message, opts))) as ConsolaOptions["prompt"],
    reporters: [
      {
        log(msg) {
          const text = msg.args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ");
          if (msg.type === "success" || msg.type === "ready") writeOut(`${text}\n`);
          else if (msg.level <= 1) writeErr(`${commandPrefix()}: ${text}\n`);
          else writeErr(`${text}\n`);
        },
      },
    ],
  }));

type Say = (message: unknown, ...args: unknown[]) => void;
export const consola = {
  info: ((m, ...a) => made().info(m, ...a)) as Say,
  success: ((m, ...a) => made().success(m, ...a)) as Say,
  warn: ((m, ...a) => made().warn(m, ...a)) as Say,
  error: ((m, ...a) => made().error(m, ...a)) as Say,
  log: ((m, ...a) => made().log(m, ...a)) as Say,
  prompt: ((...a: Parameters<ConsolaInstance["prompt"]>) => made().prompt(...a)) as ConsolaInstance["prompt"],
};

/** `coffer <command>`: how warnings and errors start, one style for every command. */
export function commandPrefix(): string {
  const name = process.argv[2];
  return name && !name.startsWith("-") ? `coffer ${name}` : "coffer";
}

/** A notice (stderr): "3 of 301 shown", "Nothing found." (what consola's info prints, without making it) */
export function notice(message: string): void {
  writeErr(`${message}\n`);
}

/** "1 entry", "2 entries". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Whether fd 1 and 2 are terminals, asked once per process (each paint asks: 250 fstats for a list). */
const terminal: Partial<Record<1 | 2, boolean>> = {};

/** Colour on stdout only for a terminal, never with NO_COLOR or TERM=dumb; FORCE_COLOR=1 forces it. */
export function useColor(fd: 1 | 2 = 1): boolean {
  const env = process.env;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== "0") return true;
  if (env.TERM === "dumb") return false;
  terminal[fd] ??= isTerminal(fd);
  return terminal[fd];
}

const sgr = (open: number, close: number) => (text: string) =>
  useColor() ? `\u001b[${open}m${text}\u001b[${close}m` : text;
export const paint = {
  id: sgr(33, 39), // yellow
  project: sgr(36, 39), // cyan
  team: sgr(34, 39), // blue
  global: sgr(35, 39), // magenta
  kind: sgr(32, 39), // green
  dim: sgr(2, 22),
  bold: sgr(1, 22),
  ok: sgr(32, 39),
  bad: sgr(31, 39),
};

/** Pad to a width measured without colour codes. */
export function pad(text: string, plain: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - plain.length));
}

export const jsonArg = {
  json: { type: "boolean", description: "Print machine-readable JSON" },
} as const satisfies Record<string, ArgDef>;
export const scopeArg = {
  scope: {
    type: "enum",
    options: ["project", "team", "global"] as string[],
    description: "Which memory: this project's, its team lane (the repository's .coffer/), or the global one",
  },
} as const satisfies Record<string, ArgDef>;

/** --kind, checked against the entry kinds before the command runs. */
export const kindArg = {
  kind: { type: "enum", options: [...KINDS] as string[], description: `Entry kind: ${KINDS.join(", ")}` },
} as const satisfies Record<string, ArgDef>;

export function printJson(value: unknown): void {
  writeOut(`${JSON.stringify(value, null, 2)}\n`);
}

/** Open the store for the current directory, with the CLI's freshness (every file compared). */
export function cliStore(opts: OpenOptions = {}): Store {
  return openStore({ freshness: "deep", ...opts });
}

export function parseLimit(raw: string | undefined, def: number, max: number): number {
  if (raw === undefined || raw === "") return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw usageError(`--limit must be an integer 1..${max} (got ${JSON.stringify(raw)})`);
  return n;
}

export function splitList(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

const notUtf8 = () =>
  new CofferError("the text is not UTF-8; nothing was written", 1, "Give UTF-8 text, not binary data.");

/**
 * Whether an argument that holds U+FFFD came as bytes that are not UTF-8: the runtime decodes
 * argv with replacement, so the raw bytes (Linux: /proc/self/cmdline) tell a decoding loss from a
 * U+FFFD typed on purpose; where they cannot be read, U+FFFD itself is taken as the loss.
 */
function argvWasNotUtf8(): boolean {
  let raw: Uint8Array;
  try {
    raw = new Uint8Array(readFileSync("/proc/self/cmdline"));
  } catch {
    return true;
  }
  const strict = new TextDecoder("utf-8", { fatal: true });
  try {
    strict.decode(raw);
    return false;
  } catch {
    return true;
  }
}

/** Positional text: all words joined, or stdin when the only argument is "-". Text that is not UTF-8 is refused either way. */
export async function textFromArgs(words: string[], example: string): Promise<string> {
  if (words.length === 1 && words[0] === "-") {
    const bytes = new Uint8Array(await Bun.stdin.arrayBuffer());
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw notUtf8();
    }
  }
  const text = words.join(" ");
  if (!text.isWellFormed() || (text.includes("\uFFFD") && argvWasNotUtf8())) throw notUtf8();
  // An empty argument is a command line without its text, as a missing one is: a usage error (2).
  // (Empty text read from stdin is a problem with the text: 1, where the store refuses it.)
  if (!text.trim()) throw usageError("text is empty", `Give it some text, e.g. ${example} ("-" reads stdin).`);
  return text;
}

export function short(text: string, max = 100): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export type EntryRow = { id: string; scope: string; kind: string; title: string; date?: string; extra?: string };

/** Entry lines with aligned columns (ids of any length, global and project rows alike), coloured on a terminal. */
export function entryLines(rows: EntryRow[], titleMax = 80): string[] {
  const idW = Math.max(0, ...rows.map((r) => handle(r.id).length));
  const scopeW = Math.max(0, ...rows.map((r) => r.scope.length));
  const kindW = Math.max(0, ...rows.map((r) => r.kind.length));
  const dateW = Math.max(0, ...rows.map((r) => r.date?.length ?? 0));
  return rows.map((r) => {
    const scope =
      r.scope === "global" ? paint.global(r.scope) : r.scope === "team" ? paint.team(r.scope) : paint.project(r.scope);
    const cols = [
      pad(paint.id(handle(r.id)), handle(r.id), idW),
      ...(r.date !== undefined ? [pad(paint.dim(r.date), r.date, dateW)] : []),
      pad(scope, r.scope, scopeW),
      pad(paint.kind(r.kind), r.kind, kindW),
      short(r.title, titleMax) + (r.extra ? `  ${paint.dim(r.extra)}` : ""),
    ];
    return cols.join("  ");
  });
}

/** "7d", "12h", "30m", "2w" -> milliseconds. */
export function parseSince(raw: string): number {
  const m = /^(\d+)\s*([mhdw])$/.exec(raw.trim());
  if (!m) throw usageError(`--since ${JSON.stringify(raw)}: use a number and a unit, e.g. 30m, 12h, 7d, 2w`);
  return Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as "m" | "h" | "d" | "w"];
}

/** "+ [decision] Title (id)", with what it superseded, or "! ..." for a contradiction left in the inbox. */
export function entryLine(e: WrittenEntry): string {
  if (e.status === "conflict")
    return `! [${e.kind}] ${e.title} contradicts ${e.contradicts}: for you to settle (coffer inbox show ${handle(e.id)})`;
  const mark = e.status === "created" ? "+" : "=";
  return `${mark} [${e.kind}] ${e.title} (${handle(e.id)})${e.supersedes ? `, supersedes ${handle(e.supersedes)}` : ""}${e.proposed ? `, proposed for the team lane (coffer inbox show ${handle(e.proposed)})` : ""}`;
}
