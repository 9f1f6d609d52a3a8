/**
 * link / unlink for any host: read every file involved, plan all edits in memory (each one
 * verified by re-parsing), then write them together — or print the diff with --dry-run.
 * Host facts come from `src/hosts/<host>/link.ts`; nothing host-specific lives here, and nothing
 * format-specific either: JSON and TOML files are both documents (`JsonDoc`, `TomlDoc`).
 */
import { existsSync } from "node:fs";
import { type Config, parseTomlStrict, validateConfigDoc } from "../config/config";
import {
  carriesMarker,
  type HookSpec,
  type HostLink,
  type JsonHooks,
  type NativeSetting,
  type Target,
} from "../hosts/link";
import { CofferError } from "../lib/errors";
import { paths } from "../lib/paths";
import { isoNow } from "../lib/time";
import { findRepoRoot } from "../store";
import { hookCommand, isCofferBinaryPath } from "./command";
import { applyChanges, changed, type FileChange, tilde } from "./files";
import { findManaged, syncManagedHooks } from "./hooks-json";
import { removeTomlHooks, setTomlHooks } from "./hooks-toml";
import { deepEqual } from "./json-edit";
import { type LinkState, linkKey, readLinkState, type Saved, writeLinkState } from "./state";
import { isObject, restore, type Slot, snapshot, Workspace } from "./workspace";

export type LinkOptions = {
  target: Target;
  /** Absolute path of the coffer binary the entries run. */
  bin: string;
  /** true: add the session-end hook; false: remove it; undefined: keep whatever is installed. */
  sessionEnd?: boolean;
  /** true: register the MCP server; false: do not (remembered); undefined: as the last link of this host and target said. */
  mcp?: boolean;
  config: Config;
  /** Replace an MCP entry Coffer did not write (unlink puts it back). */
  force?: boolean;
};

export type Plan = {
  host: string;
  scope: "user" | "project";
  changes: FileChange[];
  /** Lines to print after the summary (what the user must know or do). */
  notes: string[];
  state: LinkState;
  /** With --project: the repository, which no write may leave (through a link committed in it). */
  root?: string;
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
      `the running binary is ${bin}, not a file named "coffer" (coffer.exe on Windows)`,
      1,
      "Run link from the compiled coffer binary (named `coffer`, or `coffer.exe` on Windows): Coffer recognises its own entries by that name.",
    );
  }
  return bin;
}

// ---------------------------------------------------------------------------------------------
// hooks

function desiredHooks(
  h: HostLink,
  hooks: JsonHooks,
  bin: string,
  sessionEnd: boolean | undefined,
  installed: Set<string>,
): Map<string, Record<string, unknown>[]> {
  const out = new Map<string, Record<string, unknown>[]>();
  for (const spec of hooks.events) {
    if (spec.optIn && !(sessionEnd === true || (sessionEnd === undefined && installed.has(spec.native)))) continue;
    const entry = hooks.entry(hookCommand(bin, spec.event, h.host), spec);
    const flat = hooks.layout === "flat" || (hooks.layout === "mixed" && spec.matcher === undefined);
    // Several specs on one native event (Antigravity's PreInvocation) are installed in order.
    out.set(spec.native, [...(out.get(spec.native) ?? []), flat ? entry : groupFor(spec, entry)]);
  }
  return out;
}

function groupFor(spec: HookSpec, entry: Record<string, unknown>): Record<string, unknown> {
  return spec.matcher !== undefined ? { matcher: spec.matcher, hooks: [entry] } : { hooks: [entry] };
}

function linkHooks(ws: Workspace, h: HostLink, opts: LinkOptions, notes: string[]): void {
  const hooks = h.hooks;
  if (hooks.kind === "none") return;
  if (hooks.kind === "plugin") {
    const files = [{ file: hooks.file(opts.target), render: hooks.render }, ...(hooks.more?.(opts.target) ?? [])];
    const slots = files.map((f) => ({ ...f, slot: ws.text(f.file) }));
    for (const { file, slot } of slots)
      if (slot.before !== null && !carriesMarker(slot.before, hooks.marker)) {
        throw new CofferError(
          `${tilde(file)} exists and was not written by Coffer (its first line is not Coffer's marker line); left it untouched`,
          1,
          "Move or rename that file, then run the command again.",
        );
      }
    for (const { slot, render } of slots) {
      const text = render(opts.bin);
      if (slot.before !== text) {
        slot.text = text;
        slot.notes.push(`plugin ${slot.before === null ? "installed" : "updated"} (${hooks.events.join(", ")})`);
        slot.audit.push({ event: "hook_installed", host: h.host, events: hooks.events });
      }
    }
    return;
  }
  if (hooks.kind === "toml-array") {
    const file = hooks.file(opts.target);
    const slot = ws.text(file);
    const before = slot.before ?? "";
    const tables = hooks.events.map((spec) => hooks.entry(hookCommand(opts.bin, spec.event, h.host), spec));
    const text = setTomlHooks(before, hooks.key, tables, tilde(file));
    if (text !== before) {
      const events = [...new Set(hooks.events.map((e) => e.native))];
      slot.text = text;
      slot.notes.push(`hooks ${events.join(", ")}`);
      slot.audit.push({ event: "hook_installed", host: h.host, events });
    }
    return;
  }
  const slot = ws.json(hooks.file(opts.target), hooks.skeleton);
  const installed = new Set(findManaged(slot.doc, hooks.layout, hooks.root).map((m) => m.event));
  const desired = desiredHooks(h, hooks, opts.bin, opts.sessionEnd, installed);
  const res = syncManagedHooks(slot.doc, hooks.layout, desired, ws.containers(slot.path), hooks.root);
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
  if (hooks.kind === "none") return;
  if (hooks.kind === "plugin") {
    for (const file of [hooks.file(target), ...(hooks.more?.(target) ?? []).map((m) => m.file)]) {
      const slot = ws.text(file);
      if (slot.before === null) continue;
      if (!carriesMarker(slot.before, hooks.marker)) {
        slot.notes.push("left alone: not written by Coffer (its first line is not Coffer's marker line)");
        continue;
      }
      slot.text = null;
      slot.notes.push("plugin removed");
      slot.audit.push({ event: "hook_uninstalled", host: h.host, events: hooks.events });
    }
    return;
  }
  if (hooks.kind === "toml-array") {
    const file = hooks.file(target);
    const slot = ws.text(file);
    if (slot.before === null) return;
    const text = removeTomlHooks(slot.before, hooks.key, tilde(file));
    if (text === slot.before) return;
    const events = [...new Set(hooks.events.map((e) => e.native))];
    slot.text = text;
    slot.notes.push(`removed hooks ${events.join(", ")}`);
    slot.audit.push({ event: "hook_uninstalled", host: h.host, events });
    return;
  }
  const file = hooks.file(target);
  if (!existsSync(file.path)) return;
  const slot = ws.json(file, hooks.skeleton);
  const res = syncManagedHooks(slot.doc, hooks.layout, new Map(), ws.containers(slot.path), hooks.root);
  if (res.removed.length) {
    slot.notes.push(`removed hooks ${res.removed.join(", ")}`);
    slot.audit.push({ event: "hook_uninstalled", host: h.host, events: res.removed });
  }
}

// ---------------------------------------------------------------------------------------------
// MCP

/** An entry exactly as Coffer writes it (for some coffer binary): Coffer's, from before ownership was recorded. */
function looksLikeOurs(mcp: HostLink["mcp"], entry: unknown): boolean {
  const bin = mcp.binaryOf(entry);
  return isCofferBinaryPath(bin) && deepEqual(entry, mcp.value(bin));
}

/** The MCP entries Coffer wrote in `file` (see `LinkState.owned`). */
function ownedIn(state: LinkState, file: string): Record<string, Saved> {
  state.owned[file] ??= {};
  return state.owned[file];
}

function disown(state: LinkState, file: string, key: string): void {
  const o = state.owned[file];
  if (!o) return;
  delete o[key];
  if (!Object.keys(o).length) delete state.owned[file];
}

function linkMcp(ws: Workspace, h: HostLink, opts: LinkOptions, state: LinkState, notes: string[]): void {
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
  const key = mcp.path.join(".");
  const owned = state.owned[file.path]?.[key];
  const ours = current !== undefined && (owned !== undefined || looksLikeOurs(mcp, current));
  if (ours && owned === undefined) ownedIn(state, file.path)[key] = { absent: true };
  if (deepEqual(current, want)) return;
  const foreign = current !== undefined && (!ours || !isCofferBinaryPath(mcp.binaryOf(current)));
  if (foreign && !opts.force) {
    const why = isCofferBinaryPath(mcp.binaryOf(current))
      ? "Coffer did not write it"
      : "it does not run a coffer binary";
    notes.push(
      `Left the MCP server ${name} in ${tilde(file.path)} alone: ${why}. Rename or remove it and link again, or link with --force to replace it (unlink puts yours back).`,
    );
    return;
  }
  if (foreign) {
    // --force: Coffer's entry replaces the user's whole; unlink restores theirs exactly.
    ownedIn(state, file.path)[key] = owned && !("absent" in owned) ? owned : snapshot(doc, mcp.path);
    doc.set(mcp.path, want);
    slot.notes.push(`MCP server ${name} replaced (--force; unlink puts the previous one back)`);
    slot.audit.push({ event: "mcp_registered", host: h.host });
    return;
  }
  if (isObject(current)) {
    // Coffer's entry: only Coffer's keys are brought up to date; what the user added stays.
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
  if (current === undefined) ownedIn(state, file.path)[key] = { absent: true };
  doc.set(mcp.path, want);
  slot.notes.push(`MCP server ${name} ${current === undefined ? "registered" : "updated"}`);
  slot.audit.push({ event: "mcp_registered", host: h.host });
}

function unlinkMcp(ws: Workspace, h: HostLink, target: Target, state: LinkState): void {
  const mcp = h.mcp;
  const file = mcp.file(target);
  if (!file || !existsSync(file.path)) return;
  const slot = ws.doc(file);
  const doc = slot.doc;
  const current = doc.get(mcp.path);
  const key = mcp.path.join(".");
  const owned = state.owned[file.path]?.[key];
  if (current === undefined) {
    disown(state, file.path, key);
    return;
  }
  const name = doc.label(mcp.path);
  if (!isCofferBinaryPath(mcp.binaryOf(current))) {
    slot.notes.push(`left MCP server ${name} alone: it does not run a coffer binary`);
    disown(state, file.path, key);
    return;
  }
  if (owned === undefined && !looksLikeOurs(mcp, current)) {
    slot.notes.push(`left MCP server ${name} alone: Coffer did not write it`);
    return;
  }
  disown(state, file.path, key);
  if (owned && !("absent" in owned)) {
    // The entry `link --force` replaced comes back exactly.
    restore(doc, mcp.path, owned);
    slot.notes.push(`MCP server ${name} restored to the one link --force replaced`);
    slot.audit.push({ event: "mcp_unregistered", host: h.host });
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

function enableSweep(ws: Workspace, h: HostLink, state: LinkState, notes: string[]): void {
  const slot = cofferConfig(ws);
  if (slot.before !== null) verifyCofferConfig(slot.before);
  if (slot.doc.get(SWEEP) !== true) {
    state.sweep ??= snapshot(slot.doc, SWEEP);
    slot.doc.set(SWEEP, true);
    slot.notes.push("distill.sweep = true");
    slot.audit.push({ event: "config_set", key: "distill.sweep", host: h.host });
  }
  notes.push(
    `${h.name} has no SessionEnd event Coffer can rely on: the transcript sweep (distill.sweep = true) distills its finished sessions instead, in the background after a session starts, whenever \`coffer serve\` runs, or when you run \`coffer distill sweep\`.`,
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

/** The file a host's hooks live in for this target. */
const hookFileOf = (h: HostLink, t: Target) =>
  h.hooks.kind === "json"
    ? h.hooks.file(t).path
    : h.hooks.kind === "none"
      ? (h.mcp.file(t)?.path ?? "")
      : h.hooks.file(t);

export function planLink(h: HostLink, opts: LinkOptions): Plan {
  if (opts.target.root && h.userOnly)
    throw new CofferError(`${h.name} has no project-level link: ${h.userOnly}`, 2, `Run: coffer link ${h.host}`);
  const state = readLinkState();
  const ws = new Workspace(state);
  const notes: string[] = [];
  linkHooks(ws, h, opts, notes);
  // An earlier --no-mcp is kept by a link that does not say (`link --all`), as --session-end is.
  const key = linkKey(h.host, opts.target.root);
  const mcpOff = opts.mcp === false || (opts.mcp === undefined && state.mcp_off?.[key] === true);
  if (!mcpOff) linkMcp(ws, h, opts, state, notes);
  else if (opts.mcp === undefined)
    notes.push("Kept the MCP server out, as an earlier --no-mcp link asked (register it with --mcp).");
  if (mcpOff) state.mcp_off = { ...state.mcp_off, [key]: true };
  else if (state.mcp_off?.[key]) {
    delete state.mcp_off[key];
    if (!Object.keys(state.mcp_off).length) delete state.mcp_off;
  }
  const mode = opts.config[`native_memory.${h.host}`] === "off" ? "off" : "restore";
  if (h.nativeMemory) nativeMemory(ws, h, opts.target, mode, state);
  else if (mode === "off")
    notes.push(
      `${h.name} has no native memory switch Coffer can turn off; native_memory.${h.host} = "off" changes nothing.`,
    );
  if (opts.sessionEnd === true) {
    if (h.sessionEnd === "sweep") enableSweep(ws, h, state, notes);
    else if (h.sessionEnd === "none")
      notes.push(`${h.name} has no session-end event Coffer can use; --session-end changes nothing for it.`);
  }
  notes.push(...(h.reminders ?? []), ...(h.linkNotes?.(opts.target) ?? []));
  const changes = ws.changes();
  // When the hook entries were (re)written: the host needs a new session (Codex: a new trust) to run them.
  const hookFile = hookFileOf(h, opts.target);
  if (changes.some((c) => changed(c) && c.path === hookFile) || !state.linked_at?.[key])
    state.linked_at = { ...state.linked_at, [key]: isoNow() };
  return { host: h.host, scope: opts.target.root ? "project" : "user", changes, notes, state, root: opts.target.root };
}

export function planUnlink(h: HostLink, target: Target): Plan {
  const state = readLinkState();
  if (state.linked_at) delete state.linked_at[linkKey(h.host, target.root)];
  if (state.mcp_off) {
    delete state.mcp_off[linkKey(h.host, target.root)];
    if (!Object.keys(state.mcp_off).length) delete state.mcp_off;
  }
  const ws = new Workspace(state);
  unlinkHooks(ws, h, target);
  unlinkMcp(ws, h, target, state);
  nativeMemory(ws, h, target, "restore", state);
  if (h.sessionEnd === "sweep") restoreSweep(ws, h, state);
  return {
    host: h.host,
    scope: target.root ? "project" : "user",
    changes: ws.changes(),
    notes: [],
    state,
    root: target.root,
  };
}

/** Write a plan's files and the link state; `force` writes read-only files too. */
export function applyPlan(plan: Plan, opts: { force?: boolean; noBackups?: boolean } = {}): void {
  applyChanges(plan.changes, {
    force: opts.force,
    backups: plan.state.backups,
    created: plan.state.created,
    dirs: plan.state.dirs,
    noBackups: opts.noBackups,
    confine: plan.root,
  });
  writeLinkState(plan.state);
}
