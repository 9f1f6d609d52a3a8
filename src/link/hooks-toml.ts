/**
 * Coffer's hooks as `[[hooks]]` tables of a TOML file (Kimi Code's `config.toml`: `event`,
 * `command`, `timeout`, nothing else allowed). Coffer's tables are found by their command
 * (`…/coffer hook …`); each goes at the end of the file as one block (a blank line, the header,
 * its keys), and removing it takes that block out again, so link then unlink gives the file back
 * byte for byte. Every result is re-parsed: the other tables must come out exactly as they were.
 */
import { parse as parseToml } from "smol-toml";
import { CofferError } from "../lib/errors";
import { tomlValue } from "../lib/toml-edit";
import { isManagedHookCommand } from "./command";
import { deepEqual } from "./json-edit";

type Table = Record<string, unknown>;

function parse(text: string, file: string): Table {
  try {
    return parseToml(text) as Table;
  } catch (err) {
    const e = err as { line?: number; message: string };
    throw new CofferError(
      `${file}${e.line ? `:${e.line}` : ""}: not valid TOML (${e.message.split("\n")[0]}); left it untouched`,
      1,
      "Fix that line by hand (or move the file away), then run the command again.",
    );
  }
}

/** The `[[key]]` tables of the file that are Coffer's (their `command`). */
export function managedTomlHooks(text: string, key: string, file: string): Table[] {
  const list = parse(text, file)[key];
  return Array.isArray(list) ? (list as Table[]).filter((t) => isManagedHookCommand(t?.command)) : [];
}

const HEADER = /^\s*\[\[\s*([A-Za-z0-9_-]+)\s*\]\]\s*(#.*)?$/;
const ANY_HEADER = /^\s*\[/;

/** Line ranges [start, end) of each `[[key]]` block: its header to the next header or the end. */
function blocks(lines: string[], key: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = HEADER.exec(lines[i]!);
    if (!m || m[1] !== key) continue;
    let end = i + 1;
    while (end < lines.length && !ANY_HEADER.test(lines[end]!)) end++;
    // Trailing blank lines and comments belong to what follows, not to the block.
    while (end > i + 1 && /^\s*(#.*)?$/.test(lines[end - 1]!)) end--;
    out.push({ start: i, end });
  }
  return out;
}

/** `text` without Coffer's `[[key]]` blocks (and the blank line before each). */
export function removeTomlHooks(text: string, key: string, file: string): string {
  const before = parse(text, file);
  const lines = text.split("\n");
  const drop = new Set<number>();
  for (const b of blocks(lines, key)) {
    let command: unknown;
    try {
      const body = ["[t]", ...lines.slice(b.start + 1, b.end)].join("\n");
      command = (parseToml(body) as { t?: Table }).t?.command;
    } catch {}
    if (!isManagedHookCommand(command)) continue;
    for (let i = b.start; i < b.end; i++) drop.add(i);
    if (b.start > 0 && lines[b.start - 1]!.trim() === "") drop.add(b.start - 1);
  }
  if (!drop.size) return text;
  const out = lines.filter((_, i) => !drop.has(i)).join("\n");
  const expected = { ...before };
  const list = Array.isArray(before[key])
    ? (before[key] as Table[]).filter((t) => !isManagedHookCommand(t?.command))
    : [];
  if (list.length) expected[key] = list;
  else delete expected[key];
  if (!deepEqual(parse(out, file), expected))
    throw new CofferError(
      `${file}: removing Coffer's [[${key}]] tables did not give the intended document; nothing was written`,
      1,
      "This is a bug in Coffer; please report it with a copy of the file.",
    );
  return out;
}

/** `text` with Coffer's tables exactly `tables` (in order), each appended as its own block. */
export function setTomlHooks(text: string, key: string, tables: Table[], file: string): string {
  const base = removeTomlHooks(text, key, file);
  if (!tables.length) return base;
  const head = base === "" || base.endsWith("\n") ? base : `${base}\n`;
  const added = tables
    .map(
      (t) =>
        `\n[[${key}]]\n${Object.entries(t)
          .map(([k, v]) => `${k} = ${tomlValue(v)}`)
          .join("\n")}\n`,
    )
    .join("");
  const out = head + added;
  const parsed = parse(out, file);
  const others = Array.isArray(parse(base, file)[key]) ? (parse(base, file)[key] as Table[]) : [];
  if (!deepEqual(parsed[key], [...others, ...tables]))
    throw new CofferError(
      `${file}: adding Coffer's [[${key}]] tables did not give the intended document; nothing was written`,
      1,
      "This is a bug in Coffer; please report it with a copy of the file.",
    );
  return out;
}
