/**
 * Format-preserving edits of TOML text: set or delete one key or one table, keep every other
 * byte (comments, blank lines, key order, quoting, line endings) exactly as it was. Parsing for
 * meaning is left to a real TOML parser; this only locates lines. Insertions and deletions are
 * exact inverses: adding a key or table and deleting it again gives back the original bytes.
 */
import { CofferError } from "./errors";

type Line = {
  /** Index of the first and last physical line of this logical line (multi-line values). */
  start: number;
  end: number;
  kind: "header" | "array-header" | "key" | "blank" | "comment" | "other";
  /** For headers: the table path; for keys: the dotted key path relative to the table. */
  path: string[];
  /** The table the line belongs to (for `[[array]]` tables a path that never matches a plain table). */
  table: string[];
};

const BARE = /^[A-Za-z0-9_-]+$/;
const AOT = "\u0000[[]]";

function splitDotted(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | null = null;
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < s.length) {
        const next = s[++i]!;
        cur += next === "n" ? "\n" : next === "t" ? "\t" : next;
      } else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      quoted = true;
    } else if (ch === ".") {
      out.push(quoted ? cur : cur.trim());
      cur = "";
      quoted = false;
    } else if (ch !== " " && ch !== "\t") cur += ch;
  }
  out.push(quoted ? cur : cur.trim());
  return out;
}

/** Walk a value's text, tracking open brackets and multi-line strings across lines. */
function valueOpen(text: string, state: { depth: number; ml: string | null }): void {
  let i = 0;
  while (i < text.length) {
    if (state.ml) {
      const close = text.indexOf(state.ml, i);
      if (close < 0) return;
      i = close + 3;
      // """a"""" — up to two extra quotes belong to the string.
      while (text[i] === state.ml[0] && i < text.length) i++;
      state.ml = null;
      continue;
    }
    const ch = text[i]!;
    if (ch === "#") return;
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
      state.ml = text.slice(i, i + 3);
      i += 3;
      continue;
    }
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== ch) j += ch === '"' && text[j] === "\\" ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (ch === "[" || ch === "{") state.depth++;
    else if (ch === "]" || ch === "}") state.depth--;
    i++;
  }
}

/** Where a single-line value ends: the first `#` outside strings, minus trailing whitespace. */
function valueEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "#") break;
    if (ch === '"' || ch === "'") {
      const triple = text.startsWith(ch.repeat(3), i);
      if (triple) {
        const close = text.indexOf(ch.repeat(3), i + 3);
        i = close < 0 ? text.length : close + 3;
        continue;
      }
      let j = i + 1;
      while (j < text.length && text[j] !== ch) j += ch === '"' && text[j] === "\\" ? 2 : 1;
      i = j + 1;
      continue;
    }
    i++;
  }
  let end = Math.min(i, text.length);
  while (end > from && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  return end;
}

const KEY_RE =
  /^(\s*)((?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)(\s*=\s*)/;
const HEADER_RE =
  /^\s*\[\s*((?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)\s*\]\s*(#.*)?$/;
const AOT_RE =
  /^\s*\[\[\s*((?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)\s*\]\]\s*(#.*)?$/;

function scan(lines: string[]): Line[] {
  const out: Line[] = [];
  let table: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const aot = AOT_RE.exec(raw);
    if (aot) {
      const path = splitDotted(aot[1]!);
      table = [...path, AOT];
      out.push({ start: i, end: i, kind: "array-header", path, table });
      continue;
    }
    const header = HEADER_RE.exec(raw);
    if (header) {
      table = splitDotted(header[1]!);
      out.push({ start: i, end: i, kind: "header", path: table, table });
      continue;
    }
    const key = KEY_RE.exec(raw);
    if (key) {
      const state = { depth: 0, ml: null as string | null };
      valueOpen(raw.slice(key[0].length), state);
      let end = i;
      while ((state.depth > 0 || state.ml) && end + 1 < lines.length) {
        end++;
        valueOpen(lines[end]!, state);
      }
      out.push({ start: i, end, kind: "key", path: splitDotted(key[2]!), table });
      i = end;
      continue;
    }
    const kind = raw.trim() === "" ? "blank" : raw.trim().startsWith("#") ? "comment" : "other";
    out.push({ start: i, end: i, kind, path: [], table });
  }
  return out;
}

const eq = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const startsWith = (a: string[], prefix: string[]) => a.length >= prefix.length && prefix.every((x, i) => x === a[i]);
const fullPath = (l: Line) => [...l.table, ...l.path];
const isHeader = (l: Line) => l.kind === "header" || l.kind === "array-header";

function splitLines(text: string): { lines: string[]; nl: string; trailing: boolean } {
  const nl = text.includes("\r\n") ? "\r\n" : "\n";
  const trailing = /\r?\n$/.test(text);
  const body = trailing ? text.replace(/\r?\n$/, "") : text;
  const lines = text.length ? body.split(/\r?\n/) : [];
  return { lines, nl, trailing };
}

function join(lines: string[], nl: string, trailing: boolean): string {
  return lines.length ? lines.join(nl) + (trailing ? nl : "") : "";
}

function keyText(key: string): string {
  return BARE.test(key) ? key : JSON.stringify(key);
}

function tableText(table: string[]): string {
  return table.map(keyText).join(".");
}

/** Render a JS value as a TOML inline value. */
export function tomlValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`cannot render ${value} as TOML`);
    return String(value);
  }
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value);
    return entries.length ? `{ ${entries.map(([k, v]) => `${keyText(k)} = ${tomlValue(v)}`).join(", ")} }` : "{}";
  }
  throw new Error(`cannot render ${typeof value} as TOML`);
}

function locate(scanned: Line[], keyPath: string[]): Line | undefined {
  return scanned.find((l) => l.kind === "key" && eq(fullPath(l), keyPath));
}

/** A key whose value is an inline table (or other value) covering `keyPath`: it cannot be edited line-wise. */
function inlineOwner(scanned: Line[], keyPath: string[]): Line | undefined {
  return scanned.find(
    (l) => l.kind === "key" && fullPath(l).length < keyPath.length && startsWith(keyPath, fullPath(l)),
  );
}

function headerIndex(scanned: Line[], table: string[]): number {
  return scanned.findIndex((l) => l.kind === "header" && eq(l.path, table));
}

/** Index (into `scanned`) of the next header after `from`, or scanned.length. */
function nextHeader(scanned: Line[], from: number): number {
  let j = from + 1;
  while (j < scanned.length && !isHeader(scanned[j]!)) j++;
  return j;
}

/** The raw value text of a key (comment stripped), or undefined when absent. */
export function getTomlRaw(text: string, keyPath: string[]): string | undefined {
  const { lines } = splitLines(text);
  const hit = locate(scan(lines), keyPath);
  if (!hit) return undefined;
  const first = lines[hit.start]!;
  const m = KEY_RE.exec(first)!;
  if (hit.start === hit.end) return first.slice(m[0].length, valueEnd(first, m[0].length));
  const body = [first.slice(m[0].length), ...lines.slice(hit.start + 1, hit.end + 1)];
  const last = body[body.length - 1]!;
  body[body.length - 1] = last.slice(0, valueEnd(last, 0));
  return body.join("\n");
}

/** True when `[table]` is written as a header (or keys inside it exist). */
export function hasTomlTable(text: string, table: string[]): boolean {
  const scanned = scan(splitLines(text).lines);
  return (
    headerIndex(scanned, table) >= 0 ||
    scanned.some((l) => l.kind === "key" && startsWith(fullPath(l), table) && fullPath(l).length > table.length)
  );
}

function inlineError(line: Line, keyPath: string[]): CofferError {
  return new CofferError(
    `cannot edit "${keyPath.join(".")}" line by line: "${fullPath(line).join(".")}" is written as one inline value (line ${line.start + 1})`,
    1,
    `Rewrite it as a [${tableText(fullPath(line))}] table by hand, then run the command again.`,
  );
}

/** Lines of a new `[table]` block appended after the last non-blank line (a blank line before it). */
function appendBlock(lines: string[], block: string[]): void {
  let at = lines.length;
  while (at > 0 && lines[at - 1]!.trim() === "") at--;
  lines.splice(at, 0, ...(at > 0 ? ["", ...block] : block));
}

/**
 * Set `keyPath` (table path + key) to `value`. An existing key keeps its position, its spelling
 * and a trailing comment; a new key goes after the last key of its table (the table is created
 * at the end of the file when missing). `raw` writes exact value text instead of rendering.
 */
export function setTomlKey(text: string, keyPath: string[], value: unknown, raw?: string): string {
  const { lines, nl, trailing } = splitLines(text);
  const rendered = raw ?? tomlValue(value);
  const scanned = scan(lines);
  const hit = locate(scanned, keyPath);
  if (hit) {
    const first = lines[hit.start]!;
    const m = KEY_RE.exec(first)!;
    const lastLine = lines[hit.end]!;
    const suffixFrom = hit.start === hit.end ? valueEnd(first, m[0].length) : valueEnd(lastLine, 0);
    const suffix = (hit.start === hit.end ? first : lastLine).slice(suffixFrom);
    lines.splice(hit.start, hit.end - hit.start + 1, m[0] + rendered + suffix);
    return join(lines, nl, trailing);
  }
  const owner = inlineOwner(scanned, keyPath);
  if (owner) throw inlineError(owner, keyPath);
  const table = keyPath.slice(0, -1);
  const key = keyPath[keyPath.length - 1]!;
  const h = table.length ? headerIndex(scanned, table) : -1;
  if (table.length === 0 || h >= 0) {
    // After the last key of the table, or right after its header (root: before the first header).
    const from = table.length ? h : -1;
    const stop = nextHeader(scanned, from);
    let insertAt = table.length ? scanned[h]!.end + 1 : 0;
    for (let i = from + 1; i < stop; i++) if (scanned[i]!.kind === "key") insertAt = scanned[i]!.end + 1;
    lines.splice(insertAt, 0, `${keyText(key)} = ${rendered}`);
    return join(lines, nl, trailing || text.length === 0);
  }
  // No header, but dotted keys already define the table from a parent (`features.x = 1`): add a sibling.
  const dotted = scanned.filter(
    (l) => l.kind === "key" && startsWith(fullPath(l), table) && fullPath(l).length > table.length,
  );
  if (dotted.length) {
    const last = dotted[dotted.length - 1]!;
    const rel = keyPath.slice(last.table.length);
    const indent = /^\s*/.exec(lines[last.start]!)![0];
    lines.splice(last.end + 1, 0, `${indent}${rel.map(keyText).join(".")} = ${rendered}`);
    return join(lines, nl, trailing);
  }
  appendBlock(lines, [`[${tableText(table)}]`, `${keyText(key)} = ${rendered}`]);
  return join(lines, nl, trailing || text.length === 0);
}

/** The body of `[table]`: line indices (into `scanned`) of its header and its last own key. */
function tableSpan(scanned: Line[], h: number): { header: number; last: number; next: number } {
  const next = nextHeader(scanned, h);
  let last = h;
  for (let i = h + 1; i < next; i++) if (scanned[i]!.kind === "key") last = i;
  return { header: h, last, next };
}

/** Remove physical lines [from, to] of a table block, plus the one blank line that introduced it. */
function removeBlock(lines: string[], from: number, to: number): void {
  let start = from;
  let end = to;
  if (start > 0 && lines[start - 1]!.trim() === "") start--;
  else if (start === 0) while (end + 1 < lines.length && lines[end + 1]!.trim() === "") end++;
  lines.splice(start, end - start + 1);
}

/**
 * Delete `keyPath`. With `dropEmptyTable`, a table left with no keys, no comments and no
 * sub-tables loses its header too (use it only for tables Coffer created).
 */
export function deleteTomlKey(text: string, keyPath: string[], dropEmptyTable = true): string {
  const { lines, nl, trailing } = splitLines(text);
  const hit = locate(scan(lines), keyPath);
  if (!hit) return text;
  lines.splice(hit.start, hit.end - hit.start + 1);
  const table = keyPath.slice(0, -1);
  if (dropEmptyTable && table.length && eq(hit.table, table)) {
    const scanned = scan(lines);
    const h = headerIndex(scanned, table);
    if (h >= 0) {
      const next = nextHeader(scanned, h);
      const body = scanned.slice(h + 1, next);
      const hasChildren = scanned.some((l) => isHeader(l) && l.path.length > table.length && startsWith(l.path, table));
      if (body.every((l) => l.kind === "blank") && !hasChildren) {
        const header = scanned[h]!;
        // Keep the blank lines that separate this table from the next one.
        removeBlock(lines, header.start, header.end);
      }
    }
  }
  return join(lines, nl, trailing);
}

/**
 * Make `[table]` hold `entries` (other keys in it are kept). A missing table is appended at the
 * end of the file as one block: blank line, header, keys. `existing` is the table's parsed value,
 * needed to keep the other keys when the table is written as one inline value.
 */
export function setTomlTable(
  text: string,
  table: string[],
  entries: Record<string, unknown>,
  existing: Record<string, unknown> = {},
): string {
  const scanned = scan(splitLines(text).lines);
  const exists =
    headerIndex(scanned, table) >= 0 ||
    scanned.some((l) => l.kind === "key" && startsWith(fullPath(l), table) && fullPath(l).length > table.length);
  if (exists) {
    let out = text;
    for (const [k, v] of Object.entries(entries)) out = setTomlKey(out, [...table, k], v);
    return out;
  }
  const owner = inlineOwner(scanned, [...table, "x"]);
  if (owner && eq(fullPath(owner), table)) {
    // `coffer = { ... }` inside [mcp_servers]: rewrite the inline value, keeping its other keys.
    return setTomlKey(text, table, { ...existing, ...entries });
  }
  if (owner) throw inlineError(owner, table);
  const { lines, nl, trailing } = splitLines(text);
  appendBlock(lines, [
    `[${tableText(table)}]`,
    ...Object.entries(entries).map(([k, v]) => `${keyText(k)} = ${tomlValue(v)}`),
  ]);
  return join(lines, nl, trailing || text.length === 0);
}

/**
 * Remove a whole `[table]` (header, its keys, and its `[table.sub]` tables) — e.g.
 * `[mcp_servers.coffer]` — or a key holding it inline. Comments after the last key that
 * introduce the next table stay.
 */
export function deleteTomlTable(text: string, table: string[]): string {
  const { lines, nl, trailing } = splitLines(text);
  let scanned = scan(lines);
  const inline = locate(scanned, table);
  if (inline) return deleteTomlKey(text, table, false);
  // Sub-tables first (from the bottom), then the table itself.
  for (;;) {
    scanned = scan(lines);
    let h = -1;
    for (let i = scanned.length - 1; i >= 0; i--) {
      const l = scanned[i]!;
      if (isHeader(l) && startsWith(l.path, table)) {
        h = i;
        break;
      }
    }
    if (h < 0) break;
    const span = tableSpan(scanned, h);
    removeBlock(lines, scanned[span.header]!.start, scanned[span.last]!.end);
  }
  // Dotted keys defining the table from a parent (`coffer.command = ...` under [mcp_servers]).
  for (;;) {
    scanned = scan(lines);
    const l = scanned.find((x) => x.kind === "key" && startsWith(fullPath(x), table));
    if (!l) break;
    lines.splice(l.start, l.end - l.start + 1);
  }
  return join(lines, nl, trailing);
}
