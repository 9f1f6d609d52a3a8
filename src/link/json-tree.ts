/**
 * A JSON/JSONC document's shallow syntax tree: parsed as the host would (jsonc-parser's rules,
 * the fast scanner first), refused with file, line and column when it is not valid, and read
 * back as values (a lazy node is parsed from its own text).
 */
import { type ParseError, parse, printParseErrorCode, visit } from "jsonc-parser";
import { CofferError } from "../lib/errors";
import { type Dialect, dialectOptions as parseOptions } from "../lib/jsonc";
import { type LNode, ShallowBuilder, scanFast } from "./json-scan";

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

function refuse(text: string, file: string, dialect: Dialect, offset: number, what: string): never {
  const at = lineCol(text, offset);
  throw new CofferError(
    `${file}:${at.line}:${at.col}: not valid ${DIALECT_NAME[dialect]} (${what}); left it untouched`,
    1,
    "Fix that line by hand (or move the file away), then run the command again.",
  );
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
 * unambiguously). The tree is built only `EAGER_DEPTH` (json-scan.ts) levels deep; deeper containers are lazy
 * nodes (offset and length only) that `expand` builds when a path goes through them, so a 44 MB
 * ~/.claude.json costs about its own size, not a tree of millions of nodes.
 */
export function parseShallow(text: string, file: string, dialect: Dialect): LNode {
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

/** Move every offset of a subtree parsed on its own to where it sits in the whole text. */
export function shift(n: LNode, by: number): void {
  const stack: LNode[] = [n];
  while (stack.length) {
    const x = stack.pop()!;
    x.offset += by;
    if (x.colonOffset !== undefined) x.colonOffset += by;
    if (x.children) for (const c of x.children) stack.push(c);
  }
}

/** The value of a node in `text` (a lazy node is parsed from its own text). */
export function valueIn(text: string, dialect: Dialect, n: LNode): unknown {
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

/** A plain object from entries, `__proto__` included as an ordinary key. */
function defineAll(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}
