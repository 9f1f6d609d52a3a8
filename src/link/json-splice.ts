/**
 * Where a member's text goes in a JSON/JSONC document: the file's own layout (line ends,
 * indentation, one line or many) and the splices that append or remove one member so that every
 * other byte stays as written. Appending and then removing a member gives back the original text.
 */
import type { Node } from "jsonc-parser";

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
export function indentAt(text: string, offset: number): string {
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

export type Splice = { offset: number; length: number; content: string };

export function applySplices(text: string, splices: Splice[]): string {
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

export function styleOf(text: string): Style {
  return { unit: detectIndentUnit(text), eol: detectEol(text) };
}

function memberText(key: string | undefined, value: unknown, indent: string, style: Style, multiline: boolean): string {
  const v = renderJson(value, indent, style.unit, style.eol, multiline);
  return key === undefined ? v : `${JSON.stringify(key)}: ${v}`;
}

/** Splices that append a member (object property or array element) at the end of `container`. */
export function appendSplices(
  text: string,
  container: Node,
  key: string | undefined,
  value: unknown,
  style: Style,
): Splice[] {
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

export function isMultilineDoc(text: string): boolean {
  return text.trim().includes("\n");
}

/** Splices that remove child `index` of `container` (the inverse of appending it). */
export function removeSplices(text: string, container: Node, index: number): Splice[] {
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
