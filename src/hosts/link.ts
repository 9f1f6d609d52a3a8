/**
 * What one host's link.ts declares: where its configs live, which events Coffer installs with
 * which matcher and timeout, where and how the MCP server is registered, and its native-memory
 * switches. The engine (`src/link/engine.ts`) does the editing; a host file holds only facts.
 */

import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CliProvider, Host } from "../lib/hosts";
import type { Dialect } from "../lib/jsonc";
import type { HookEvent } from "./hook";

/** Where to link: the user's home, or a repository root with `--project`. */
export type Target = { home: string; root?: string };

export type HookSpec = {
  /** The host's own event name (`SessionStart`, `sessionStart`, `pre_user_prompt`, ...). */
  native: string;
  event: HookEvent;
  matcher?: string;
  /** In the host's unit (seconds; Gemini milliseconds). */
  timeout?: number;
  /** Installed only with `--session-end`. */
  optIn?: boolean;
};

export type JsonFile = { path: string; dialect: Dialect };

export type JsonHooks = {
  kind: "json";
  /**
   * grouped: `{matcher, hooks: [entry]}` per event (Claude, Codex, Gemini); flat: `[entry]`
   * (Cursor, Windsurf); mixed: both in one map, an event with a matcher grouped, one without flat
   * (Antigravity's tool events take a matcher, its invocation events a plain list).
   */
  layout: "grouped" | "flat" | "mixed";
  /**
   * Where the map of events sits: the file's `hooks` key (the default), or one named entry
   * (Antigravity's `hooks.json` maps hook names to events: `["coffer"]`).
   */
  root?: string[];
  file: (t: Target) => JsonFile;
  events: HookSpec[];
  entry: (command: string, spec: HookSpec) => Record<string, unknown>;
  /** Top-level keys a file Coffer creates starts with (Cursor: `version: 1`). */
  skeleton?: Record<string, unknown>;
};

export type PluginHooks = {
  kind: "plugin";
  file: (t: Target) => string;
  /** The exact first line that marks the file as Coffer's; a file without it is never overwritten. */
  marker: string;
  render: (bin: string) => string;
  /** The binary path a generated plugin runs (for doctor). */
  binaryOf: (text: string) => string | undefined;
  /** Events the plugin forwards (for messages). */
  events: string[];
  /**
   * More files like `file`, each with the same marker line (Cline runs every file of its hooks
   * folder named after an event: one file per event). Linked, checked and removed with `file`.
   */
  more?: (t: Target) => { file: string; render: (bin: string) => string }[];
};

/**
 * Hooks as tables of a TOML array (`[[hooks]]` in Kimi Code's `config.toml`): one table per
 * spec, found again by its command. Only the keys `entry` gives are written.
 */
export type TomlArrayHooks = {
  kind: "toml-array";
  file: (t: Target) => string;
  /** The array's name (`hooks`). */
  key: string;
  events: HookSpec[];
  entry: (command: string, spec: HookSpec) => Record<string, unknown>;
};

/** A host with no hook that can help (Goose's are observe-only): MCP alone, and why. */
export type NoHooks = { kind: "none"; why: string };

/** A config file the engine edits: JSON in one of its dialects, TOML or YAML. */
export type ConfigFile = { path: string; dialect: Dialect | "toml" | "yaml" };

export type Mcp = {
  /** undefined: the host has no MCP config for this target (with a reason in `unavailable`). */
  file: (t: Target) => ConfigFile | undefined;
  /** Where the entry sits (`["mcpServers", "coffer"]`, `["mcp_servers", "coffer"]`). */
  path: string[];
  /** The whole entry as Coffer creates it. */
  value: (bin: string) => Record<string, unknown>;
  /**
   * Keys a re-link keeps in sync (default: every key of `value`). Anything else in an existing
   * entry (`env`, `trust`, `enabled`, timeouts) is the user's and stays as they set it.
   */
  managed?: string[];
  /** The binary a registration runs, to tell Coffer's entry from someone else's. */
  binaryOf: (entry: unknown) => string | undefined;
  unavailable?: (t: Target) => string;
};

export type NativeSetting = { path: string[]; off: boolean };

export type NativeMemory = { file: (t: Target) => ConfigFile; settings: NativeSetting[] };

export type Problem = { message: string; fix: string };

/** One of Coffer's hook handlers as it sits in a hooks file: event (the host's name), group and place in it. */
export type HookEntry = {
  file: string;
  event: string;
  group: number;
  index: number;
  matcher?: string;
  handler: Record<string, unknown>;
};

/** Whether the host will run a hook entry, as its own trust records say. */
export type HookTrust = "trusted" | "untrusted" | "modified" | "disabled";

/** Another way Coffer reaches a host besides `coffer link` (Claude Code's coffer plugin): what it is, how to remove it. */
export type OtherWayIn = { what: string; remove: string };

export type HostLink = {
  host: Host;
  /** The product's name, for messages. */
  name: string;
  hooks: JsonHooks | PluginHooks | TomlArrayHooks | NoHooks;
  mcp: Mcp;
  nativeMemory?: NativeMemory;
  /** How `--session-end` is honoured: a SessionEnd hook, the transcript sweep, or not at all. */
  sessionEnd: "hook" | "sweep" | "none";
  /**
   * What the host gets from Coffer besides the files above, as the README's host table says it
   * (test/hosts/capabilities.test.ts holds both to the code: the hook adapter's events, the
   * transcript readers, the summarisers, the native harvest).
   */
  gets: {
    /** The rules bundle at session start: through a hook or plugin, as the MCP server's instructions, or not at all. */
    bundle: "hook" | "mcp" | "none";
    /** Memory routed to each prompt, only what the session has not seen. */
    promptDelta: boolean;
    /** The host's file tools whose paths bring the entries that apply to them (none: no path triggers). */
    pathTriggers: string[];
    /** The bundle and the parent's delivered set for a subagent. */
    subagents: boolean;
    /** `model.provider` that runs this host's CLI headless as Coffer's distillation model. */
    summariser?: CliProvider;
    /** The host's own memory files harvested into Coffer (src/import/native-sources.ts). */
    harvest: boolean;
  };
  /**
   * How `link --all` tells the host is installed: any of these folders under home, or a binary on
   * PATH. `env`: the variable that moves the host's folder (`COPILOT_HOME`); when set, its folder
   * counts too (`envTilde`: the host expands a leading `~` in it, see `envDir`).
   */
  installed: { dirs: string[]; bins: string[]; env?: string; envTilde?: boolean };
  /** What the user must do for the link to work (Codex's /hooks trust step): printed after a link and by doctor. */
  reminders?: string[];
  /** Printed after a link. */
  linkNotes?: (t: Target) => string[];
  /** Host-specific checks for doctor (e.g. hooks switched off in the host's own settings). */
  doctorChecks?: (t: Target) => Problem[];
  /**
   * For a host that runs only hooks the user trusted and records that in a file (Codex): each of
   * Coffer's entries as that file says, and where it looked. Doctor reads it instead of guessing.
   */
  hookTrust?: (t: Target, entries: HookEntry[]) => { file: string; trust: HookTrust[] };
  /** Why this host has no project-level link (Kimi Code reads hooks from the user's config only). */
  userOnly?: string;
  /** For doctor: Coffer reaching this host another way (both at once would inject twice). */
  otherWayIn?: (t: Target) => OtherWayIn | undefined;
};

/** True when `text`'s first line is exactly the plugin's marker line (a similar line is someone else's). */
export function carriesMarker(text: string, marker: string): boolean {
  const nl = text.indexOf("\n");
  const first = nl < 0 ? text : text.slice(0, nl);
  return first.replace(/\r$/, "") === marker;
}

/** A host's config folder (`.claude`, `.codex`, ...) under the repository with `--project`, else under home. */
export function configDir(t: Target, name: string): string {
  return join(t.root ?? t.home, name);
}

/** The arguments that start Coffer's MCP server. */
export const SERVE_ARGS = ["serve", "--stdio"];

/** `{command, args}`: the MCP entry shape most hosts share. */
export function stdioServer(bin: string): { command: string; args: string[] } {
  return { command: bin, args: [...SERVE_ARGS] };
}

/** The `command` of an MCP entry (`binaryOf` for the `{command, args}` shape). */
export function commandOf(entry: unknown): string | undefined {
  const command = entry && typeof entry === "object" ? (entry as { command?: unknown }).command : undefined;
  return typeof command === "string" ? command : undefined;
}

/**
 * The folder an environment variable moves a host's config to (`COPILOT_HOME`, `CLINE_DIR`,
 * `QWEN_HOME`, `PI_CODING_AGENT_DIR`), resolved as that CLI does: a relative path from the working
 * directory, and with `tilde` (Qwen, Pi) `~` and `~/…` from home; Copilot 1.0.102 and Cline take a
 * literal `~/x` as a folder named `~` in the working directory. undefined when unset or blank.
 */
export function envDir(name: string, home: string, tilde: boolean): string | undefined {
  const value = process.env[name]?.trim();
  if (!value) return undefined;
  if (!tilde) return resolve(value);
  if (value === "~") return home;
  if (value.startsWith("~/") || value.startsWith("~\\")) return join(home, value.slice(2));
  return resolve(value);
}

/** Why a host counts as installed (its config folder, or its binary on PATH), or undefined. */
export function installedEvidence(
  h: HostLink,
  home: string,
  which: (bin: string) => string | null = Bun.which,
): string | undefined {
  const moved = h.installed.env ? envDir(h.installed.env, home, h.installed.envTilde ?? false) : undefined;
  if (moved) {
    try {
      if (statSync(moved).isDirectory()) return `$${h.installed.env}`;
    } catch {}
  }
  for (const d of h.installed.dirs) {
    try {
      if (statSync(join(home, d)).isDirectory()) return `~/${d}`;
    } catch {}
  }
  for (const b of h.installed.bins) if (which(b)) return `${b} on PATH`;
  return undefined;
}
