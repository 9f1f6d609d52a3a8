/**
 * Format-preserving edits of JSON / JSONC text. jsonc-parser supplies the syntax tree (with
 * offsets); the edits here are small splices so that every byte outside the changed member
 * stays as the user wrote it. Insertion and removal are exact inverses: appending a member
 * and removing it again gives back the original bytes.
 */

import { type Node, type NodeType, type ParseError, parse, parseTree, printParseErrorCode, visit } from "jsonc-parser";
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

/** A syntax-tree node (jsonc-parser's shape, mutable); `lazy`: a container whose children are not built yet. */
type LNode = {
  type: NodeType;
  offset: number;
  length: number;
  colonOffset?: number;
  parent?: LNode;
  children?: LNode[];
  // biome-ignore lint/suspicious/noExplicitAny: jsonc-parser's literal value
  value?: any;
  lazy?: boolean;
};

/** Containers this deep (root = 0) start out lazy: big documents cost little until a path needs them. */
const EAGER_DEPTH = 2;

function refuse(text: string, file: string, dialect: Dialect, offset: number, what: string): never {
  const at = lineCol(text, offset);
  throw new CofferError(
    `${file}:${at.line}:${at.col}: not valid ${DIALECT_NAME[dialect]} (${what}); left it untouched`,
    1,
    "Fix that line by hand (or move the file away), then run the command again.",
  );
}

/**
 * Builds the shallow tree from parse events (jsonc-parser's visitor, or `scanFast`): containers
 * deeper than `EAGER_DEPTH` become lazy nodes; keys are checked for duplicates at every depth.
 */
class ShallowBuilder {
  private parent: LNode = { type: "array", offset: -1, length: -1, children: [] };
  /** Open containers below the built tree (inside a lazy node). */
  private skip = 0;
  private lazy: LNode | undefined;
  /** Keys seen so far in each open object (null for arrays). */
  private keys: (Map<string, number> | null)[] = [];
  dup: { key: string; offset: number; first: number } | undefined;

  /** False inside a lazy node: literal values there are not needed. */
  get building(): boolean {
    return this.skip === 0;
  }

  get root(): LNode | undefined {
    return this.parent.children![0];
  }

  private closeProperty(end: number): void {
    if (this.parent.type === "property") {
      this.parent.length = end - this.parent.offset;
      this.parent = this.parent.parent!;
    }
  }

  begin(type: "object" | "array", offset: number): void {
    this.keys.push(type === "object" ? new Map() : null);
    if (this.skip > 0) {
      this.skip++;
      return;
    }
    const node: LNode = { type, offset, length: -1, parent: this.parent, children: [] };
    this.parent.children!.push(node);
    if (this.keys.length - 1 > EAGER_DEPTH) {
      node.lazy = true;
      delete node.children;
      this.lazy = node;
      this.skip = 1;
      return;
    }
    this.parent = node;
  }

  end(offset: number, length: number): void {
    this.keys.pop();
    if (this.skip > 0) {
      this.skip--;
      if (this.skip > 0) return;
      this.lazy!.length = offset + length - this.lazy!.offset;
      this.lazy = undefined;
      this.closeProperty(offset + length);
      return;
    }
    this.closeProperty(offset + length);
    this.parent.length = offset + length - this.parent.offset;
    this.parent = this.parent.parent!;
    this.closeProperty(offset + length);
  }

  property(name: string, offset: number, length: number): void {
    const seen = this.keys[this.keys.length - 1];
    if (seen) {
      const first = seen.get(name);
      if (first !== undefined) this.dup ??= { key: name, offset, first };
      else seen.set(name, offset);
    }
    if (this.skip > 0) return;
    const prop: LNode = { type: "property", offset, length: -1, parent: this.parent, children: [] };
    this.parent.children!.push(prop);
    prop.children!.push({ type: "string", value: name, offset, length, parent: prop });
    this.parent = prop;
  }

  literal(value: unknown, offset: number, length: number): void {
    if (this.skip > 0) return;
    this.parent.children!.push({ type: getNodeTypeOf(value), offset, length, parent: this.parent, value });
    this.closeProperty(offset + length);
  }

  separator(sep: string, offset: number): void {
    if (this.skip > 0 || this.parent.type !== "property") return;
    if (sep === ":") this.parent.colonOffset = offset;
    else if (sep === ",") this.closeProperty(offset);
  }
}

/** A string token's value (`start` at its opening quote, `end` after its closing one). */
function stringAt(text: string, start: number, end: number, escaped: boolean): string {
  return escaped ? (JSON.parse(text.slice(start, end)) as string) : text.slice(start + 1, end - 1);
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WORDS: [string, unknown][] = [
  ["true", true],
  ["false", false],
  ["null", null],
];

/**
 * The common case without allocating a string per token (jsonc-parser's scanner makes a 44 MB
 * document cost over 100 MB of garbage): plain JSON/JSONC with ASCII whitespace. Anything it is
 * not sure of (an error, unusual whitespace or line breaks, a bad escape) returns false, and the
 * caller parses with jsonc-parser instead — so both agree on every document this accepts.
 */
function scanFast(text: string, dialect: Dialect, b: ShallowBuilder): boolean {
  const comments = dialect !== "json";
  const trailing = dialect === "jsonc";
  const n = text.length;
  let i = 0;
  const trivia = (): boolean => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else if (c === 47) {
        if (!comments) return false;
        const d = text.charCodeAt(i + 1);
        if (d === 47) {
          i += 2;
          for (;;) {
            const e = text.charCodeAt(i);
            if (i >= n || e === 10 || e === 13) break;
            if (e === 0x2028 || e === 0x2029) return false;
            i++;
          }
        } else if (d === 42) {
          const close = text.indexOf("*/", i + 2);
          if (close < 0) return false;
          i = close + 2;
        } else return false;
      } else return true;
    }
  };
  /** Scan the string token at i; returns [end, escaped] or undefined. */
  const string = (): [number, boolean] | undefined => {
    let j = i + 1;
    let escaped = false;
    for (;;) {
      if (j >= n) return undefined;
      const c = text.charCodeAt(j);
      if (c === 34) return [j + 1, escaped];
      if (c === 92) {
        escaped = true;
        const d = text.charCodeAt(j + 1);
        if (d === 117) {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) return undefined;
          j += 6;
        } else if (d === 34 || d === 92 || d === 47 || d === 98 || d === 102 || d === 110 || d === 114 || d === 116)
          j += 2;
        else return undefined;
      } else if (c < 0x20 || c === 0x2028 || c === 0x2029) return undefined;
      else j++;
    }
  };
  /** One scalar at i (string, number, true/false/null); false when it is not one. */
  const scalar = (): boolean => {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const s = string();
      if (!s) return false;
      if (b.building) b.literal(stringAt(text, i, s[0], s[1]), i, s[0] - i);
      i = s[0];
      return true;
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m) return false;
      const end = i + m[0].length;
      const next = text.charCodeAt(end);
      if ((next >= 48 && next <= 57) || next === 46 || next === 101 || next === 69) return false;
      if (b.building) b.literal(Number(m[0]), i, m[0].length);
      i = end;
      return true;
    }
    for (const [word, value] of WORDS) {
      if (text.startsWith(word, i)) {
        const next = text.charCodeAt(i + word.length);
        if ((next >= 65 && next <= 90) || (next >= 97 && next <= 122) || (next >= 48 && next <= 57) || next === 95)
          return false;
        b.literal(value, i, word.length);
        i += word.length;
        return true;
      }
    }
    return false;
  };
  /** What each open container expects next. */
  const open: ("object" | "array")[] = [];
  // value: a value is expected; after: a value just ended.
  let state: "value" | "after" = "value";
  for (;;) {
    if (!trivia()) return false;
    if (state === "value") {
      const c = text.charCodeAt(i);
      if (c === 123 || c === 91) {
        const type = c === 123 ? "object" : "array";
        b.begin(type, i);
        open.push(type);
        i++;
        if (!trivia()) return false;
        const close = text.charCodeAt(i);
        if (close === (c === 123 ? 125 : 93)) {
          b.end(i, 1);
          open.pop();
          i++;
          state = "after";
          continue;
        }
        if (type === "object") {
          if (!key()) return false;
        }
        continue;
      }
      if (!scalar()) return false;
      state = "after";
      continue;
    }
    // after a value
    const top = open[open.length - 1];
    if (!top) return i === n;
    const c = text.charCodeAt(i);
    if (c === 44) {
      b.separator(",", i);
      i++;
      if (!trivia()) return false;
      const d = text.charCodeAt(i);
      if (d === (top === "object" ? 125 : 93)) {
        if (!trailing) return false;
        continue; // the closer is handled below on the next turn
      }
      if (top === "object" && !key()) return false;
      state = "value";
      continue;
    }
    if (c === (top === "object" ? 125 : 93)) {
      b.end(i, 1);
      open.pop();
      i++;
      state = "after";
      continue;
    }
    return false;
  }

  /** A key, its colon, and trivia up to the value. */
  function key(): boolean {
    if (text.charCodeAt(i) !== 34) return false;
    const s = string();
    if (!s) return false;
    b.property(stringAt(text, i, s[0], s[1]), i, s[0] - i);
    i = s[0];
    if (!trivia()) return false;
    if (text.charCodeAt(i) !== 58) return false;
    b.separator(":", i);
    i++;
    return true;
  }
}

/** The shallow tree by one way only (tests check the two agree): undefined when that way finds an error or gives up. */
export function shallowTreeBy(how: "fast" | "jsonc", text: string, dialect: Dialect): unknown {
  const b = new ShallowBuilder();
  if (how === "fast") return scanFast(text, dialect, b) ? strip(b.root) : undefined;
  return visitInto(text, dialect, b).length ? undefined : strip(b.root);
}

/** The jsonc-parser way: one streaming pass feeding `b`; the syntax errors it met, in order. */
function visitInto(text: string, dialect: Dialect, b: ShallowBuilder): ParseError[] {
  const errors: ParseError[] = [];
  visit(
    text,
    {
      onObjectBegin: (offset) => b.begin("object", offset),
      onArrayBegin: (offset) => b.begin("array", offset),
      onObjectEnd: (offset, length) => b.end(offset, length),
      onArrayEnd: (offset, length) => b.end(offset, length),
      onObjectProperty: (name, offset, length) => b.property(name, offset, length),
      onLiteralValue: (value, offset, length) => b.literal(value, offset, length),
      onSeparator: (sep, offset) => b.separator(sep, offset),
      onError: (error, offset, length) => {
        errors.push({ error, offset, length });
      },
    },
    parseOptions(dialect),
  );
  return errors;
}

/** A tree without parent links (comparable with toEqual). */
function strip(n: LNode | undefined): unknown {
  if (!n) return undefined;
  const { parent: _, children, ...rest } = n;
  return children ? { ...rest, children: children.map(strip) } : rest;
}

/**
 * Parse `text` as the host would, in one streaming pass: syntax errors, a BOM and duplicate
 * keys are refused naming the file, line and column (Coffer never edits what it cannot read
 * unambiguously). The tree is built only `EAGER_DEPTH` levels deep; deeper containers are lazy
 * nodes (offset and length only) that `expand` builds when a path goes through them, so a 44 MB
 * ~/.claude.json costs about its own size, not a tree of millions of nodes.
 */
function parseShallow(text: string, file: string, dialect: Dialect): LNode {
  if (text.charCodeAt(0) === 0xfeff)
    throw new CofferError(
      `${file}:1:1: starts with a UTF-8 byte order mark (BOM), which JSON does not allow; left it untouched`,
      1,
      'Save the file as UTF-8 without a BOM (most editors: "UTF-8", not "UTF-8 with BOM"), then run the command again.',
    );
  let b = new ShallowBuilder();
  if (!scanFast(text, dialect, b)) {
    b = new ShallowBuilder();
    const errors = visitInto(text, dialect, b);
    if (errors.length) refuse(text, file, dialect, errors[0]!.offset, printParseErrorCode(errors[0]!.error));
  }
  const root = b.root;
  if (!root) refuse(text, file, dialect, 0, "empty document");
  if (b.dup) {
    const at = lineCol(text, b.dup.offset);
    const first = lineCol(text, b.dup.first);
    throw new CofferError(
      `${file}:${at.line}:${at.col}: duplicate key "${b.dup.key}" (also on line ${first.line}); left it untouched`,
      1,
      "Hosts read only one of the two: remove the one you do not want, then run the command again.",
    );
  }
  delete root.parent;
  return root;
}

function getNodeTypeOf(value: unknown): NodeType {
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
    default:
      return value === null ? "null" : Array.isArray(value) ? "array" : "object";
  }
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

const NONE = Symbol("none");
const BIG_TEXT = 8 * 1024 * 1024;

/** Move every offset of a subtree parsed on its own to where it sits in the whole text. */
function shift(n: LNode, by: number): void {
  const stack: LNode[] = [n];
  while (stack.length) {
    const x = stack.pop()!;
    x.offset += by;
    if (x.colonOffset !== undefined) x.colonOffset += by;
    if (x.children) for (const c of x.children) stack.push(c);
  }
}

/** The value of a node in `text` (a lazy node is parsed from its own text). */
function valueIn(text: string, dialect: Dialect, n: LNode): unknown {
  if (n.lazy) return parse(text.slice(n.offset, n.offset + n.length), [], parseOptions(dialect));
  if (n.type === "object")
    return defineAll(
      (n.children ?? [])
        .filter((p) => p.children?.length === 2)
        .map((p) => [p.children![0]!.value as string, valueIn(text, dialect, p.children![1]!)]),
    );
  if (n.type === "array") return (n.children ?? []).map((c) => valueIn(text, dialect, c));
  return n.value;
}

/** Reading nodes of an edited text before it becomes the document's. */
type View = { valueOf: (n: LNode) => unknown; slice: (n: Node) => string };

/** A plain object from entries, `__proto__` included as an ordinary key. */
function defineAll(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

/**
 * A JSON document being edited: its text and a shallow syntax tree (deep containers built on
 * demand). Every edit is a splice inside one node, checked by re-parsing: the edited node must
 * span the same place, members that were not edited must keep their exact text, and the edited
 * member must hold exactly the intended value; otherwise nothing is written.
 */
export class JsonDoc {
  text: string;
  private tree: LNode;
  private cached: unknown = NONE;

  constructor(
    text: string,
    readonly file: string,
    readonly dialect: Dialect,
  ) {
    this.tree = parseShallow(text, file, dialect);
    this.text = text;
    if (text.length > BIG_TEXT) Bun.gc(true);
  }

  /** The whole document's value, built on demand (the engine asks for it on small files only). */
  get value(): unknown {
    if (this.cached === NONE) this.cached = this.valueOf(this.tree);
    return this.cached;
  }

  /** Members at the top level (no value built). */
  get topLevelCount(): number {
    return this.tree.children?.length ?? 0;
  }

  /** Build the children of a lazy node (parsing only its own text). */
  private expand(n: LNode): void {
    if (!n.lazy) return;
    const sub = parseTree(this.text.slice(n.offset, n.offset + n.length), [], parseOptions(this.dialect)) as
      | LNode
      | undefined;
    if (!sub) throw new Error(`${this.file}: a part of the document no longer parses`);
    shift(sub, n.offset);
    n.children = sub.children ?? [];
    for (const c of n.children) c.parent = n;
    delete n.lazy;
  }

  private nodeAt(path: JsonPath, expand = false): LNode | undefined {
    let node: LNode = this.tree;
    for (const seg of path) {
      this.expand(node);
      const kids: LNode[] = node.children ?? [];
      if (typeof seg === "string") {
        if (node.type !== "object") return undefined;
        const prop = kids.find((p) => p.children?.[0]?.value === seg && p.children.length === 2);
        if (!prop) return undefined;
        node = prop.children![1]!;
      } else {
        if (node.type !== "array" || seg < 0 || seg >= kids.length) return undefined;
        node = kids[seg]!;
      }
    }
    if (expand) this.expand(node);
    return node;
  }

  private valueOf(n: LNode): unknown {
    return valueIn(this.text, this.dialect, n);
  }

  private slice(n: Node): string {
    return this.text.slice(n.offset, n.offset + n.length);
  }

  private bug(): never {
    throw new CofferError(
      `${this.file}: an edit did not give the intended document; nothing was written`,
      1,
      "This is a bug in Coffer; please report it with a copy of the file.",
    );
  }

  /**
   * Apply `splices` (all inside the node at `at`) and check the result: the document parses,
   * the node at `at` spans the same place, and `verify` accepts its new content.
   */
  private update(
    at: JsonPath,
    splices: Splice[],
    verify: (old: LNode, now: LNode, next: View, splices: Splice[]) => boolean,
  ): void {
    const old = this.nodeAt(at, true);
    if (!old) this.bug();
    for (const sp of splices) if (sp.offset < old.offset || sp.offset + sp.length > old.offset + old.length) this.bug();
    const text = applySplices(this.text, splices);
    const delta = text.length - this.text.length;
    // Only the edited node is parsed again: every byte before and after it is unchanged, and a
    // JSON value ends where its own text says, so the rest of the document reads as before.
    let now: LNode;
    try {
      now = parseShallow(text.slice(old.offset, old.offset + old.length + delta), this.file, this.dialect);
    } catch {
      this.bug();
    }
    if (now.offset !== 0 || now.length !== old.length + delta) this.bug();
    shift(now, old.offset);
    const next: View = {
      valueOf: (n) => valueIn(text, this.dialect, n),
      slice: (n) => text.slice(n.offset, n.offset + n.length),
    };
    if (!verify(old, now, next, splices)) this.bug();
    this.graft(old, now, delta);
    this.text = text;
    this.cached = NONE;
    // A big document's pieces of text are garbage now: collect them.
    if (text.length > BIG_TEXT && now.length > BIG_TEXT) Bun.gc(true);
  }

  /** Put `now` where `old` was; what follows moves by `delta` and every ancestor grows by it. */
  private graft(old: LNode, now: LNode, delta: number): void {
    const parent = old.parent;
    if (!parent) {
      this.tree = now;
      return;
    }
    const kids = parent.children!;
    kids[kids.indexOf(old)] = now;
    now.parent = parent;
    let child = now;
    for (let anc: LNode | undefined = parent; anc; anc = anc.parent) {
      anc.length += delta;
      const siblings = anc.children!;
      for (let k = siblings.indexOf(child) + 1; k < siblings.length; k++) shift(siblings[k]!, delta);
      child = anc;
    }
  }

  /**
   * The members of `old` kept with their exact text (no splice touched them, and the new parse
   * found each where the splices moved it, just as long), one inserted at `insertAt` holding
   * exactly `value`, or the one at `removeAt` gone.
   */
  private membersMatch(
    old: LNode,
    now: LNode,
    next: View,
    splices: Splice[],
    change: { insertAt: number; key?: string; value: unknown } | { removeAt: number },
  ): boolean {
    const before = old.children ?? [];
    const after = now.children ?? [];
    const kept = before.filter((_, i) => !("removeAt" in change) || i !== change.removeAt);
    if (after.length !== kept.length + ("insertAt" in change ? 1 : 0)) return false;
    let j = 0;
    for (let i = 0; i < after.length; i++) {
      const n = after[i]!;
      if ("insertAt" in change && i === change.insertAt) {
        const valueNode = old.type === "object" ? n.children?.[1] : n;
        if (old.type === "object" && n.children?.[0]?.value !== change.key) return false;
        if (!valueNode || !deepEqual(next.valueOf(valueNode), change.value)) return false;
        continue;
      }
      const was = kept[j++]!;
      const end = was.offset + was.length;
      let moved = was.offset;
      for (const sp of splices) {
        if (sp.offset < end && sp.offset + sp.length > was.offset) return false;
        if (sp.offset + sp.length <= was.offset) moved += sp.content.length - sp.length;
      }
      if (n.offset !== moved || n.length !== was.length) return false;
    }
    return true;
  }

  get(path: JsonPath): unknown {
    const n = this.nodeAt(path);
    return n ? this.valueOf(n) : undefined;
  }

  has(path: JsonPath): boolean {
    return this.nodeAt(path) !== undefined;
  }

  /** The exact source text of the value at `path` (for restoring it later byte-for-byte). */
  raw(path: JsonPath): string | undefined {
    const n = this.nodeAt(path);
    return n ? this.slice(n) : undefined;
  }

  /**
   * Set the value at `path`: an existing value is replaced in place; a missing one is appended
   * to its parent object (missing parent objects are created). `rawText` replaces the value
   * with exact source text instead of rendering `value`.
   */
  set(path: JsonPath, value: unknown, rawText?: string): void {
    const style = styleOf(this.text);
    const final = rawText !== undefined ? parse(rawText) : value;
    const existing = this.nodeAt(path);
    if (existing) {
      const content =
        rawText ??
        renderJson(value, indentAt(this.text, existing.offset), style.unit, style.eol, isMultilineDoc(this.text));
      this.update(path, [{ offset: existing.offset, length: existing.length, content }], (_, now, next) =>
        deepEqual(next.valueOf(now), final),
      );
      return;
    }
    // Walk up to the deepest existing ancestor; build the rest as one nested value.
    let depth = path.length - 1;
    while (depth > 0 && !this.nodeAt(path.slice(0, depth))) depth--;
    const parentPath = path.slice(0, depth);
    const parent = this.nodeAt(parentPath, true)!;
    if (parent.type !== "object") {
      throw new CofferError(
        `${this.file}: expected an object at "${parentPath.join(".") || "(top level)"}", found ${parent.type}; left it untouched`,
        1,
        "Fix that part of the file by hand, then run the command again.",
      );
    }
    let nested: unknown = value;
    for (let i = path.length - 1; i > depth; i--) nested = { [path[i] as string]: nested };
    const key = path[depth] as string;
    const insertAt = parent.children?.length ?? 0;
    if (rawText !== undefined && depth === path.length - 1) {
      // Insert a placeholder, then swap in the raw text.
      this.update(parentPath, appendSplices(this.text, parent, key, null, style), (old, now, next, splices) =>
        this.membersMatch(old, now, next, splices, { insertAt, key, value: null }),
      );
      const n = this.nodeAt(path)!;
      this.update(path, [{ offset: n.offset, length: n.length, content: rawText }], (_, now, next) =>
        deepEqual(next.valueOf(now), final),
      );
      return;
    }
    this.update(parentPath, appendSplices(this.text, parent, key, nested, style), (old, now, next, splices) =>
      this.membersMatch(old, now, next, splices, { insertAt, key, value: nested }),
    );
  }

  /** Append `value` to the array at `path` (created when missing). */
  append(path: JsonPath, value: unknown): void {
    const arr = this.nodeAt(path, true);
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
    const insertAt = arr.children?.length ?? 0;
    this.update(path, appendSplices(this.text, arr, undefined, value, styleOf(this.text)), (old, now, next, splices) =>
      this.membersMatch(old, now, next, splices, { insertAt, value }),
    );
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
    const parent = this.nodeAt(parentPath, true);
    if (!parent) return;
    const last = path[path.length - 1]!;
    let index: number;
    if (parent.type === "array") {
      if (typeof last !== "number") return;
      index = last;
    } else if (parent.type === "object") {
      index = (parent.children ?? []).findIndex((p) => p.children?.[0]?.value === last);
    } else return;
    if (index < 0 || index >= (parent.children?.length ?? 0)) return;
    this.update(parentPath, removeSplices(this.text, parent, index), (old, now, next, splices) =>
      this.membersMatch(old, now, next, splices, { removeAt: index }),
    );
  }
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
