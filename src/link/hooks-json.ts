/**
 * Coffer's entries inside a host's `hooks` map. Grouped hosts (Claude, Codex, Gemini) nest
 * `{matcher, hooks: [entry]}` per event; flat hosts (Cursor, Windsurf) list entries directly.
 * Coffer's entries are found by their command (`…/coffer hook …`) on every event, so a re-link
 * also clears events a newer Coffer no longer installs, and everything else is left alone.
 */
import { CofferError } from "../lib/errors";
import { isManagedHookCommand } from "./command";
import { deepEqual, type JsonDoc, type JsonPath } from "./json-edit";

export type Layout = "grouped" | "flat";

/** Where Coffer's entries sit: one path per managed hook entry, grouped by event. */
export type Managed = { event: string; path: JsonPath; command: string; groupPath?: JsonPath; groupSize?: number };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

function hooksMap(doc: JsonDoc): Record<string, unknown> | undefined {
  const hooks = doc.get(["hooks"]);
  if (hooks === undefined) return undefined;
  if (!isObject(hooks)) {
    throw new CofferError(
      `${doc.file}: "hooks" is not an object; left the file untouched`,
      1,
      'Fix the "hooks" key by hand, then run the command again.',
    );
  }
  return hooks;
}

/** Every managed entry in the file, in document order. */
export function findManaged(doc: JsonDoc, layout: Layout): Managed[] {
  const hooks = hooksMap(doc);
  if (!hooks) return [];
  const out: Managed[] = [];
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => {
      if (layout === "flat") {
        if (isObject(item) && isManagedHookCommand(item.command))
          out.push({ event, path: ["hooks", event, i], command: item.command });
        return;
      }
      if (!isObject(item) || !Array.isArray(item.hooks)) return;
      const inner = item.hooks as unknown[];
      inner.forEach((h, j) => {
        if (isObject(h) && isManagedHookCommand(h.command)) {
          out.push({
            event,
            path: ["hooks", event, i, "hooks", j],
            command: h.command,
            groupPath: ["hooks", event, i],
            groupSize: inner.length,
          });
        }
      });
    });
  }
  return out;
}

function checkEventList(doc: JsonDoc, event: string): void {
  const list = doc.get(["hooks", event]);
  if (list !== undefined && !Array.isArray(list)) {
    throw new CofferError(
      `${doc.file}: "hooks.${event}" is not a list; left the file untouched`,
      1,
      `Fix "hooks.${event}" by hand, then run the command again.`,
    );
  }
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
 * Make Coffer's entries exactly `desired` (event -> the group or entry to install). An event
 * already holding exactly the desired entry is left byte-identical; otherwise Coffer's entries
 * on it are removed (with groups and events they leave empty) and the desired one is appended.
 */
export function syncManagedHooks(
  doc: JsonDoc,
  layout: Layout,
  desired: Map<string, Record<string, unknown>>,
  containers: Containers = ALWAYS,
): SyncResult {
  const result: SyncResult = { added: [], removed: [], kept: [] };
  const before = hooksMap(doc);
  if (before && isEmpty(before) && desired.size) containers.noteEmpty(["hooks"]);
  const events = new Set([...Object.keys(before ?? {}), ...desired.keys()]);
  for (const event of events) {
    // Keys that are not event lists (Gemini's `"enabled": true`, ...) are not Coffer's business.
    if (desired.has(event)) checkEventList(doc, event);
    else if (!Array.isArray(doc.get(["hooks", event]))) continue;
    const managed = findManaged(doc, layout).filter((m) => m.event === event);
    const want = desired.get(event);
    if (want && isEmpty(doc.get(["hooks", event]))) containers.noteEmpty(["hooks", event]);
    if (want && managed.length === 1) {
      const m = managed[0]!;
      const current = layout === "flat" ? doc.get(m.path) : m.groupSize === 1 ? doc.get(m.groupPath!) : undefined;
      if (deepEqual(current, want)) {
        result.kept.push(event);
        continue;
      }
    }
    if (managed.length) {
      removeEntries(doc, layout, managed);
      result.removed.push(event);
    }
    const list = doc.get(["hooks", event]);
    if (!want && Array.isArray(list) && list.length === 0 && managed.length && containers.mayDrop(["hooks", event]))
      doc.remove(["hooks", event]);
    if (want) {
      doc.append(["hooks", event], want);
      result.added.push(event);
    }
  }
  const after = doc.get(["hooks"]);
  if (isObject(after) && Object.keys(after).length === 0 && result.removed.length && containers.mayDrop(["hooks"]))
    doc.remove(["hooks"]);
  return result;
}

/** Remove the given managed entries (and groups they leave empty), last first so paths stay valid. */
function removeEntries(doc: JsonDoc, layout: Layout, managed: Managed[]): void {
  if (layout === "flat") {
    for (const m of [...managed].reverse()) doc.remove(m.path);
    return;
  }
  // Per group: drop the whole group when every hook in it is Coffer's.
  const byGroup = new Map<string, Managed[]>();
  for (const m of managed) {
    const key = JSON.stringify(m.groupPath);
    byGroup.set(key, [...(byGroup.get(key) ?? []), m]);
  }
  const groups = [...byGroup.values()].sort(
    (a, b) => (b[0]!.groupPath![2] as number) - (a[0]!.groupPath![2] as number),
  );
  for (const ms of groups) {
    if (ms.length === ms[0]!.groupSize) doc.remove(ms[0]!.groupPath!);
    else for (const m of [...ms].reverse()) doc.remove(m.path);
  }
}
