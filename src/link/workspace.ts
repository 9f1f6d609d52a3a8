/**
 * The files one link/unlink plan touches: each read once (JSON or TOML as a document, a plugin
 * as plain text), edited in memory, then turned into the list of changes to show or write.
 * Also the link state's bookkeeping that goes with files (files Coffer created, containers that
 * were empty before Coffer added to them) and saving/restoring a value exactly.
 */
import type { ConfigFile, JsonFile } from "../hosts/link";
import { type FileChange, readTextOrNull, tilde } from "./files";
import type { Containers } from "./hooks-json";
import { deepEqual, JsonDoc, type JsonPath, newJsonText } from "./json-edit";
import type { LinkState, Saved } from "./state";
import { TomlDoc } from "./toml-doc";
import { YamlDoc } from "./yaml-doc";

export type Doc = JsonDoc | TomlDoc | YamlDoc;

export type Slot<D extends Doc = Doc> = {
  path: string;
  before: string | null;
  doc: D;
  /** True when Coffer writes the file from scratch (missing, or JSON with nothing in it). */
  fresh: boolean;
  /** The document counts as empty (nothing but what Coffer would create it with). */
  empty: () => boolean;
  /** The text of a file Coffer creates. */
  freshText: () => string;
  notes: string[];
  audit: FileChange["audit"];
};

type TextSlot = {
  path: string;
  before: string | null;
  text: string | null;
  notes: string[];
  audit: FileChange["audit"];
};

/** The files one plan touches, each read once; edits accumulate in memory. */
export class Workspace {
  /** By path, in the order first touched (the order changes are shown and written in). */
  private files = new Map<string, Slot | TextSlot>();

  constructor(private state: LinkState) {}

  /** Container bookkeeping for one file (see `Containers`). */
  containers(file: string): Containers {
    const state = this.state;
    const list = () => (state.containers[file] ??= []);
    const drop = (key: string) => {
      state.containers[file] = list().filter((k) => k !== key);
      if (!state.containers[file]!.length) delete state.containers[file];
    };
    return {
      noteEmpty: (path: JsonPath) => {
        const key = JSON.stringify(path);
        if (!list().includes(key)) list().push(key);
      },
      mayDrop: (path: JsonPath) => {
        const key = JSON.stringify(path);
        const keep = (state.containers[file] ?? []).includes(key);
        if (keep) drop(key);
        return !keep;
      },
    };
  }

  /** The document in `file` (JSON or TOML by its dialect); `check` vets every edited TOML text. */
  doc(file: ConfigFile, opts: { skeleton?: Record<string, unknown>; check?: (text: string) => void } = {}): Slot {
    const hit = this.files.get(file.path);
    if (hit && "doc" in hit) return hit;
    const before = readTextOrNull(file.path);
    const slot =
      file.dialect === "toml"
        ? tomlSlot(file.path, before, opts.check)
        : file.dialect === "yaml"
          ? yamlSlot(file.path, before)
          : jsonSlot(file, before, opts.skeleton);
    this.files.set(file.path, slot);
    return slot;
  }

  json(file: ConfigFile, skeleton?: Record<string, unknown>): Slot<JsonDoc> {
    const slot = this.doc(file, { skeleton });
    if (!(slot.doc instanceof JsonDoc)) throw new Error(`${file.path} is not a JSON document`);
    return slot as Slot<JsonDoc>;
  }

  text(path: string): TextSlot {
    const hit = this.files.get(path);
    if (hit && !("doc" in hit)) return hit;
    const before = readTextOrNull(path);
    const slot = { path, before, text: before, notes: [], audit: [] };
    this.files.set(path, slot);
    return slot;
  }

  changes(): FileChange[] {
    const out: FileChange[] = [];
    const state = this.state;
    for (const s of this.files.values()) {
      if (!("doc" in s)) {
        out.push({ path: s.path, before: s.before, after: s.text, notes: s.notes, audit: s.audit });
        continue;
      }
      const empty = s.empty();
      let after: string | null;
      if (s.fresh) {
        // A file Coffer creates is rendered fresh (never created just to hold nothing).
        after = empty ? s.before : s.freshText();
        if (after !== s.before && s.before === null) state.created[s.path] = true;
      } else if (empty && state.created[s.path] && s.doc.text !== s.before) {
        // A file Coffer created and emptied again goes away.
        after = null;
      } else after = s.doc.text;
      if (after === null || empty) delete state.created[s.path];
      if (after === null) delete state.containers[s.path];
      out.push({ path: s.path, before: s.before, after, notes: s.notes, audit: s.audit });
    }
    return out;
  }
}

function jsonSlot(file: ConfigFile, before: string | null, skeleton: Record<string, unknown> = {}): Slot {
  const fresh = before === null || before.trim() === "";
  const dialect = file.dialect === "toml" || file.dialect === "yaml" ? "json" : file.dialect;
  const doc = new JsonDoc(fresh ? newJsonText(skeleton) : before!, tilde(file.path), dialect);
  return {
    path: file.path,
    before,
    doc,
    fresh,
    // Counted first: a big document is never built as a value just to learn it is not empty.
    empty: () =>
      doc.topLevelCount <= Object.keys(skeleton).length && (deepEqual(doc.value, skeleton) || deepEqual(doc.value, {})),
    freshText: () => newJsonText(doc.value),
    notes: [],
    audit: [],
  };
}

function tomlSlot(path: string, before: string | null, check?: (text: string) => void): Slot {
  const doc = new TomlDoc(before ?? "", tilde(path), check);
  return {
    path,
    before,
    doc,
    fresh: before === null,
    empty: () => doc.text === "",
    freshText: () => doc.text,
    notes: [],
    audit: [],
  };
}

function yamlSlot(path: string, before: string | null): Slot {
  const doc = new YamlDoc(before ?? "", tilde(path));
  return {
    path,
    before,
    doc,
    fresh: before === null,
    empty: () => doc.text.trim() === "",
    freshText: () => doc.text,
    notes: [],
    audit: [],
  };
}

/** A config file as a document, read-only use (doctor); undefined when it is missing or blank. */
export function readDoc(file: JsonFile): JsonDoc | undefined;
export function readDoc(file: ConfigFile): Doc | undefined;
export function readDoc(file: ConfigFile): Doc | undefined {
  const text = readTextOrNull(file.path);
  if (text === null || text.trim() === "") return undefined;
  if (file.dialect === "toml") return new TomlDoc(text, tilde(file.path));
  if (file.dialect === "yaml") return new YamlDoc(text, tilde(file.path));
  return new JsonDoc(text, tilde(file.path), file.dialect);
}

/**
 * A value before Coffer changes it: its exact text, or its value (a TOML table written under
 * its own header has no single text), or absent (and whether its table was).
 */
export function snapshot(doc: Doc, path: string[]): Saved {
  const raw = doc.raw(path);
  if (raw !== undefined) return { raw };
  const value = doc.get(path);
  if (value !== undefined) return { value: structuredClone(value) };
  return path.length > 1 ? { absent: true, tableAbsent: doc.get(path.slice(0, -1)) === undefined } : { absent: true };
}

/** Put back what `snapshot` saw; a table that was absent goes again when the key was all it held. */
export function restore(doc: Doc, path: string[], prev: Saved): void {
  if ("raw" in prev) doc.set(path, undefined, prev.raw);
  else if ("value" in prev) doc.set(path, prev.value);
  else doc.remove(path, { dropEmptyParent: prev.tableAbsent === true });
}

export const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
