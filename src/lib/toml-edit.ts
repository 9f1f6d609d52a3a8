/**
 * Format-preserving edits of TOML text: set or delete one key, keep every other byte
 * (comments, blank lines, key order, quoting) exactly as it was. Parsing for meaning is
 * left to a real TOML parser; this only locates lines.
 */

type Line = {
  /** Index of the first and last physical line of this logical line (multi-line values). */
  start: number;
  end: number;
  kind: "header" | "array-header" | "key" | "other";
  /** For headers: the table path; for keys: the dotted key path relative to the table. */
  path: string[];
  /** For keys: the table the key is in. */
  table: string[];
};

function splitDotted(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | null = null;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ".") { out.push(cur.trim()); cur = ""; }
    else cur += ch;
  }
  out.push(cur.trim());
  return out;
}

/** Count unclosed brackets and multi-line strings from `from` onwards, outside comments and strings. */
function valueOpen(text: string, state: { depth: number; ml: string | null }): void {
  let i = 0;
  while (i < text.length) {
    if (state.ml) {
      const close = text.indexOf(state.ml, i);
      if (close < 0) return;
      i = close + 3;
      state.ml = null;
      continue;
    }
    const ch = text[i]!;
    if (ch === "#") return;
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) { state.ml = text.slice(i, i + 3); i += 3; continue; }
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

function scan(lines: string[]): Line[] {
  const out: Line[] = [];
  let table: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const header = /^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$/.exec(raw);
    const arrayHeader = /^\s*\[\[\s*([^\[\]]+?)\s*\]\]\s*(#.*)?$/.exec(raw);
    if (arrayHeader) {
      table = splitDotted(arrayHeader[1]!);
      out.push({ start: i, end: i, kind: "array-header", path: table, table });
      continue;
    }
    if (header) {
      table = splitDotted(header[1]!);
      out.push({ start: i, end: i, kind: "header", path: table, table });
      continue;
    }
    const key = /^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=(.*)$/.exec(raw);
    if (key) {
      const state = { depth: 0, ml: null as string | null };
      valueOpen(key[2]!, state);
      let end = i;
      while ((state.depth > 0 || state.ml) && end + 1 < lines.length) {
        end++;
        valueOpen(lines[end]!, state);
      }
      out.push({ start: i, end, kind: "key", path: splitDotted(key[1]!), table });
      i = end;
      continue;
    }
    out.push({ start: i, end: i, kind: "other", path: [], table });
  }
  return out;
}

const eq = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

function locate(lines: string[], keyPath: string[]): Line | undefined {
  return scan(lines).find((l) => l.kind === "key" && eq([...l.table, ...l.path], keyPath));
}

function splitLines(text: string): { lines: string[]; nl: string; trailing: boolean } {
  const nl = text.includes("\r\n") ? "\r\n" : "\n";
  const trailing = text.endsWith("\n");
  const lines = text.length ? text.replace(/\r?\n$/, "").split(/\r?\n/) : [];
  return { lines, nl, trailing };
}

function join(lines: string[], nl: string, trailing: boolean): string {
  return lines.length ? lines.join(nl) + (trailing ? nl : "") : "";
}

/** Render a JS value as a TOML inline value. */
export function tomlValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (value && typeof value === "object") {
    return `{ ${Object.entries(value).map(([k, v]) => `${/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k)} = ${tomlValue(v)}`).join(", ")} }`;
  }
  throw new Error(`cannot render ${typeof value} as TOML`);
}

/** The raw value text of a key (single-line values), or undefined when absent. */
export function getTomlRaw(text: string, keyPath: string[]): string | undefined {
  const { lines } = splitLines(text);
  const hit = locate(lines, keyPath);
  if (!hit) return undefined;
  return lines.slice(hit.start, hit.end + 1).join("\n").replace(/^[^=]*=\s*/, "").replace(/\s+#[^"']*$/, "").trim();
}

/**
 * Set `keyPath` (table path + key) to `value`. An existing key keeps its position, its
 * spelling and a trailing comment; a new key goes at the end of its table (created at the
 * end of the file when missing).
 */
export function setTomlKey(text: string, keyPath: string[], value: unknown): string {
  const { lines, nl, trailing } = splitLines(text);
  const rendered = tomlValue(value);
  const hit = locate(lines, keyPath);
  if (hit) {
    const first = lines[hit.start]!;
    const m = /^(\s*[^=]*?=\s*)/.exec(first)!;
    const single = hit.start === hit.end;
    const comment = single ? /(\s+#[^"']*)$/.exec(first.slice(m[1]!.length))?.[1] ?? "" : "";
    lines.splice(hit.start, hit.end - hit.start + 1, m[1] + rendered + comment);
    return join(lines, nl, trailing || lines.length === 1);
  }
  const table = keyPath.slice(0, -1);
  const key = keyPath[keyPath.length - 1]!;
  const keyText = /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
  const scanned = scan(lines);
  const headerIdx = table.length ? scanned.findIndex((l) => l.kind === "header" && eq(l.path, table)) : -1;
  if (table.length === 0 || headerIdx >= 0) {
    // Insert after the last key of the table (or right after its header).
    let insertAt = table.length ? scanned[headerIdx]!.end + 1 : 0;
    for (let i = table.length ? headerIdx + 1 : 0; i < scanned.length; i++) {
      const l = scanned[i]!;
      if (l.kind === "header" || l.kind === "array-header") break;
      if (l.kind === "key") insertAt = l.end + 1;
    }
    lines.splice(insertAt, 0, `${keyText} = ${rendered}`);
    return join(lines, nl, true);
  }
  const tableText = table.map((t) => (/^[A-Za-z0-9_-]+$/.test(t) ? t : JSON.stringify(t))).join(".");
  const block = [`[${tableText}]`, `${keyText} = ${rendered}`];
  if (lines.length && lines[lines.length - 1]!.trim() !== "") block.unshift("");
  lines.push(...block);
  return join(lines, nl, true);
}

/**
 * Delete `keyPath`. When `dropEmptyTable` is set and the key's table is left with no keys
 * and no comments, its header (and the blank line before it) goes too.
 */
export function deleteTomlKey(text: string, keyPath: string[], dropEmptyTable = true): string {
  const { lines, nl, trailing } = splitLines(text);
  const hit = locate(lines, keyPath);
  if (!hit) return text;
  lines.splice(hit.start, hit.end - hit.start + 1);
  if (dropEmptyTable && hit.table.length) {
    const scanned = scan(lines);
    const h = scanned.findIndex((l) => l.kind === "header" && eq(l.path, hit.table));
    if (h >= 0) {
      let j = h + 1;
      let empty = true;
      for (; j < scanned.length; j++) {
        const l = scanned[j]!;
        if (l.kind === "header" || l.kind === "array-header") break;
        if (l.kind === "key" || lines[l.start]!.trim() !== "") { empty = false; break; }
      }
      // Only the table's own body is considered: another table nested under it keeps it.
      const hasChildren = scanned.some((l) => (l.kind === "header" || l.kind === "array-header") && l.path.length > hit.table.length && eq(l.path.slice(0, hit.table.length), hit.table));
      if (empty && !hasChildren) {
        const start = scanned[h]!.start;
        const endExclusive = j < scanned.length ? scanned[j]!.start : lines.length;
        let from = start;
        if (from > 0 && lines[from - 1]!.trim() === "" && endExclusive === lines.length) from--;
        lines.splice(from, endExclusive - from - (endExclusive < lines.length ? countTrailingBlank(lines, start, endExclusive) : 0));
      }
    }
  }
  return join(lines, nl, trailing);
}

function countTrailingBlank(lines: string[], start: number, end: number): number {
  // Keep the blank lines that separated the removed table from the next one.
  let n = 0;
  for (let i = end - 1; i > start && lines[i]!.trim() === ""; i--) n++;
  return n;
}

/** Remove a whole `[table]` (header and its keys) — e.g. `[mcp_servers.coffer]`. */
export function deleteTomlTable(text: string, table: string[]): string {
  const { lines, nl, trailing } = splitLines(text);
  const scanned = scan(lines);
  const h = scanned.findIndex((l) => l.kind === "header" && eq(l.path, table));
  if (h < 0) return text;
  let j = h + 1;
  while (j < scanned.length && scanned[j]!.kind !== "header" && scanned[j]!.kind !== "array-header") j++;
  const start = scanned[h]!.start;
  let end = j < scanned.length ? scanned[j]!.start : lines.length;
  // Leave the blank lines/comments that introduce the next table.
  while (end > start + 1 && j < scanned.length && lines[end - 1]!.trim() === "") end--;
  let from = start;
  if (j >= scanned.length && from > 0 && lines[from - 1]!.trim() === "") from--;
  lines.splice(from, end - from);
  return join(lines, nl, trailing);
}
