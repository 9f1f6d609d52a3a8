/**
 * A TOML document being edited, with the same face as `JsonDoc`: get / raw / set / merge /
 * remove. The line-level editor (`lib/toml-edit.ts`) keeps every other byte as it was; each
 * edit is then checked by re-parsing: the text must parse to exactly the document before the
 * edit with the intended change (empty tables aside), or nothing is written.
 */
import { parse as parseToml } from "smol-toml";
import { CofferError } from "../lib/errors";
import { deleteTomlKey, deleteTomlTable, getTomlRaw, setTomlKey, setTomlTable } from "../lib/toml-edit";
import { deepEqual, getAt } from "./json-edit";

type Table = Record<string, unknown>;

const isTable = (v: unknown): v is Table => !!v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);

function parseOrThrow(text: string, file: string, ours: boolean): Table {
  try {
    return parseToml(text) as Table;
  } catch (err) {
    const e = err as { line?: number; message: string };
    const what = e.message.split("\n")[0];
    if (ours)
      throw new CofferError(
        `${file}: an edit did not give valid TOML (${what}); nothing was written`,
        1,
        "This is a bug in Coffer; please report it with a copy of the file.",
      );
    throw new CofferError(
      `${file}${e.line ? `:${e.line}` : ""}: not valid TOML (${what}); left it untouched`,
      1,
      "Fix that line by hand (or move the file away), then run the command again.",
    );
  }
}

/** A table whose keys are all empty tables counts as absent (the line editor may leave or drop such headers). */
function pruneEmpty(v: unknown): unknown {
  if (!isTable(v)) return v;
  const out: Table = {};
  for (const [k, x] of Object.entries(v)) {
    const p = pruneEmpty(x);
    if (isTable(p) && Object.keys(p).length === 0) continue;
    out[k] = p;
  }
  return out;
}

function setIn(root: Table, path: string[], mutate: (parent: Table, key: string) => void): void {
  let cur = root;
  for (const seg of path.slice(0, -1)) {
    if (!isTable(cur[seg])) cur[seg] = {};
    cur = cur[seg] as Table;
  }
  mutate(cur, path[path.length - 1]!);
}

export class TomlDoc {
  text: string;
  value: Table;

  /**
   * `file` names the file in messages; `check` is run on every edited text (Coffer's own
   * config.toml: the result must still be a valid Coffer config).
   */
  constructor(
    text: string,
    readonly file: string,
    private readonly check: (text: string) => void = () => {},
  ) {
    this.value = parseOrThrow(text, file, false);
    this.text = text;
  }

  /** Apply `edited` if it parses to the current document with `mutate` applied. */
  private update(edited: string, mutate: (root: Table) => void): void {
    const parsed = parseOrThrow(edited, this.file, true);
    const expected = structuredClone(this.value);
    mutate(expected);
    if (!deepEqual(pruneEmpty(parsed), pruneEmpty(expected))) {
      throw new CofferError(
        `${this.file}: an edit did not give the intended document; nothing was written`,
        1,
        "This is a bug in Coffer; please report it with a copy of the file.",
      );
    }
    if (edited !== this.text) this.check(edited);
    this.text = edited;
    this.value = parsed;
  }

  get(path: string[]): unknown {
    return getAt(this.value, path);
  }

  /** The exact source text of a key's value (comment stripped), for restoring it byte-for-byte. */
  raw(path: string[]): string | undefined {
    return getTomlRaw(this.text, path);
  }

  /**
   * Set the value at `path`. A key keeps its line (and trailing comment); a new key goes after
   * the last key of its table, a new table at the end. `rawText` writes exact value text.
   */
  set(path: string[], value: unknown, rawText?: string): void {
    if (rawText === undefined && isTable(value)) {
      if (this.get(path) !== undefined) this.remove(path);
      this.merge(path, value);
      return;
    }
    const final = rawText !== undefined ? (parseToml(`v = ${rawText}`) as { v: unknown }).v : value;
    this.update(setTomlKey(this.text, path, value, rawText), (root) =>
      setIn(root, path, (parent, key) => {
        parent[key] = structuredClone(final);
      }),
    );
  }

  /** Make the table at `path` hold `entries`, keeping its other keys (written inline or as `[table]`). */
  merge(path: string[], entries: Record<string, unknown>): void {
    const current = this.get(path);
    const existing = isTable(current) ? current : {};
    this.update(setTomlTable(this.text, path, entries, existing), (root) =>
      setIn(root, path, (parent, key) => {
        parent[key] = { ...(isTable(parent[key]) ? parent[key] : {}), ...structuredClone(entries) };
      }),
    );
  }

  /**
   * Remove a key, or a whole table (with its sub-tables). With `dropEmptyParent`, a table the
   * key leaves empty (no keys, comments or sub-tables) loses its header too.
   */
  remove(path: string[], opts: { dropEmptyParent?: boolean } = {}): void {
    const edited = isTable(this.get(path))
      ? deleteTomlTable(this.text, path)
      : deleteTomlKey(this.text, path, opts.dropEmptyParent === true);
    this.update(edited, (root) =>
      setIn(root, path, (parent, key) => {
        delete parent[key];
      }),
    );
  }

  /** How messages name the entry at `path`: `[table.key]`. */
  label(path: string[]): string {
    return `[${path.join(".")}]`;
  }
}
