/**
 * Coffer's entries inside a host's hooks map: the root `hooks` key (most hosts), or one named
 * entry of the file (Antigravity's `{"coffer": {...}}`). Grouped hosts (Claude, Codex, Gemini)
 * nest `{matcher, hooks: [entry]}` per event; flat hosts (Cursor, Windsurf) list entries
 * directly; `mixed` (Antigravity) has both side by side, each item read as what it is (a group
 * holds a `hooks` list). Coffer's entries are found by their command (`…/coffer hook …`) on
 * every event, so a re-link also clears events a newer Coffer no longer installs, and everything
 * else is left alone.
 */
import { CofferError } from "../lib/errors";
import { isManagedHookCommand } from "./command";
import { deepEqual, type JsonDoc, type JsonPath } from "./json-edit";

export type Layout = "grouped" | "flat" | "mixed";

/** Where the map of events sits in the file: `["hooks"]`, or a named entry (`["coffer"]`). */
export type HooksRoot = string[];

const HOOKS: HooksRoot = ["hooks"];

/** Where Coffer's entries sit: one path per managed hook entry, grouped by event. */
export type Managed = { event: string; path: JsonPath; command: string; groupPath?: JsonPath; groupSize?: number };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

function hooksMap(doc: JsonDoc, root: HooksRoot): Record<string, unknown> | undefined {
  const hooks = doc.get(root);
  if (hooks === undefined) return undefined;
  if (!isObject(hooks)) {
    const name = root.join(".");
    throw new CofferError(
      `${doc.file}: "${name}" is not an object; left the file untouched`,
      1,
      `Fix the "${name}" key by hand, then run the command again.`,
    );
  }
  return hooks;
}

/** Every managed entry in the file, in document order. */
export function findManaged(doc: JsonDoc, layout: Layout, root: HooksRoot = HOOKS): Managed[] {
  const hooks = hooksMap(doc, root);
  if (!hooks) return [];
  const out: Managed[] = [];
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => {
      const group = isObject(item) && Array.isArray(item.hooks);
      if (layout === "flat" || (layout === "mixed" && !group)) {
        if (isObject(item) && isManagedHookCommand(item.command))
          out.push({ event, path: [...root, event, i], command: item.command });
        return;
      }
      if (!group) return;
      const inner = item.hooks as unknown[];
      inner.forEach((h, j) => {
        if (isObject(h) && isManagedHookCommand(h.command)) {
          out.push({
            event,
            path: [...root, event, i, "hooks", j],
            command: h.command,
            groupPath: [...root, event, i],
            groupSize: inner.length,
          });
        }
      });
    });
  }
  return out;
}

function checkEventList(doc: JsonDoc, root: HooksRoot, event: string): void {
  const list = doc.get([...root, event]);
  if (list !== undefined && !Array.isArray(list)) {
    const name = [...root, event].join(".");
    throw new CofferError(
      `${doc.file}: "${name}" is not a list; left the file untouched`,
      1,
      `Fix "${name}" by hand, then run the command again.`,
    );
  }
}

/** The items Coffer's entries on one event make up, when each is whole (a flat entry, or a group of Coffer's alone). */
function wholeItems(doc: JsonDoc, managed: Managed[]): unknown[] | undefined {
  const out: unknown[] = [];
  for (const m of managed) {
    if (!m.groupPath) out.push(doc.get(m.path));
    else if (m.groupSize === 1) out.push(doc.get(m.groupPath));
    else return undefined;
  }
  return out;
}

export type SyncResult = { added: string[]; removed: string[]; kept: string[] };

/**
 * A container (`hooks`, `hooks.<Event>`, `mcpServers`) that Coffer's removal leaves empty is
 * removed too — unless it was already there, empty, when Coffer first added to it (`noteEmpty`
 * remembers that), so unlink gives back exactly what the user wrote.
 */
export type Containers = { noteEmpty: (path: JsonPath) => void; mayDrop: (path: JsonPath) => boolean };

const ALWAYS: Containers = { noteEmpty: () => {}, mayDrop: () => true };

const isEmpty = (v: unknown) => (Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0);

/**
 * Make Coffer's entries exactly `desired` (event -> the groups or entries to install, in order).
 * An event already holding exactly the desired items is left byte-identical; otherwise Coffer's
 * entries on it are removed (with groups and events they leave empty) and the desired ones are
 * appended. `root` is where the map of events sits (`["hooks"]`, or a named entry).
 */
export function syncManagedHooks(
  doc: JsonDoc,
  layout: Layout,
  desired: Map<string, Record<string, unknown>[]>,
  containers: Containers = ALWAYS,
  root: HooksRoot = HOOKS,
): SyncResult {
  const result: SyncResult = { added: [], removed: [], kept: [] };
  const before = hooksMap(doc, root);
  if (before && isEmpty(before) && desired.size) containers.noteEmpty(root);
  const events = new Set([...Object.keys(before ?? {}), ...desired.keys()]);
  for (const event of events) {
    const at = [...root, event];
    // Keys that are not event lists (Gemini's `"enabled": true`, ...) are not Coffer's business.
    if (desired.has(event)) checkEventList(doc, root, event);
    else if (!Array.isArray(doc.get(at))) continue;
    const managed = findManaged(doc, layout, root).filter((m) => m.event === event);
    const want = desired.get(event);
    if (want && isEmpty(doc.get(at))) containers.noteEmpty(at);
    if (want && managed.length && deepEqual(wholeItems(doc, managed), want)) {
      result.kept.push(event);
      continue;
    }
    if (managed.length) {
      removeEntries(doc, managed, root.length);
      result.removed.push(event);
    }
    const list = doc.get(at);
    if (!want && Array.isArray(list) && list.length === 0 && managed.length && containers.mayDrop(at)) doc.remove(at);
    if (want) {
      for (const item of want) doc.append(at, item);
      result.added.push(event);
    }
  }
  const after = doc.get(root);
  if (isObject(after) && Object.keys(after).length === 0 && result.removed.length && containers.mayDrop(root))
    doc.remove(root);
  return result;
}

/**
 * Remove the given managed entries (and groups they leave empty), last first so paths stay
 * valid. `depth`: the root's length, so an item's index in its event list is `path[depth + 1]`.
 */
function removeEntries(doc: JsonDoc, managed: Managed[], depth: number): void {
  // Per item: a flat entry is its own item; a group goes whole when every hook in it is Coffer's.
  const byItem = new Map<string, Managed[]>();
  for (const m of managed) {
    const key = JSON.stringify(m.groupPath ?? m.path);
    byItem.set(key, [...(byItem.get(key) ?? []), m]);
  }
  const items = [...byItem.values()].sort(
    (a, b) =>
      ((b[0]!.groupPath ?? b[0]!.path)[depth + 1] as number) - ((a[0]!.groupPath ?? a[0]!.path)[depth + 1] as number),
  );
  for (const ms of items) {
    const first = ms[0]!;
    if (!first.groupPath) doc.remove(first.path);
    else if (ms.length === first.groupSize) doc.remove(first.groupPath);
    else for (const m of [...ms].reverse()) doc.remove(m.path);
  }
}
