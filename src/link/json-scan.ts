/**
 * From parse events to a JSON document's shallow syntax tree (`ShallowBuilder`), and the fast
 * scanner that feeds it without jsonc-parser for plain documents (`scanFast`). The tree is read
 * and checked in `json-tree.ts`; edits are made in `json-edit.ts`.
 */
import type { NodeType } from "jsonc-parser";
import type { Dialect } from "../lib/jsonc";

/** A syntax-tree node (jsonc-parser's shape, mutable); `lazy`: a container whose children are not built yet. */
export type LNode = {
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

/**
 * Builds the shallow tree from parse events (jsonc-parser's visitor, or `scanFast`): containers
 * deeper than `EAGER_DEPTH` become lazy nodes; keys are checked for duplicates at every depth.
 */
export class ShallowBuilder {
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
export function scanFast(text: string, dialect: Dialect, b: ShallowBuilder): boolean {
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
