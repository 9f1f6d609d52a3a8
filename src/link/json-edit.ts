/**
 * Format-preserving edits of JSON / JSONC text. The syntax tree (with offsets) comes from
 * `json-tree.ts` (built by `json-scan.ts`); the edits here are small splices (`json-splice.ts`)
 * so that every byte outside the changed member stays as the user wrote it, each checked by
 * parsing the edited node again. Insertion and removal are exact inverses: appending a member
 * and removing it again gives back the original bytes.
 */
import { type Node, parse, parseTree } from "jsonc-parser";
import { CofferError } from "../lib/errors";
import { type Dialect, dialectOptions as parseOptions } from "../lib/jsonc";
import type { LNode } from "./json-scan";
import {
  appendSplices,
  applySplices,
  indentAt,
  isMultilineDoc,
  removeSplices,
  renderJson,
  type Splice,
  styleOf,
} from "./json-splice";
import { parseShallow, shift, valueIn } from "./json-tree";

export type JsonPath = (string | number)[];

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

/** Reading nodes of an edited text before it becomes the document's. */
type View = { valueOf: (n: LNode) => unknown; slice: (n: Node) => string };

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
