/**
 * link / unlink for any host: read every file involved, plan all edits in memory (each one
 * verified by re-parsing), then write them together — or print the diff with --dry-run.
 * Host facts come from `src/hosts/<host>/link.ts`; nothing host-specific lives here.
 */
import { existsSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import type { HookSpec, HostLink, JsonFile, JsonHooks, NativeSetting, Target } from "../hosts/link";
import { CofferError } from "../lib/errors";
import { paths } from "../lib/paths";
import { deleteTomlKey, deleteTomlTable, getTomlRaw, hasTomlTable, setTomlKey, setTomlTable } from "../lib/toml-edit";
import { type Config, parseTomlStrict, validateConfigDoc } from "../store/config";
import { findRepoRoot } from "../store/scope";
import { hookCommand, isCofferBinaryPath } from "./command";
import { applyChanges, type FileChange, readTextOrNull, tilde } from "./files";
import { type Containers, findManaged, syncManagedHooks } from "./hooks-json";
import { deepEqual, JsonDoc, type JsonPath, newJsonText } from "./json-edit";
import { type LinkState, readLinkState, type Saved, writeLinkState } from "./state";

export type LinkOptions = {
  target: Target;
  /** Absolute path of the coffer binary the entries run. */
  bin: string;
  /** true: add the session-end hook; false: remove it; undefined: keep whatever is installed. */
  sessionEnd?: boolean;
  mcp: boolean;
  config: Config;
};

export type Plan = {
  host: string;
  scope: "user" | "project";
  changes: FileChange[];
  /** Lines to print after the summary (what the user must know or do). */
  notes: string[];
  state: LinkState;
};

/** The user-level target, or the repository around `cwd` with --project. */
export function resolveTarget(project: boolean, cwd: string, home: string): Target {
  if (!project) return { home };
  const repo = findRepoRoot(cwd);
  if (!repo)
    throw new CofferError(
      `--project needs a git repository, and ${cwd} is not inside one`,
      1,
      "Run it from inside the repository, or drop --project to link for your user.",
    );
  return { home, root: repo.worktree };
}

/** The binary the written commands will run: this one, by its absolute path. */
export function currentBinary(): string {
  const bin = process.execPath;
  if (!isCofferBinaryPath(bin)) {
    throw new CofferError(
      `the running binary is ${bin}, not a file named "coffer"`,
      1,
      "Run link from the compiled coffer binary (named `coffer`): Coffer recognises its own entries by that name.",
    );
  }
  return bin;
}

type Slot =
  | {
      kind: "json";
      path: string;
      before: string | null;
      doc: JsonDoc;
      fresh: boolean;
      skeleton: Record<string, unknown>;
      notes: string[];
      audit: FileChange["audit"];
    }
  | {
      kind: "toml";
      path: string;
      before: string | null;
      text: string;
      ops: TomlOp[];
      notes: string[];
      audit: FileChange["audit"];
      verify: (t: string) => void;
    }
  | {
      kind: "text";
      path: string;
      before: string | null;
      text: string | null;
      notes: string[];
      audit: FileChange["audit"];
    };

/** The files one plan touches, each read once; edits accumulate in memory. */
class Workspace {
  private slots = new Map<string, Slot>();

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

  json(file: JsonFile, skeleton: Record<string, unknown> = {}): Extract<Slot, { kind: "json" }> {
    const hit = this.slots.get(file.path);
    if (hit) return hit as Extract<Slot, { kind: "json" }>;
    const before = readTextOrNull(file.path);
    const fresh = before === null || before.trim() === "";
    const doc = new JsonDoc(fresh ? newJsonText(skeleton) : before!, tilde(file.path), file.dialect);
    const slot = { kind: "json" as const, path: file.path, before, doc, fresh, skeleton, notes: [], audit: [] };
    this.slots.set(file.path, slot);
    return slot;
  }

  toml(path: string, verify: (t: string) => void = () => {}): Extract<Slot, { kind: "toml" }> {
    const hit = this.slots.get(path);
    if (hit) return hit as Extract<Slot, { kind: "toml" }>;
    const before = readTextOrNull(path);
    if (before !== null) checkToml(before, path);
    const slot = {
      kind: "toml" as const,
      path,
      before,
      text: before ?? "",
      ops: [] as TomlOp[],
      notes: [],
      audit: [],
      verify,
    };
    this.slots.set(path, slot);
    return slot;
  }

  text(path: string): Extract<Slot, { kind: "text" }> {
    const hit = this.slots.get(path);
    if (hit) return hit as Extract<Slot, { kind: "text" }>;
    const before = readTextOrNull(path);
    const slot = { kind: "text" as const, path, before, text: before, notes: [], audit: [] };
    this.slots.set(path, slot);
    return slot;
  }

  changes(): FileChange[] {
    const out: FileChange[] = [];
    for (const s of this.slots.values()) {
      let after: string | null;
      if (s.kind === "json") {
        const empty = deepEqual(s.doc.value, s.skeleton) || deepEqual(s.doc.value, {});
        if (s.fresh) {
          // A file Coffer creates is rendered fresh (never created just to hold nothing).
          after = empty ? s.before : newJsonText(s.doc.value);
          if (after !== s.before && s.before === null) this.state.created[s.path] = true;
        } else if (empty && this.state.created[s.path] && s.doc.text !== s.before) {
          after = null;
        } else after = s.doc.text;
        if (after === null || empty) delete this.state.created[s.path];
        if (after === null) delete this.state.containers[s.path];
      } else if (s.kind === "toml") {
        // A TOML file Coffer created and emptied again goes away.
        after = s.text === "" && (s.before === null || this.state.created[s.path]) ? null : s.text;
        if (after === null) delete this.state.created[s.path];
        else if (s.before === null) this.state.created[s.path] = true;
        if (after !== null && after !== s.before) {
          verifyToml(s.before ?? "", after, s.ops, s.path);
          s.verify(after);
        }
      } else after = s.text;
      out.push({ path: s.path, before: s.before, after, notes: s.notes, audit: s.audit });
    }
    return out;
  }
}

function checkToml(text: string, path: string, ours = false): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    const e = err as { line?: number; message: string };
    if (ours)
      throw new CofferError(
        `${tilde(path)}: an edit did not give valid TOML (${e.message.split("\n")[0]}); nothing was written`,
        1,
        "This is a bug in Coffer; please report it with a copy of the file.",
      );
    throw new CofferError(
      `${tilde(path)}${e.line ? `:${e.line}` : ""}: not valid TOML (${e.message.split("\n")[0]}); left it untouched`,
      1,
      "Fix that line by hand (or move the file away), then run the command again.",
    );
  }
}

/** One intended change to a TOML document, replayed on the parsed original to check the edit. */
type TomlOp = { path: string[]; value?: unknown; delete?: boolean; merge?: Record<string, unknown> };

function pruneEmpty(v: unknown): unknown {
  if (!v || typeof v !== "object" || Array.isArray(v) || v instanceof Date) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const p = pruneEmpty(x);
    if (p && typeof p === "object" && !Array.isArray(p) && !(p instanceof Date) && Object.keys(p).length === 0)
      continue;
    out[k] = p;
  }
  return out;
}

/**
 * The edited text must parse, and to exactly the original document with the intended changes
 * (empty tables aside): a line-level editor that touched anything else is caught here.
 */
function verifyToml(before: string, after: string, ops: TomlOp[], path: string): void {
  const parsed = checkToml(after, path, true);
  const expected = structuredClone(before ? (parseToml(before) as Record<string, unknown>) : {});
  for (const op of ops) {
    let cur = expected as Record<string, unknown>;
    for (const seg of op.path.slice(0, -1)) {
      if (!cur[seg] || typeof cur[seg] !== "object") cur[seg] = {};
      cur = cur[seg] as Record<string, unknown>;
    }
    const last = op.path[op.path.length - 1]!;
    if (op.delete) delete cur[last];
    else if (op.merge) cur[last] = { ...((cur[last] as object) ?? {}), ...op.merge };
    else cur[last] = op.value;
  }
  if (!deepEqual(pruneEmpty(parsed), pruneEmpty(expected))) {
    throw new CofferError(
      `${tilde(path)}: an edit did not give the intended document; nothing was written`,
      1,
      "This is a bug in Coffer; please report it with a copy of the file.",
    );
  }
}

type TomlSlot = { text: string; ops: TomlOp[] };

function tomlSetKey(slot: TomlSlot, path: string[], value: unknown, raw?: string): void {
  slot.text = setTomlKey(slot.text, path, value, raw);
  slot.ops.push({ path, value: raw !== undefined ? (parseToml(`v = ${raw}`) as { v: unknown }).v : value });
}

function tomlDeleteKey(slot: TomlSlot, path: string[], dropEmptyTable: boolean): void {
  slot.text = deleteTomlKey(slot.text, path, dropEmptyTable);
  slot.ops.push({ path, delete: true });
}

function tomlRestore(slot: TomlSlot, path: string[], prev: Saved): void {
  if ("raw" in prev) tomlSetKey(slot, path, undefined, prev.raw);
  else tomlDeleteKey(slot, path, prev.tableAbsent === true);
}

function tomlGet(text: string, path: string[]): unknown {
  let cur: unknown = text ? parseToml(text) : {};
  for (const seg of path) {
    if (!cur || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

// ---------------------------------------------------------------------------------------------
// hooks

function desiredHooks(
  h: HostLink,
  hooks: JsonHooks,
  bin: string,
  sessionEnd: boolean | undefined,
  installed: Set<string>,
): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const spec of hooks.events) {
    if (spec.optIn && !(sessionEnd === true || (sessionEnd === undefined && installed.has(spec.native)))) continue;
    const entry = hooks.entry(hookCommand(bin, spec.event, h.host), spec);
    out.set(spec.native, hooks.layout === "flat" ? entry : groupFor(spec, entry));
  }
  return out;
}

function groupFor(spec: HookSpec, entry: Record<string, unknown>): Record<string, unknown> {
  return spec.matcher !== undefined ? { matcher: spec.matcher, hooks: [entry] } : { hooks: [entry] };
}

function linkHooks(ws: Workspace, h: HostLink, opts: LinkOptions, notes: string[]): void {
  const hooks = h.hooks;
  if (hooks.kind === "plugin") {
    const file = hooks.file(opts.target);
    const slot = ws.text(file);
    if (slot.before !== null && !slot.before.split("\n", 1)[0]!.includes(hooks.marker)) {
      throw new CofferError(
        `${tilde(file)} exists and was not written by Coffer (no "${hooks.marker}" marker on line 1); left it untouched`,
        1,
        "Move or rename that file, then run the command again.",
      );
    }
    const text = hooks.render(opts.bin);
    if (slot.before !== text) {
      slot.text = text;
      slot.notes.push(`plugin ${slot.before === null ? "installed" : "updated"} (${hooks.events.join(", ")})`);
      slot.audit.push({ event: "hook_installed", host: h.host, events: hooks.events });
    }
    return;
  }
  const slot = ws.json(hooks.file(opts.target), hooks.skeleton);
  const installed = new Set(findManaged(slot.doc, hooks.layout).map((m) => m.event));
  const desired = desiredHooks(h, hooks, opts.bin, opts.sessionEnd, installed);
  const res = syncManagedHooks(slot.doc, hooks.layout, desired, ws.containers(slot.path));
  const removedOnly = res.removed.filter((e) => !res.added.includes(e));
  if (res.added.length) {
    slot.notes.push(`hooks ${res.added.join(", ")}`);
    slot.audit.push({ event: "hook_installed", host: h.host, events: res.added });
  }
  if (removedOnly.length) {
    slot.notes.push(`removed stale hooks ${removedOnly.join(", ")}`);
    slot.audit.push({ event: "hook_uninstalled", host: h.host, events: removedOnly });
  }
  const optIn = hooks.events.filter((e) => e.optIn).map((e) => e.native);
  if (opts.sessionEnd === undefined && optIn.some((e) => installed.has(e))) {
    notes.push(
      `Kept the ${optIn.join(", ")} hook from an earlier --session-end link (remove it with --no-session-end).`,
    );
  }
}

function unlinkHooks(ws: Workspace, h: HostLink, target: Target): void {
  const hooks = h.hooks;
  if (hooks.kind === "plugin") {
    const file = hooks.file(target);
    const slot = ws.text(file);
    if (slot.before === null) return;
    if (!slot.before.split("\n", 1)[0]!.includes(hooks.marker)) {
      slot.notes.push("left alone: not written by Coffer (no marker on line 1)");
      return;
    }
    slot.text = null;
    slot.notes.push("plugin removed");
    slot.audit.push({ event: "hook_uninstalled", host: h.host, events: hooks.events });
    return;
  }
  const file = hooks.file(target);
  if (!existsSync(file.path)) return;
  const slot = ws.json(file, hooks.skeleton);
  const res = syncManagedHooks(slot.doc, hooks.layout, new Map(), ws.containers(slot.path));
  if (res.removed.length) {
    slot.notes.push(`removed hooks ${res.removed.join(", ")}`);
    slot.audit.push({ event: "hook_uninstalled", host: h.host, events: res.removed });
  }
}

// ---------------------------------------------------------------------------------------------
// MCP

function foreignMcp(file: string, key: string): string {
  return `Left the MCP server ${key} in ${file} alone: it does not run a coffer binary. Rename or remove it, then link again to register Coffer's.`;
}

function linkMcp(ws: Workspace, h: HostLink, opts: LinkOptions, notes: string[]): void {
  const mcp = h.mcp;
  const want = mcp.value(opts.bin);
  if (mcp.kind === "json") {
    const file = mcp.file(opts.target);
    if (!file) {
      if (mcp.unavailable) notes.push(mcp.unavailable(opts.target));
      return;
    }
    const slot = ws.json(file);
    const current = slot.doc.get(mcp.path);
    if (deepEqual(current, want)) return;
    if (current !== undefined && !isCofferBinaryPath(mcp.binaryOf(current))) {
      notes.push(foreignMcp(tilde(file.path), `"${mcp.path.join(".")}"`));
      return;
    }
    if (current && typeof current === "object" && !Array.isArray(current)) {
      // An existing entry: only Coffer's keys are brought up to date; the user's additions stay.
      const entry = current as Record<string, unknown>;
      const stale = (mcp.managed ?? ["command", "args"]).filter((k) => k in want && !deepEqual(entry[k], want[k]));
      if (!stale.length) return;
      for (const k of stale) slot.doc.set([...mcp.path, k], want[k]);
      slot.notes.push(`MCP server "${mcp.path[mcp.path.length - 1]}" updated (${stale.join(", ")})`);
      slot.audit.push({ event: "mcp_registered", host: h.host });
      return;
    }
    const containers = ws.containers(slot.path);
    for (let i = 1; i < mcp.path.length; i++) {
      const v = slot.doc.get(mcp.path.slice(0, i));
      if (v && typeof v === "object" && Object.keys(v).length === 0) containers.noteEmpty(mcp.path.slice(0, i));
    }
    slot.doc.set(mcp.path, want);
    slot.notes.push(
      `MCP server "${mcp.path[mcp.path.length - 1]}" ${current === undefined ? "registered" : "updated"}`,
    );
    slot.audit.push({ event: "mcp_registered", host: h.host });
    return;
  }
  const path = mcp.file(opts.target);
  const slot = ws.toml(path);
  const current = tomlGet(slot.text, mcp.table) as Record<string, unknown> | undefined;
  if (current !== undefined && !isCofferBinaryPath(mcp.binaryOf(current))) {
    notes.push(foreignMcp(tilde(path), `[${mcp.table.join(".")}]`));
    return;
  }
  const stale = Object.fromEntries(Object.entries(want).filter(([k, v]) => !deepEqual(current?.[k], v)));
  if (!Object.keys(stale).length) return;
  slot.text = setTomlTable(slot.text, mcp.table, stale, current ?? {});
  slot.ops.push({ path: mcp.table, merge: stale });
  slot.notes.push(`MCP server [${mcp.table.join(".")}] ${current === undefined ? "registered" : "updated"}`);
  slot.audit.push({ event: "mcp_registered", host: h.host });
}

function unlinkMcp(ws: Workspace, h: HostLink, target: Target): void {
  const mcp = h.mcp;
  if (mcp.kind === "json") {
    const file = mcp.file(target);
    if (!file || !existsSync(file.path)) return;
    const slot = ws.json(file);
    const current = slot.doc.get(mcp.path);
    if (current === undefined) return;
    if (!isCofferBinaryPath(mcp.binaryOf(current))) {
      slot.notes.push(`left MCP server "${mcp.path[mcp.path.length - 1]}" alone: it does not run a coffer binary`);
      return;
    }
    slot.doc.remove(mcp.path);
    const containers = ws.containers(slot.path);
    for (let i = mcp.path.length - 1; i >= 1; i--) {
      const parent = mcp.path.slice(0, i);
      const rest = slot.doc.get(parent);
      if (rest && typeof rest === "object" && Object.keys(rest).length === 0 && containers.mayDrop(parent))
        slot.doc.remove(parent);
    }
    slot.notes.push(`MCP server "${mcp.path[mcp.path.length - 1]}" removed`);
    slot.audit.push({ event: "mcp_unregistered", host: h.host });
    return;
  }
  const path = mcp.file(target);
  if (!existsSync(path)) return;
  const slot = ws.toml(path);
  const current = tomlGet(slot.text, mcp.table);
  if (current === undefined) return;
  if (!isCofferBinaryPath(mcp.binaryOf(current))) {
    slot.notes.push(`left [${mcp.table.join(".")}] alone: it does not run a coffer binary`);
    return;
  }
  slot.text = deleteTomlTable(slot.text, mcp.table);
  slot.ops.push({ path: mcp.table, delete: true });
  slot.notes.push(`MCP server [${mcp.table.join(".")}] removed`);
  slot.audit.push({ event: "mcp_unregistered", host: h.host });
}

// ---------------------------------------------------------------------------------------------
// native memory

const settingKey = (s: NativeSetting) => s.path.join(".");

function nativeMemory(ws: Workspace, h: HostLink, target: Target, mode: "off" | "restore", state: LinkState): void {
  const nm = h.nativeMemory;
  if (!nm) return;
  const file = nm.kind === "json" ? nm.file(target).path : nm.file(target);
  state.native_memory[file] ??= {};
  const saved = state.native_memory[file];
  if (mode === "restore" && Object.keys(saved).length === 0) {
    delete state.native_memory[file];
    return;
  }
  const changed: string[] = [];
  if (nm.kind === "json") {
    const slot = ws.json(nm.file(target));
    for (const s of nm.settings) {
      const key = settingKey(s);
      if (mode === "off") {
        if (!saved[key]) {
          const raw = slot.doc.raw(s.path);
          saved[key] = raw === undefined ? { absent: true } : { raw };
        }
        if (slot.doc.get(s.path) !== s.off) {
          slot.doc.set(s.path, s.off);
          changed.push(`${key} = ${s.off}`);
        }
      } else if (saved[key]) {
        // Restore only what is still as Coffer left it; a value the user changed since stays.
        if (slot.doc.get(s.path) === s.off) {
          const prev = saved[key]!;
          const was = slot.doc.text;
          if ("raw" in prev) slot.doc.set(s.path, undefined, prev.raw);
          else slot.doc.remove(s.path);
          if (slot.doc.text !== was) changed.push(`${key} restored`);
        }
        delete saved[key];
      }
    }
    if (changed.length) {
      slot.notes.push(`native memory: ${changed.join(", ")}`);
      slot.audit.push({
        event: mode === "off" ? "native_memory_off" : "native_memory_restored",
        host: h.host,
        keys: nm.settings.map(settingKey),
      });
    }
  } else {
    if (mode === "restore" && !existsSync(file)) {
      delete state.native_memory[file];
      return;
    }
    const slot = ws.toml(file);
    for (const s of nm.settings) {
      const key = settingKey(s);
      if (mode === "off") {
        if (!saved[key]) {
          const raw = getTomlRaw(slot.text, s.path);
          saved[key] =
            raw === undefined ? { absent: true, tableAbsent: !hasTomlTable(slot.text, s.path.slice(0, -1)) } : { raw };
        }
        if (tomlGet(slot.text, s.path) !== s.off) {
          tomlSetKey(slot, s.path, s.off);
          changed.push(`${key} = ${s.off}`);
        }
      } else if (saved[key]) {
        if (tomlGet(slot.text, s.path) === s.off) {
          const prev = saved[key]!;
          const was = slot.text;
          tomlRestore(slot, s.path, prev);
          if (slot.text !== was) changed.push(`${key} restored`);
        }
        delete saved[key];
      }
    }
    if (changed.length) {
      slot.notes.push(`native memory: ${changed.join(", ")}`);
      slot.audit.push({
        event: mode === "off" ? "native_memory_off" : "native_memory_restored",
        host: h.host,
        keys: nm.settings.map(settingKey),
      });
    }
  }
  if (Object.keys(saved).length === 0) delete state.native_memory[file];
}

// ---------------------------------------------------------------------------------------------
// Coffer's own config (the transcript sweep replaces Codex's missing SessionEnd)

function verifyCofferConfig(text: string): void {
  validateConfigDoc(parseTomlStrict(text, paths.config()), paths.config());
}

function enableSweep(ws: Workspace, h: HostLink, state: LinkState, notes: string[], config: Config): void {
  const slot = ws.toml(paths.config(), verifyCofferConfig);
  if (slot.before !== null) verifyCofferConfig(slot.before);
  if (tomlGet(slot.text, ["distill", "sweep"]) !== true) {
    const raw = getTomlRaw(slot.text, ["distill", "sweep"]);
    state.sweep ??= raw === undefined ? { absent: true, tableAbsent: !hasTomlTable(slot.text, ["distill"]) } : { raw };
    tomlSetKey(slot, ["distill", "sweep"], true);
    slot.notes.push("distill.sweep = true");
    slot.audit.push({ event: "config_set", key: "distill.sweep", host: h.host });
  }
  notes.push(
    `${h.name} has no SessionEnd event Coffer can rely on: the transcript sweep (distill.sweep = true) distills its finished sessions instead, whenever \`coffer serve\` runs or you run \`coffer distill sweep\`.`,
  );
  if (!config["model.provider"])
    notes.push(
      "Distillation needs a model and none is configured yet: `coffer config set model.provider openai` and `coffer config set model.model <name>`.",
    );
}

function restoreSweep(ws: Workspace, h: HostLink, state: LinkState): void {
  const prev: Saved | undefined = state.sweep;
  if (!prev) return;
  delete state.sweep;
  if (!existsSync(paths.config())) return;
  const slot = ws.toml(paths.config(), verifyCofferConfig);
  if (tomlGet(slot.text, ["distill", "sweep"]) !== true) return;
  tomlRestore(slot, ["distill", "sweep"], prev);
  slot.notes.push("distill.sweep restored");
  slot.audit.push({ event: "config_set", key: "distill.sweep", host: h.host });
}

// ---------------------------------------------------------------------------------------------

export function planLink(h: HostLink, opts: LinkOptions): Plan {
  const state = readLinkState();
  const ws = new Workspace(state);
  const notes: string[] = [];
  linkHooks(ws, h, opts, notes);
  if (opts.mcp) linkMcp(ws, h, opts, notes);
  const mode = opts.config[`native_memory.${h.host}`] === "off" ? "off" : "restore";
  if (h.nativeMemory) nativeMemory(ws, h, opts.target, mode, state);
  else if (mode === "off")
    notes.push(
      `${h.name} has no native memory switch Coffer can turn off; native_memory.${h.host} = "off" changes nothing.`,
    );
  if (opts.sessionEnd === true) {
    if (h.sessionEnd === "sweep") enableSweep(ws, h, state, notes, opts.config);
    else if (h.sessionEnd === "none")
      notes.push(`${h.name} has no session-end event Coffer can use; --session-end changes nothing for it.`);
  }
  notes.push(...(h.linkNotes?.(opts.target) ?? []));
  return { host: h.host, scope: opts.target.root ? "project" : "user", changes: ws.changes(), notes, state };
}

export function planUnlink(h: HostLink, target: Target): Plan {
  const state = readLinkState();
  const ws = new Workspace(state);
  unlinkHooks(ws, h, target);
  unlinkMcp(ws, h, target);
  nativeMemory(ws, h, target, "restore", state);
  if (h.sessionEnd === "sweep") restoreSweep(ws, h, state);
  return { host: h.host, scope: target.root ? "project" : "user", changes: ws.changes(), notes: [], state };
}

/** Write a plan's files and the link state. */
export function applyPlan(plan: Plan): void {
  applyChanges(plan.changes);
  writeLinkState(plan.state);
}

export function eventsOf(h: HostLink): string[] {
  return h.hooks.kind === "plugin" ? h.hooks.events : h.hooks.events.map((e) => e.native);
}
