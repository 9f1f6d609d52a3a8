/**
 * Format-preserving edits of JSON / JSONC text. jsonc-parser supplies the syntax tree (with
 * offsets); the edits here are small splices so that every byte outside the changed member
 * stays as the user wrote it. Insertion and removal are exact inverses: appending a member
 * and removing it again gives back the original bytes.
 */

import { findNodeAtLocation, type Node, type ParseError, parse, parseTree, printParseErrorCode } from "jsonc-parser";
import { CofferError } from "../lib/errors";
import { type Dialect, dialectOptions as parseOptions } from "../lib/jsonc";

export type JsonPath = (string | number)[];

export function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, col: offset - last };
}

const DIALECT_NAME: Record<Dialect, string> = {
  json: "JSON (no comments, no trailing commas)",
  "json-comments": "JSON with comments (no trailing commas)",
  jsonc: "JSONC",
};

/**
 * Parse `text` as the host would. A file that does not parse is a user error naming the file,
 * line and column — Coffer never edits what it cannot read.
 */
export function parseJsonStrict(text: string, file: string, dialect: Dialect): { tree: Node; value: unknown } {
  if (text.charCodeAt(0) === 0xfeff)
    throw new CofferError(
      `${file}:1:1: starts with a UTF-8 byte order mark (BOM), which JSON does not allow; left it untouched`,
      1,
      'Save the file as UTF-8 without a BOM (most editors: "UTF-8", not "UTF-8 with BOM"), then run the command again.',
    );
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, parseOptions(dialect));
  if (errors.length || !tree) {
    const e = errors[0];
    const at = e ? lineCol(text, e.offset) : { line: 1, col: 1 };
    const what = e ? printParseErrorCode(e.error) : "empty document";
    throw new CofferError(
      `${file}:${at.line}:${at.col}: not valid ${DIALECT_NAME[dialect]} (${what}); left it untouched`,
      1,
      "Fix that line by hand (or move the file away), then run the command again.",
    );
  }
  const dup = firstDuplicateKey(tree);
  if (dup) {
    const at = lineCol(text, dup.offset);
    const first = lineCol(text, dup.firstOffset);
    throw new CofferError(
      `${file}:${at.line}:${at.col}: duplicate key "${dup.key}" (also on line ${first.line}); left it untouched`,
      1,
      "Hosts read only one of the two: remove the one you do not want, then run the command again.",
    );
  }
  return { tree, value: parse(text, [], parseOptions(dialect)) };
}

/** The first object key that appears twice in one object (its offset and its first occurrence's). */
function firstDuplicateKey(root: Node): { key: string; offset: number; firstOffset: number } | undefined {
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    const kids = n.children;
    if (!kids) continue;
    if (n.type === "object") {
      const seen = new Map<string, number>();
      for (const prop of kids) {
        const k = prop.children?.[0];
        if (!k || typeof k.value !== "string") continue;
        const prev = seen.get(k.value);
        if (prev !== undefined) return { key: k.value, offset: k.offset, firstOffset: prev };
        seen.set(k.value, k.offset);
      }
    }
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return undefined;
}

export function detectEol(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** The file's indentation step: the smallest leading whitespace of an indented line (default 2 spaces). */
export function detectIndentUnit(text: string): string {
  let best: string | undefined;
  for (const m of text.matchAll(/(?:^|\n)([ \t]+)(?=["{[\]}])/g)) {
    const ws = m[1]!;
    if (ws.startsWith("\t")) return "\t";
    if (!best || ws.length < best.length) best = ws;
  }
  return best ?? "  ";
}

function lineStart(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && text[i - 1] !== "\n") i--;
  return i;
}

/** Leading whitespace of the line holding `offset`. */
function indentAt(text: string, offset: number): string {
  const s = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(s, offset))![0];
}

/** True when only indentation precedes `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, offset), offset));
}

/** Start of the run of whitespace (spaces, tabs, line breaks) that ends at `offset`. */
function wsRunStart(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && " \t\r\n".includes(text[i - 1]!)) i--;
  return i;
}

/** Skip whitespace and comments from `offset`; returns the offset of the next significant char. */
function skipTrivia(text: string, offset: number): number {
  let i = offset;
  for (;;) {
    while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
    if (text.startsWith("//", i)) {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (text.startsWith("/*", i)) {
      const close = text.indexOf("*/", i + 2);
      i = close < 0 ? text.length : close + 2;
    } else return i;
  }
}

/** Offset of a comma directly following `offset` (past trivia), or -1. */
function commaAfter(text: string, offset: number): number {
  const i = skipTrivia(text, offset);
  return text[i] === "," ? i : -1;
}

/** When the rest of the line after `offset` is only a comment (and/or a comma), the line's end; else -1. */
function commentOnlyRestOfLine(text: string, offset: number): number {
  let i = offset;
  while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  if (text.startsWith("//", i)) {
    while (i < text.length && text[i] !== "\n" && text[i] !== "\r") i++;
    return i;
  }
  if (text.startsWith("/*", i)) {
    const close = text.indexOf("*/", i + 2);
    if (close < 0) return -1;
    const nl = text.indexOf("\n", i);
    if (nl >= 0 && nl < close) return -1; // a block comment spanning lines: leave it alone
    i = close + 2;
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
    return i >= text.length || text[i] === "\n" || text[i] === "\r" ? i : -1;
  }
  return -1;
}

type Splice = { offset: number; length: number; content: string };

function applySplices(text: string, splices: Splice[]): string {
  let out = text;
  for (const s of [...splices].sort((a, b) => b.offset - a.offset)) {
    out = out.slice(0, s.offset) + s.content + out.slice(s.offset + s.length);
  }
  return out;
}

/** Render `value` for insertion at a line indented by `indent` (multi-line) or compactly. */
export function renderJson(value: unknown, indent: string, unit: string, eol: string, multiline: boolean): string {
  if (!multiline) return JSON.stringify(value);
  return JSON.stringify(value, null, unit)
    .split("\n")
    .join(eol + indent);
}

type Style = { unit: string; eol: string };

function styleOf(text: string): Style {
  return { unit: detectIndentUnit(text), eol: detectEol(text) };
}

function memberText(key: string | undefined, value: unknown, indent: string, style: Style, multiline: boolean): string {
  const v = renderJson(value, indent, style.unit, style.eol, multiline);
  return key === undefined ? v : `${JSON.stringify(key)}: ${v}`;
}

/** Splices that append a member (object property or array element) at the end of `container`. */
function appendSplices(text: string, container: Node, key: string | undefined, value: unknown, style: Style): Splice[] {
  const kids = container.children ?? [];
  const open = container.offset;
  const close = container.offset + container.length - 1; // the closing bracket
  if (kids.length === 0) {
    const inner = text.slice(open + 1, close);
    const containerIndent = indentAt(text, open);
    // A document written on one line stays on one line.
    const multiline = isMultilineDoc(text);
    if (!multiline)
      return [{ offset: open + 1, length: inner.length, content: memberText(key, value, "", style, false) }];
    const childIndent = containerIndent + style.unit;
    if (inner.trim() === "") {
      return [
        {
          offset: open + 1,
          length: inner.length,
          content:
            style.eol + childIndent + memberText(key, value, childIndent, style, true) + style.eol + containerIndent,
        },
      ];
    }
    // Only comments inside: put the member after them, on its own line.
    const at = wsRunStart(text, close);
    return [
      { offset: at, length: 0, content: style.eol + childIndent + memberText(key, value, childIndent, style, true) },
    ];
  }
  const last = kids[kids.length - 1]!;
  const lastEnd = last.offset + last.length;
  const trailing = commaAfter(text, lastEnd);
  if (startsLine(text, last.offset)) {
    const indent = indentAt(text, last.offset);
    const member = memberText(key, value, indent, style, true);
    if (trailing >= 0) {
      // JSONC trailing comma: keep the style — the new last member gets one too.
      const eolAt = commentOnlyRestOfLine(text, trailing + 1);
      const at = eolAt >= 0 ? eolAt : trailing + 1;
      return [{ offset: at, length: 0, content: `${style.eol + indent + member},` }];
    }
    const eolAt = commentOnlyRestOfLine(text, lastEnd);
    if (eolAt >= 0) {
      return [
        { offset: lastEnd, length: 0, content: "," },
        { offset: eolAt, length: 0, content: style.eol + indent + member },
      ];
    }
    return [{ offset: lastEnd, length: 0, content: `,${style.eol}${indent}${member}` }];
  }
  const member = memberText(key, value, "", style, false);
  if (trailing >= 0) return [{ offset: trailing + 1, length: 0, content: ` ${member},` }];
  return [{ offset: lastEnd, length: 0, content: `, ${member}` }];
}

function isMultilineDoc(text: string): boolean {
  return text.trim().includes("\n");
}

/** Splices that remove child `index` of `container` (the inverse of appending it). */
function removeSplices(text: string, container: Node, index: number): Splice[] {
  const kids = container.children ?? [];
  const x = kids[index]!;
  const xs = x.offset;
  const xe = x.offset + x.length;
  const after = commaAfter(text, xe);
  if (kids.length === 1) {
    const open = container.offset;
    const close = container.offset + container.length - 1;
    const outside = text.slice(open + 1, xs) + text.slice(after >= 0 ? after + 1 : xe, close);
    if (outside.trim() === "") return [{ offset: open + 1, length: close - open - 1, content: "" }];
    const start = wsRunStart(text, xs);
    return [{ offset: start, length: (after >= 0 ? after + 1 : xe) - start, content: "" }];
  }
  if (index === 0) {
    const next = kids[1]!;
    return [{ offset: xs, length: next.offset - xs, content: "" }];
  }
  const start = wsRunStart(text, xs);
  if (index === kids.length - 1) {
    if (after >= 0) return [{ offset: start, length: after + 1 - start, content: "" }];
    const prev = kids[index - 1]!;
    const before = commaAfter(text, prev.offset + prev.length);
    const splices: Splice[] = [{ offset: start, length: xe - start, content: "" }];
    if (before >= 0 && before < start) splices.push({ offset: before, length: 1, content: "" });
    return splices;
  }
  return [{ offset: start, length: (after >= 0 ? after + 1 : xe) - start, content: "" }];
}

function nodeAt(tree: Node, path: JsonPath): Node | undefined {
  return findNodeAtLocation(tree, path);
}

/** The value at `path` in a parsed document (undefined when absent). */
export function getAt(value: unknown, path: JsonPath): unknown {
  let cur: unknown = value;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    if (typeof seg === "number") {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[seg];
    } else {
      if (Array.isArray(cur) || !Object.hasOwn(cur as object, seg)) return undefined;
      cur = (cur as Record<string, unknown>)[seg];
    }
  }
  return cur;
}

/** A JSON document being edited: text plus its tree, re-parsed after every edit. */
export class JsonDoc {
  text: string;
  private tree: Node;
  value: unknown;

  constructor(
    text: string,
    readonly file: string,
    readonly dialect: Dialect,
  ) {
    const parsed = parseJsonStrict(text, file, dialect);
    this.text = text;
    this.tree = parsed.tree;
    this.value = parsed.value;
  }

  /** Re-parse after an edit and check the document is exactly the one intended. */
  private update(text: string, expected: unknown): void {
    const parsed = parseJsonStrict(text, this.file, this.dialect);
    if (!deepEqual(parsed.value, expected)) {
      throw new CofferError(
        `${this.file}: an edit did not give the intended document; nothing was written`,
        1,
        "This is a bug in Coffer; please report it with a copy of the file.",
      );
    }
    this.text = text;
    this.tree = parsed.tree;
    this.value = parsed.value;
  }

  private expect(mutate: (root: unknown) => void): unknown {
    const copy = structuredClone(this.value);
    mutate(copy);
    return copy;
  }

  get(path: JsonPath): unknown {
    return getAt(this.value, path);
  }

  has(path: JsonPath): boolean {
    return nodeAt(this.tree, path) !== undefined;
  }

  /** The exact source text of the value at `path` (for restoring it later byte-for-byte). */
  raw(path: JsonPath): string | undefined {
    const n = nodeAt(this.tree, path);
    return n ? this.text.slice(n.offset, n.offset + n.length) : undefined;
  }

  /**
   * Set the value at `path`: an existing value is replaced in place; a missing one is appended
   * to its parent object (missing parent objects are created). `rawText` replaces the value
   * with exact source text instead of rendering `value`.
   */
  set(path: JsonPath, value: unknown, rawText?: string): void {
    const style = styleOf(this.text);
    const final = rawText !== undefined ? parse(rawText) : value;
    const existing = nodeAt(this.tree, path);
    if (existing) {
      const expected = this.expect((root) => setIn(root, path, final));
      const content =
        rawText ??
        renderJson(value, indentAt(this.text, existing.offset), style.unit, style.eol, isMultilineDoc(this.text));
      this.update(applySplices(this.text, [{ offset: existing.offset, length: existing.length, content }]), expected);
      return;
    }
    // Walk up to the deepest existing ancestor; build the rest as one nested value.
    let depth = path.length - 1;
    while (depth > 0 && !nodeAt(this.tree, path.slice(0, depth))) depth--;
    const parentPath = path.slice(0, depth);
    const parent = depth === 0 ? this.tree : nodeAt(this.tree, parentPath)!;
    if (parent.type !== "object") {
      throw new CofferError(
        `${this.file}: expected an object at "${parentPath.join(".") || "(top level)"}", found ${parent.type}; left it untouched`,
        1,
        "Fix that part of the file by hand, then run the command again.",
      );
    }
    const expected = this.expect((root) => setIn(root, path, final));
    let nested: unknown = value;
    for (let i = path.length - 1; i > depth; i--) nested = { [path[i] as string]: nested };
    const key = path[depth] as string;
    if (rawText !== undefined && depth === path.length - 1) {
      // Insert a placeholder, then swap in the raw text.
      this.update(
        applySplices(this.text, appendSplices(this.text, parent, key, null, style)),
        this.expect((root) => setIn(root, path, null)),
      );
      const n = nodeAt(this.tree, path)!;
      this.update(applySplices(this.text, [{ offset: n.offset, length: n.length, content: rawText }]), expected);
      return;
    }
    this.update(applySplices(this.text, appendSplices(this.text, parent, key, nested, style)), expected);
  }

  /** Append `value` to the array at `path` (created when missing). */
  append(path: JsonPath, value: unknown): void {
    const arr = nodeAt(this.tree, path);
    if (!arr) {
      this.set(path, [value]);
      return;
    }
    if (arr.type !== "array") {
      throw new CofferError(
        `${this.file}: expected a list at "${path.join(".")}", found ${arr.type}; left it untouched`,
        1,
        "Fix that part of the file by hand, then run the command again.",
      );
    }
    const expected = this.expect((root) => (getAt(root, path) as unknown[]).push(structuredClone(value)));
    this.update(applySplices(this.text, appendSplices(this.text, arr, undefined, value, styleOf(this.text))), expected);
  }

  /** Make the object at `path` hold `entries`, each key set in place (its other keys stay as written). */
  merge(path: JsonPath, entries: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(entries)) this.set([...path, k], v);
  }

  /** How messages name the entry at `path`: its key in quotes. */
  label(path: JsonPath): string {
    return `"${path[path.length - 1]}"`;
  }

  /**
   * Remove the member at `path` (object property or array element). With `dropEmptyParent`, an
   * object the removal leaves empty goes too.
   */
  remove(path: JsonPath, opts: { dropEmptyParent?: boolean } = {}): void {
    this.removeMember(path);
    const parent = path.slice(0, -1);
    const rest = parent.length ? this.get(parent) : undefined;
    if (opts.dropEmptyParent && rest && typeof rest === "object" && Object.keys(rest).length === 0)
      this.removeMember(parent);
  }

  private removeMember(path: JsonPath): void {
    if (path.length === 0) throw new Error("cannot remove the document root");
    const parentPath = path.slice(0, -1);
    const parent = parentPath.length ? nodeAt(this.tree, parentPath) : this.tree;
    if (!parent) return;
    const last = path[path.length - 1]!;
    let index: number;
    if (parent.type === "array") {
      if (typeof last !== "number") return;
      index = last;
    } else if (parent.type === "object") {
      // The last property with that name is the one parsers keep.
      index = -1;
      (parent.children ?? []).forEach((p, i) => {
        if (p.children?.[0]?.value === last) index = i;
      });
    } else return;
    if (index < 0 || index >= (parent.children?.length ?? 0)) return;
    const expected = this.expect((root) => {
      const container = parentPath.length ? getAt(root, parentPath) : root;
      if (Array.isArray(container)) container.splice(last as number, 1);
      else delete (container as Record<string, unknown>)[last as string];
    });
    this.update(applySplices(this.text, removeSplices(this.text, parent, index)), expected);
  }
}

function setIn(root: unknown, path: JsonPath, value: unknown): void {
  let cur = root as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i]!;
    if (cur[seg] === undefined || cur[seg] === null || typeof cur[seg] !== "object") cur[seg] = {};
    cur = cur[seg] as Record<string | number, unknown>;
  }
  cur[path[path.length - 1]!] = structuredClone(value);
}

/** Fresh file text for a document Coffer creates. */
export function newJsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return (
    ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && deepEqual((a as any)[k], (b as any)[k]))
  );
}
