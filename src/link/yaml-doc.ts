/**
 * A YAML document being edited, with the same face as `JsonDoc` and `TomlDoc` (get / raw / set /
 * merge / remove / label), for one shape only: an entry under a top-level block mapping (Goose's
 * `extensions:` in `config.yaml`). An entry is the block from its `  name:` line to the next line
 * at its indentation or less; Coffer writes its own entries with JSON values (valid YAML), keeps
 * every other byte, and re-parses each edit: the text must parse to exactly the document before
 * the edit with the intended change, or nothing is written. Anything else (flow mappings, deeper
 * paths, anchors around the entry) is refused with the file left as it was.
 */
import { CofferError } from "../lib/errors";
import { deepEqual, getAt } from "./json-edit";

type Table = Record<string, unknown>;

const isTable = (v: unknown): v is Table => !!v && typeof v === "object" && !Array.isArray(v);

function parseOrThrow(text: string, file: string, ours: boolean): Table {
  try {
    const v = text.trim() === "" ? {} : Bun.YAML.parse(text);
    if (v === null || v === undefined) return {};
    if (!isTable(v)) throw new Error("the top level is not a mapping");
    return v;
  } catch (err) {
    const what = (err as Error).message.split("\n")[0];
    if (ours)
      throw new CofferError(
        `${file}: an edit did not give valid YAML (${what}); nothing was written`,
        1,
        "This is a bug in Coffer; please report it with a copy of the file.",
      );
    throw new CofferError(
      `${file}: not valid YAML (${what}); left it untouched`,
      1,
      "Fix the file by hand (or move it away), then run the command again.",
    );
  }
}

const TOP_KEY = (key: string) => new RegExp(`^${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:[ \\t]*(#.*)?\\r?$`);
const blank = (line: string) => /^\s*(#.*)?$/.test(line);
const indentOf = (line: string) => /^[ ]*/.exec(line)![0].length;

/** `key: <JSON>` lines of an entry, JSON being valid YAML (flow collections, double-quoted strings). */
function render(name: string, value: Table, indent: number): string[] {
  const pad = " ".repeat(indent);
  const key = /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
  return [`${pad}${key}:`, ...Object.entries(value).map(([k, v]) => `${pad}  ${k}: ${JSON.stringify(v)}`)];
}

export class YamlDoc {
  text: string;
  value: Table;

  constructor(
    text: string,
    readonly file: string,
  ) {
    this.value = parseOrThrow(text, file, false);
    this.text = text;
  }

  private lines(): string[] {
    return this.text.split("\n");
  }

  /** The `top:` line, its children's indentation and the end of its block. */
  private parent(top: string): { at: number; indent: number; end: number } | undefined {
    const lines = this.lines();
    const at = lines.findIndex((l) => TOP_KEY(top).test(l));
    if (at < 0) return undefined;
    let end = at + 1;
    let indent = 0;
    while (end < lines.length && (blank(lines[end]!) || indentOf(lines[end]!) > 0)) {
      if (!blank(lines[end]!) && !indent) indent = indentOf(lines[end]!);
      end++;
    }
    while (end > at + 1 && blank(lines[end - 1]!)) end--;
    return { at, indent: indent || 2, end };
  }

  /** Lines [start, end) of the entry `name` under `top`. */
  private entry(top: string, name: string): { start: number; end: number } | undefined {
    const p = this.parent(top);
    if (!p) return undefined;
    const lines = this.lines();
    const head = new RegExp(`^ {${p.indent}}(?:${name}|"${name}"|'${name}'):[ \\t]*(#.*)?\\r?$`);
    for (let i = p.at + 1; i < p.end; i++) {
      if (!head.test(lines[i]!)) continue;
      let end = i + 1;
      while (end < p.end && (blank(lines[end]!) || indentOf(lines[end]!) > p.indent)) end++;
      while (end > i + 1 && blank(lines[end - 1]!)) end--;
      return { start: i, end };
    }
    return undefined;
  }

  private check(path: string[]): [string, string] {
    if (path.length !== 2)
      throw new CofferError(
        `${this.file}: Coffer edits only a top-level mapping's entries`,
        1,
        "This is a bug in Coffer.",
      );
    const parent = this.value[path[0]!];
    if (parent !== undefined && parent !== null && !isTable(parent))
      throw new CofferError(
        `${this.file}: "${path[0]}" is not a mapping; left the file untouched`,
        1,
        `Fix "${path[0]}" by hand, then run the command again.`,
      );
    return [path[0]!, path[1]!];
  }

  /** Apply `edited` if it parses to the current document with `mutate` applied. */
  private update(edited: string, mutate: (root: Table) => void): void {
    const parsed = parseOrThrow(edited, this.file, true);
    const expected = structuredClone(this.value);
    mutate(expected);
    const norm = (t: Table) => Object.fromEntries(Object.entries(t).filter(([, v]) => v !== null || false));
    if (!deepEqual(norm(parsed), norm(expected))) {
      throw new CofferError(
        `${this.file}: an edit did not give the intended document (a form of YAML Coffer does not edit); nothing was written`,
        1,
        "Add the entry by hand, or tell Coffer's maintainers which form the file uses.",
      );
    }
    this.text = edited;
    this.value = parsed;
  }

  get(path: string[]): unknown {
    // `extensions:` with nothing under it parses to null: an empty mapping, for the engine.
    if (path.length === 1 && this.value[path[0]!] === null) return {};
    return getAt(this.value, path);
  }

  /** The exact text of an entry's block, for restoring it byte for byte. */
  raw(path: string[]): string | undefined {
    if (path.length !== 2) return undefined;
    const e = this.entry(path[0]!, path[1]!);
    return e ? this.lines().slice(e.start, e.end).join("\n") : undefined;
  }

  set(path: string[], value: unknown, rawText?: string): void {
    const [top, name] = this.check(path);
    if (rawText === undefined && !isTable(value))
      throw new CofferError(`${this.file}: Coffer writes only mappings here`, 1, "This is a bug in Coffer.");
    const lines = this.lines();
    const existing = this.entry(top, name);
    const p = this.parent(top);
    const indent = p?.indent ?? 2;
    const block = rawText !== undefined ? rawText.split("\n") : render(name, value as Table, indent);
    let out: string[];
    if (existing) out = [...lines.slice(0, existing.start), ...block, ...lines.slice(existing.end)];
    else if (p) out = [...lines.slice(0, p.end), ...block, ...lines.slice(p.end)];
    else {
      const body = this.text === "" || this.text.endsWith("\n") ? this.text : `${this.text}\n`;
      out = `${body}${top}:\n${block.join("\n")}\n`.split("\n");
    }
    const parsedValue =
      rawText !== undefined ? (parseOrThrow(`${top}:\n${rawText}\n`, this.file, true)[top] as Table)?.[name] : value;
    this.update(out.join("\n"), (root) => {
      const parent = isTable(root[top]) ? (root[top] as Table) : {};
      parent[name] = structuredClone(parsedValue);
      root[top] = parent;
    });
  }

  merge(path: string[], entries: Record<string, unknown>): void {
    const current = this.get(path);
    this.set(path, { ...(isTable(current) ? current : {}), ...entries });
  }

  /** Remove an entry (with `dropEmptyParent`, a `top:` it leaves empty goes too), or an empty `top:`. */
  remove(path: string[], opts: { dropEmptyParent?: boolean } = {}): void {
    if (path.length === 1) {
      const p = this.parent(path[0]!);
      if (!p || p.end > p.at + 1) return;
      const lines = this.lines();
      this.update([...lines.slice(0, p.at), ...lines.slice(p.at + 1)].join("\n"), (root) => {
        delete root[path[0]!];
      });
      return;
    }
    const [top, name] = this.check(path);
    const e = this.entry(top, name);
    if (!e) return;
    const lines = this.lines();
    let out = [...lines.slice(0, e.start), ...lines.slice(e.end)];
    const parent = this.value[top];
    const emptied = isTable(parent) && Object.keys(parent).length === 1;
    if (opts.dropEmptyParent && emptied) {
      const at = out.findIndex((l) => TOP_KEY(top).test(l));
      if (at >= 0) out = [...out.slice(0, at), ...out.slice(at + 1)];
    }
    this.update(out.join("\n"), (root) => {
      const p = root[top] as Table;
      delete p[name];
      if (opts.dropEmptyParent && emptied) delete root[top];
      else if (!Object.keys(p).length) root[top] = null;
    });
  }

  label(path: string[]): string {
    return path.join(".");
  }
}
