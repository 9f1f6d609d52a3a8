/**
 * link / unlink for any host: read every file involved, plan all edits in memory (each one
 * verified by re-parsing), then write them together — or print the diff with --dry-run.
 * Host facts come from `src/hosts/<host>/link.ts`; nothing host-specific lives here, and nothing
 * format-specific either: JSON and TOML files are both documents (`JsonDoc`, `TomlDoc`).
 */
import { existsSync } from "node:fs";
import type { ConfigFile, HookSpec, HostLink, JsonFile, JsonHooks, NativeSetting, Target } from "../hosts/link";
import { CofferError } from "../lib/errors";
import { paths } from "../lib/paths";
import { type Config, parseTomlStrict, validateConfigDoc } from "../store/config";
import { findRepoRoot } from "../store/scope";
import { hookCommand, isCofferBinaryPath } from "./command";
import { applyChanges, type FileChange, readTextOrNull, tilde } from "./files";
import { type Containers, findManaged, syncManagedHooks } from "./hooks-json";
import { deepEqual, JsonDoc, type JsonPath, newJsonText } from "./json-edit";
import { type LinkState, readLinkState, type Saved, writeLinkState } from "./state";
import { TomlDoc } from "./toml-doc";

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

type Doc = JsonDoc | TomlDoc;

type Slot<D extends Doc = Doc> = {
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
class Workspace {
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
      file.dialect === "toml" ? tomlSlot(file.path, before, opts.check) : jsonSlot(file, before, opts.skeleton);
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
  const dialect = file.dialect === "toml" ? "json" : file.dialect;
  const doc = new JsonDoc(fresh ? newJsonText(skeleton) : before!, tilde(file.path), dialect);
  return {
    path: file.path,
    before,
    doc,
    fresh,
    empty: () => deepEqual(doc.value, skeleton) || deepEqual(doc.value, {}),
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

/** A config file as a document, read-only use (doctor); undefined when it is missing or blank. */
export function readDoc(file: JsonFile): JsonDoc | undefined;
export function readDoc(file: ConfigFile): Doc | undefined;
export function readDoc(file: ConfigFile): Doc | undefined {
  const text = readTextOrNull(file.path);
  if (text === null || text.trim() === "") return undefined;
  return file.dialect === "toml"
    ? new TomlDoc(text, tilde(file.path))
    : new JsonDoc(text, tilde(file.path), file.dialect);
}

/** A value before Coffer changes it: its exact text, or absent (and whether its table was). */
function snapshot(doc: Doc, path: string[]): Saved {
  const raw = doc.raw(path);
  if (raw !== undefined) return { raw };
  return path.length > 1 ? { absent: true, tableAbsent: doc.get(path.slice(0, -1)) === undefined } : { absent: true };
}

/** Put back what `snapshot` saw; a table that was absent goes again when the key was all it held. */
function restore(doc: Doc, path: string[], prev: Saved): void {
  if ("raw" in prev) doc.set(path, undefined, prev.raw);
  else doc.remove(path, { dropEmptyParent: prev.tableAbsent === true });
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

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

function linkMcp(ws: Workspace, h: HostLink, opts: LinkOptions, notes: string[]): void {
  const mcp = h.mcp;
  const file = mcp.file(opts.target);
  if (!file) {
    if (mcp.unavailable) notes.push(mcp.unavailable(opts.target));
    return;
  }
  const slot = ws.doc(file);
  const doc = slot.doc;
  const want = mcp.value(opts.bin);
  const current = doc.get(mcp.path);
  const name = doc.label(mcp.path);
  if (deepEqual(current, want)) return;
  if (current !== undefined && !isCofferBinaryPath(mcp.binaryOf(current))) {
    notes.push(
      `Left the MCP server ${name} in ${tilde(file.path)} alone: it does not run a coffer binary. Rename or remove it, then link again to register Coffer's.`,
    );
    return;
  }
  if (isObject(current)) {
    // An existing entry: only Coffer's keys are brought up to date; the user's additions stay.
    const stale = (mcp.managed ?? Object.keys(want)).filter((k) => k in want && !deepEqual(current[k], want[k]));
    if (!stale.length) return;
    doc.merge(mcp.path, Object.fromEntries(stale.map((k) => [k, want[k]])));
    slot.notes.push(`MCP server ${name} updated (${stale.join(", ")})`);
    slot.audit.push({ event: "mcp_registered", host: h.host });
    return;
  }
  const containers = ws.containers(slot.path);
  for (let i = 1; i < mcp.path.length; i++) {
    const v = doc.get(mcp.path.slice(0, i));
    if (isObject(v) && Object.keys(v).length === 0) containers.noteEmpty(mcp.path.slice(0, i));
  }
  doc.set(mcp.path, want);
  slot.notes.push(`MCP server ${name} ${current === undefined ? "registered" : "updated"}`);
  slot.audit.push({ event: "mcp_registered", host: h.host });
}

function unlinkMcp(ws: Workspace, h: HostLink, target: Target): void {
  const mcp = h.mcp;
  const file = mcp.file(target);
  if (!file || !existsSync(file.path)) return;
  const slot = ws.doc(file);
  const doc = slot.doc;
  const current = doc.get(mcp.path);
  if (current === undefined) return;
  const name = doc.label(mcp.path);
  if (!isCofferBinaryPath(mcp.binaryOf(current))) {
    slot.notes.push(`left MCP server ${name} alone: it does not run a coffer binary`);
    return;
  }
  doc.remove(mcp.path);
  // Containers Coffer created for the entry go with it; ones that were there (empty) before stay.
  const containers = ws.containers(slot.path);
  for (let i = mcp.path.length - 1; i >= 1; i--) {
    const parent = mcp.path.slice(0, i);
    const rest = doc.get(parent);
    if (isObject(rest) && Object.keys(rest).length === 0 && containers.mayDrop(parent)) doc.remove(parent);
  }
  slot.notes.push(`MCP server ${name} removed`);
  slot.audit.push({ event: "mcp_unregistered", host: h.host });
}

// ---------------------------------------------------------------------------------------------
// native memory

const settingKey = (s: NativeSetting) => s.path.join(".");

function nativeMemory(ws: Workspace, h: HostLink, target: Target, mode: "off" | "restore", state: LinkState): void {
  const nm = h.nativeMemory;
  if (!nm) return;
  const file = nm.file(target);
  state.native_memory[file.path] ??= {};
  const saved = state.native_memory[file.path]!;
  if (mode === "restore" && (Object.keys(saved).length === 0 || !existsSync(file.path))) {
    delete state.native_memory[file.path];
    return;
  }
  const slot = ws.doc(file);
  const doc = slot.doc;
  const changed: string[] = [];
  for (const s of nm.settings) {
    const key = settingKey(s);
    if (mode === "off") {
      saved[key] ??= snapshot(doc, s.path);
      if (doc.get(s.path) !== s.off) {
        doc.set(s.path, s.off);
        changed.push(`${key} = ${s.off}`);
      }
    } else if (saved[key]) {
      // Restore only what is still as Coffer left it; a value the user changed since stays.
      if (doc.get(s.path) === s.off) {
        const was = doc.text;
        restore(doc, s.path, saved[key]);
        if (doc.text !== was) changed.push(`${key} restored`);
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
  if (Object.keys(saved).length === 0) delete state.native_memory[file.path];
}

// ---------------------------------------------------------------------------------------------
// Coffer's own config (the transcript sweep replaces Codex's missing SessionEnd)

function verifyCofferConfig(text: string): void {
  validateConfigDoc(parseTomlStrict(text, paths.config()), paths.config());
}

const SWEEP = ["distill", "sweep"];

function cofferConfig(ws: Workspace): Slot {
  return ws.doc({ path: paths.config(), dialect: "toml" }, { check: verifyCofferConfig });
}

function enableSweep(ws: Workspace, h: HostLink, state: LinkState, notes: string[], config: Config): void {
  const slot = cofferConfig(ws);
  if (slot.before !== null) verifyCofferConfig(slot.before);
  if (slot.doc.get(SWEEP) !== true) {
    state.sweep ??= snapshot(slot.doc, SWEEP);
    slot.doc.set(SWEEP, true);
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
  const slot = cofferConfig(ws);
  if (slot.doc.get(SWEEP) !== true) return;
  restore(slot.doc, SWEEP, prev);
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
  notes.push(...(h.reminders ?? []), ...(h.linkNotes?.(opts.target) ?? []));
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
