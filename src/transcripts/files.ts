import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { TranscriptHost } from "./types";

/** One session file found on disk (stat only; nothing of the content read yet). */
export type SessionFile = { host: TranscriptHost; path: string; session_id: string; size: number; mtimeMs: number };

/**
 * A session kept in a database rather than a file of its own (Kilo, Goose) is named
 * `<database file>#<session id>`; undefined for any other path.
 */
export function splitDbSessionPath(path: string): { db: string; id: string } | undefined {
  const at = path.lastIndexOf("#");
  if (at <= 0 || at === path.length - 1) return undefined;
  return { db: path.slice(0, at), id: path.slice(at + 1) };
}

/** Metadata a host can give from the start of a file, without reading all of it. */
export type SessionHead = {
  session_id?: string;
  cwd?: string;
  origin?: string;
  first_activity?: string;
  subagent?: boolean;
};

/**
 * The complete lines among the first bytes of a file: reads 64 KiB, and more (up to `maxBytes`)
 * while `enough` says the lines so far do not answer the question yet.
 */
export function readHeadLines(path: string, enough: (lines: string[]) => boolean, maxBytes = 1 << 20): string[] {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return [];
  }
  try {
    let size = 64 * 1024;
    for (;;) {
      const buf = Buffer.alloc(size);
      const n = readSync(fd, buf, 0, size, 0);
      const text = buf.subarray(0, n).toString("utf8");
      const complete = n < size ? text : text.slice(0, text.lastIndexOf("\n") + 1);
      const lines = complete.split("\n").filter((l) => l.trim());
      if (n < size || enough(lines) || size >= maxBytes) return lines;
      size = Math.min(size * 4, maxBytes);
    }
  } finally {
    closeSync(fd);
  }
}

/** Parse a JSON line; undefined for anything that is not a JSON object (never throws). */
export function jsonObject(line: string): Record<string, any> | undefined {
  try {
    const v = JSON.parse(line);
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Directory entries, or none when the directory is missing or unreadable. */
export function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export function fileStat(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    const st = statSync(path);
    return st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/** Files named `*.<ext>` directly in `dir`, stat'ed. */
export function filesIn(
  dir: string,
  keep: (name: string) => boolean,
): { path: string; name: string; size: number; mtimeMs: number }[] {
  const out: { path: string; name: string; size: number; mtimeMs: number }[] = [];
  for (const name of entries(dir)) {
    if (!keep(name)) continue;
    const path = join(dir, name);
    const st = fileStat(path);
    if (st) out.push({ path, name, ...st });
  }
  return out;
}
