/**
 * `coffer doctor`: for every host (user config, and the repository's when it has Coffer's
 * entries) — linked or not, whether the binary in the config still exists and is this one, MCP
 * registration, native-memory state; then config and store/index health. Read-only: it never
 * edits a file. Every problem carries the command that fixes it.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { type SweepState, sweepState } from "../capture/background";
import { type Config, loadConfigOrDefaults, readConfigLenient, retiredKeysNotes } from "../config/config";
import { givenUpSessions, givenUpText, lastSetupFailure } from "../distill/ledger";
import { describeSettings, isCliSettings, resolveModel, setupProblem } from "../distill/model";
import { loadHookAdapter } from "../hosts/index";
import {
  carriesMarker,
  type HookEntry,
  type HookTrust,
  type HostLink,
  type JsonFile,
  type JsonHooks,
  type PluginHooks,
  type Problem,
  type Target,
  type TomlArrayHooks,
} from "../hosts/link";
import { cofferHome, paths } from "../lib/paths";
import { loosePaths } from "../lib/permissions";
import { agoText, localDay, nowMs } from "../lib/time";
import {
  closeStore,
  findRepoRoot,
  injectionRows,
  inspectIndexFile,
  type LastHookEvent,
  lastHookEvents,
  nonRegularInMemory,
  openStore,
  SCHEMA_VERSION,
} from "../store";
import { commandBinary, isCofferBinaryPath } from "./command";
import { planLink } from "./engine";
import { changed, tilde } from "./files";
import { findManaged } from "./hooks-json";
import { managedTomlHooks } from "./hooks-toml";
import { linkKey, readLinkState } from "./state";
import { readDoc } from "./workspace";

export type HostReport = {
  host: string;
  name: string;
  scope: "user" | "project";
  status: "linked" | "partial" | "not linked" | "unreadable";
  hook_file: string;
  events: string[];
  missing_events: string[];
  binaries: string[];
  mcp: { file: string | null; registered: boolean; binary: string | null };
  native_memory: { setting: string; host_value: string | null };
  /** Proof that the hooks fire (null when not linked): the host's last hook event Coffer received, and more. */
  hooks_seen: HooksSeen | null;
  notes: string[];
  problems: Problem[];
  /** Worth a look, not a broken link (doctor still exits 0 for these). */
  warnings: Problem[];
};

export type HooksSeen = {
  /** When the link last wrote its hook entries (state/link.json), else the hooks file's mtime. */
  linked_at: string | null;
  /** The last hook event from this host (any project), or null: none reached this index. */
  last: { event: string; at: string; project: string | null; cwd: string } | null;
  /** Hook events that injected something, over today and the 6 days before. */
  injections_7d: number;
  /** Whether the host will run Coffer's hooks, from its own trust records (Codex), when it keeps any. */
  trust?: { file: string; total: number; trusted: number; untrusted: string[]; modified: string[]; disabled: string[] };
};

export type StoreReport = {
  home: string;
  /** `problems`: what is wrong with config.toml (doctor lists them first: the rest was read through them). */
  config: { file: string; ok: boolean; problems: string[] };
  entries: { global: number; projects: number; project_scopes: number };
  index: {
    file: string;
    state: "ok" | "missing" | "outdated" | "corrupt" | "readonly";
    /** Rows of memory/'s entries (what `entries` counts on disk). */
    entries: number | null;
    /** Rows of the team lanes read on this machine (`.coffer/` in worktrees, not memory/). */
    team_entries: number | null;
  };
  /** The model distillation uses ("`claude -p` (haiku)", "openai/gpt-4o-mini"), null when none. */
  model: string | null;
  /** Why that one (or why none): zero configuration, [model], off. */
  model_why: string;
  /** Whether distillation can call that model now (false: it is named but cannot run; a problem says why). */
  model_ok: boolean;
  /** The last sweep (background, serve's, by hand) and what it did. */
  sweep: SweepState;
  problems: Problem[];
  notes: string[];
};

export type DoctorReport = {
  binary: string;
  hosts: HostReport[];
  store: StoreReport;
  problems: (Problem & { where: string })[];
  warnings: (Problem & { where: string })[];
};

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

function binaryProblems(bins: string[], self: string, host: string, what: string, project: boolean): Problem[] {
  const fix = `coffer link ${host}${project ? " --project" : ""}`;
  const out: Problem[] = [];
  for (const b of new Set(bins)) {
    if (project && b === "coffer") {
      // A repository's config names the portable `coffer`: it must resolve on PATH here.
      if (!Bun.which("coffer"))
        out.push({
          message: `${what} run \`coffer\` from PATH (this repository's config is shared), and there is no coffer on PATH here`,
          fix: `mkdir -p ~/.local/bin && cp ${self} ~/.local/bin/coffer (and put ~/.local/bin on PATH)`,
        });
      continue;
    }
    if (!isAbsolute(b))
      out.push({
        message: `${what} run "${b}", not an absolute path (agents run hooks without your shell's PATH)`,
        fix,
      });
    else if (!existsSync(b)) out.push({ message: `${what} run ${b}, which does not exist`, fix });
    else if (!sameFile(b, self))
      out.push({ message: `${what} run ${b}, not this binary (${self}); re-link to use this one`, fix });
  }
  return out;
}

/** What one host inspection works from: the host, where, and the command that fixes it. */
type Inspect = { h: HostLink; target: Target; project: boolean; fix: string; report: HostReport };

function startReport(h: HostLink, target: Target, config: Config): HostReport {
  return {
    host: h.host,
    name: h.name,
    scope: target.root ? "project" : "user",
    status: "not linked",
    hook_file: "",
    events: [],
    missing_events: [],
    binaries: [],
    mcp: { file: null, registered: false, binary: null },
    native_memory: { setting: String(config[`native_memory.${h.host}`] ?? "keep"), host_value: null },
    hooks_seen: null,
    notes: [],
    problems: [],
    warnings: [],
  };
}

/** A generated plugin: linked when it carries the marker, and the binary it runs. */
function inspectPlugin({ report, fix, target }: Inspect, hooks: PluginHooks, file: string): void {
  report.hook_file = file;
  if (!existsSync(file)) return;
  const text = readFileSync(file, "utf8");
  if (!carriesMarker(text, hooks.marker)) {
    report.notes.push(`${tilde(file)} exists but is not Coffer's (no marker line); Coffer leaves it alone`);
    return;
  }
  report.status = "linked";
  report.events = [...hooks.events];
  const bin = hooks.binaryOf(text);
  if (bin) report.binaries.push(bin);
  else report.problems.push({ message: `${tilde(file)} has no binary path Coffer can read`, fix });
  for (const more of hooks.more?.(target) ?? []) {
    const other = existsSync(more.file) ? readFileSync(more.file, "utf8") : undefined;
    if (other === undefined || !carriesMarker(other, hooks.marker)) {
      report.status = "partial";
      report.problems.push({ message: `${tilde(more.file)} is missing (or not Coffer's)`, fix });
    } else {
      const b = hooks.binaryOf(other);
      if (b) report.binaries.push(b);
    }
  }
}

/** `[[hooks]]` tables: Coffer's, the events missing from a full link, the binaries they run. */
function inspectTomlHooks({ report, fix }: Inspect, hooks: TomlArrayHooks, file: string): void {
  report.hook_file = file;
  if (!existsSync(file)) return;
  const tables = managedTomlHooks(readFileSync(file, "utf8"), hooks.key, tilde(file));
  report.events = [...new Set(tables.map((t) => String(t.event)))];
  report.binaries = tables.map((t) => commandBinary(String(t.command)) ?? "");
  const expected = [...new Set(hooks.events.filter((e) => !e.optIn).map((e) => e.native))];
  report.missing_events = expected.filter((e) => !report.events.includes(e));
  if (tables.length < hooks.events.filter((e) => !e.optIn).length && !report.missing_events.length)
    report.missing_events = [...expected];
  if (report.events.length) report.status = report.missing_events.length ? "partial" : "linked";
  if (report.status === "partial")
    report.problems.push({ message: `hooks missing for ${report.missing_events.join(", ")} in ${tilde(file)}`, fix });
}

/** A hooks file: Coffer's entries, the events missing from a full link, the binaries they run. */
function inspectHookEntries({ report, fix }: Inspect, hooks: JsonHooks, file: JsonFile): void {
  report.hook_file = file.path;
  const doc = readDoc(file);
  if (!doc) return;
  const managed = findManaged(doc, hooks.layout, hooks.root);
  report.events = [...new Set(managed.map((m) => m.event))];
  report.binaries = managed.map((m) => commandBinary(m.command) ?? "");
  const expected = hooks.events.filter((e) => !e.optIn).map((e) => e.native);
  report.missing_events = expected.filter((e) => !report.events.includes(e));
  if (report.events.length) report.status = report.missing_events.length ? "partial" : "linked";
  if (report.status === "partial")
    report.problems.push({
      message: `hooks missing for ${report.missing_events.join(", ")} in ${tilde(file.path)}`,
      fix,
    });
}

/** Whether (and with which binary) the MCP server is registered. */
function inspectMcp({ h, target, report, fix }: Inspect): void {
  try {
    const file = h.mcp.file(target);
    if (!file) return;
    report.mcp.file = file.path;
    const entry = readDoc(file)?.get(h.mcp.path);
    if (entry === undefined) return;
    report.mcp.registered = true;
    report.mcp.binary = h.mcp.binaryOf(entry) ?? null;
  } catch (err) {
    report.problems.push({
      message: `MCP config: ${(err as Error).message}`,
      fix: `fix ${tilde(report.mcp.file ?? "")} by hand, then run: ${fix}`,
    });
  }
}

/** Native memory as the host sees it, against `native_memory.<host>`. */
function inspectNativeMemory({ h, target, report, fix }: Inspect): void {
  const nm = h.nativeMemory;
  if (!nm) return;
  const s = nm.settings[0]!;
  try {
    const v = readDoc(nm.file(target))?.get(s.path);
    report.native_memory.host_value = v === undefined ? "default (on)" : String(v);
  } catch {
    return; // The hooks/MCP checks already reported an unreadable file.
  }
  const seen = report.native_memory;
  if (seen.setting === "off" && seen.host_value !== String(s.off) && report.status !== "not linked") {
    report.problems.push({
      message: `native_memory.${h.host} = "off", but ${s.path.join(".")} is ${seen.host_value}`,
      fix,
    });
  }
}

/** The binaries the hooks and the MCP entry run must exist and be this one; MCP should be registered. */
function checkBinaries({ h, project, report, fix }: Inspect, self: string): void {
  report.problems.push(...binaryProblems(report.binaries, self, h.host, "hooks", project));
  if (report.mcp.registered && report.mcp.binary !== null && isCofferBinaryPath(report.mcp.binary)) {
    report.problems.push(...binaryProblems([report.mcp.binary], self, h.host, "the MCP server would", project));
  } else if (!report.mcp.registered && report.mcp.file) {
    report.notes.push(`MCP server not registered (agents cannot call coffer__recall / coffer__remember): ${fix}`);
  }
}

/** Anything else a fresh link would still change in the hooks file (matchers, timeouts, stale events) is drift. */
function checkDrift({ h, target, project, report, fix }: Inspect, self: string, config: Config): void {
  try {
    const plan = planLink(h, { target, bin: project ? "coffer" : self, mcp: report.mcp.registered, config });
    const hookFile = report.hook_file;
    if (plan.changes.some((c) => changed(c) && c.path === hookFile))
      report.problems.push({ message: `Coffer's entries in ${tilde(hookFile)} are out of date`, fix });
  } catch {}
}

function inspectHost(h: HostLink, target: Target, self: string, config: Config): HostReport {
  const project = !!target.root;
  const report = startReport(h, target, config);
  const at: Inspect = { h, target, project, fix: `coffer link ${h.host}${project ? " --project" : ""}`, report };
  try {
    if (h.hooks.kind === "plugin") inspectPlugin(at, h.hooks, h.hooks.file(target));
    else if (h.hooks.kind === "toml-array") inspectTomlHooks(at, h.hooks, h.hooks.file(target));
    else if (h.hooks.kind === "json") inspectHookEntries(at, h.hooks, h.hooks.file(target));
  } catch (err) {
    report.status = "unreadable";
    report.problems.push({
      message: (err as Error).message,
      fix: `fix ${tilde(report.hook_file)} by hand, then run: ${at.fix}`,
    });
    return report;
  }
  inspectMcp(at);
  // A host reached through MCP alone (Goose): linked when Coffer's server is registered.
  if (h.hooks.kind === "none" && report.mcp.registered) {
    report.status = "linked";
    report.notes.push(h.hooks.why);
  }
  inspectNativeMemory(at);
  listLeftovers(at);
  const other = h.otherWayIn?.(target);
  if (report.status === "not linked") {
    if (report.mcp.registered) report.notes.push(`MCP registered in ${tilde(report.mcp.file!)}, but no hooks`);
    if (other) {
      report.notes.push(
        `${h.name} gets Coffer through ${other.what}: its hooks and MCP server run \`coffer\` from PATH`,
      );
      if (!Bun.which("coffer"))
        report.problems.push({
          message: `${other.what} runs \`coffer\` from PATH, and there is no coffer on PATH`,
          fix: `put the coffer binary on PATH (install.sh puts it in ~/.local/bin), or remove the plugin (${other.remove}) and run: ${at.fix}`,
        });
    }
    return report;
  }
  if (other)
    report.problems.push({
      message: `${h.name} gets Coffer twice, through ${other.what} and through this link: every hook injects twice and the MCP tools are listed twice`,
      fix: `${other.remove}   (or keep the plugin and run: coffer unlink ${h.host}${project ? " --project" : ""})`,
    });
  checkBinaries(at, self);
  report.problems.push(...(h.doctorChecks?.(target) ?? []));
  if (!report.problems.length) checkDrift(at, self, config);
  // A host whose trust records doctor reads gets their verdict (checkHooksSeen), not the reminder.
  if (!h.hookTrust || h.hooks.kind !== "json") report.notes.push(...(h.reminders ?? []));
  return report;
}

/** Coffer's hook handlers in a JSON hooks file, with their group, place and matcher. */
function hookEntries(file: JsonFile, hooks: JsonHooks): HookEntry[] {
  const doc = readDoc(file);
  if (!doc || hooks.layout !== "grouped") return [];
  return findManaged(doc, hooks.layout).flatMap((m) => {
    const [, event, group, , index] = m.path as [string, string, number, string, number];
    const handler = doc.get(m.path);
    const matcher = doc.get(["hooks", event, group, "matcher"]);
    if (!handler || typeof handler !== "object") return [];
    return [
      {
        file: file.path,
        event,
        group,
        index,
        ...(typeof matcher === "string" ? { matcher } : {}),
        handler: handler as Record<string, unknown>,
      },
    ];
  });
}

const DAY_MS = 86_400_000;

/** What the index knows about hook events: the last per host, and injections per host over 7 days. */
type HookFacts = { last: Map<string, LastHookEvent>; injections: Map<string, number> };

function readHookFacts(cwd: string, config: Config): HookFacts {
  const facts: HookFacts = { last: new Map(), injections: new Map() };
  if (!existsSync(paths.indexDb()) || inspectIndexFile().state !== "ok") return facts;
  try {
    const store = openStore({ cwd, freshness: "none", config });
    try {
      for (const e of lastHookEvents(store)) facts.last.set(e.host, e);
      for (const r of injectionRows(store, localDay(nowMs() - 6 * DAY_MS)))
        facts.injections.set(r.host, (facts.injections.get(r.host) ?? 0) + r.events);
    } finally {
      closeStore(store);
    }
  } catch {} // an unreadable index is reported with the store
  return facts;
}

/**
 * Proof that a linked host's hooks fire: its last hook event and injections over 7 days; for a
 * host that records hook trust (Codex), what it trusts; a warning, with the likely causes, when
 * nothing arrived for a day after linking, or when the host will not run some of Coffer's hooks.
 */
async function checkHooksSeen(h: HostLink, target: Target, report: HostReport, facts: HookFacts, config: Config) {
  if (report.status !== "linked" && report.status !== "partial") return;
  if (h.hooks.kind === "none") return;
  const now = nowMs();
  let linkedAt = readLinkState().linked_at?.[linkKey(h.host, target.root)] ?? null;
  if (!linkedAt) {
    try {
      linkedAt = new Date(statSync(report.hook_file).mtimeMs).toISOString().replace(/\.\d{3}Z$/, "Z");
    } catch {}
  }
  const last = facts.last.get(h.host);
  const seen: HooksSeen = {
    linked_at: linkedAt,
    last: last
      ? {
          event: last.event,
          at: new Date(last.at_ms).toISOString().replace(/\.\d{3}Z$/, "Z"),
          project: last.project,
          cwd: last.cwd,
        }
      : null,
    injections_7d: facts.injections.get(h.host) ?? 0,
  };
  report.hooks_seen = seen;
  const causes: string[] = [];
  if (h.hookTrust && h.hooks.kind === "json") {
    const entries = hookEntries(h.hooks.file(target), h.hooks);
    const { file, trust } = h.hookTrust(target, entries);
    const named = (t: HookTrust) => entries.filter((_, i) => trust[i] === t).map((e) => e.event);
    seen.trust = {
      file,
      total: entries.length,
      trusted: trust.filter((t) => t === "trusted").length,
      untrusted: named("untrusted"),
      modified: named("modified"),
      disabled: named("disabled"),
    };
    const t = seen.trust;
    if (t.total && t.trusted === t.total)
      report.notes.push(`${h.name} trusts all ${t.total} of Coffer's hooks (${tilde(file)})`);
    else if (t.total) {
      const parts = [
        t.untrusted.length ? `not trusted yet: ${t.untrusted.join(", ")}` : "",
        t.modified.length ? `changed since you trusted them: ${t.modified.join(", ")}` : "",
        t.disabled.length ? `switched off: ${t.disabled.join(", ")}` : "",
      ].filter(Boolean);
      report.warnings.push({
        message: `${h.name} will not run ${t.total - t.trusted} of Coffer's ${t.total} hooks (${parts.join("; ")}; from ${tilde(file)})`,
        fix: `start ${h.host}, type /hooks, and trust (and enable) the Coffer entries`,
      });
      causes.push(`${h.name} has not trusted Coffer's hooks (see above)`);
    }
  }
  if (config["hook.read"] === "off") {
    report.notes.push("hook.read is off: the hooks answer nothing and are not recorded");
    return;
  }
  const adapter = await loadHookAdapter(h.host);
  if (!adapter.injects.length) {
    report.notes.push(`${h.name}'s hooks inject nothing (Coffer reaches it through MCP), so none is recorded`);
    return;
  }
  const since = linkedAt ? Date.parse(linkedAt) : Number.NaN;
  const noneSince = !last || (!Number.isNaN(since) && last.at_ms < since);
  if (noneSince && !Number.isNaN(since) && now - since > DAY_MS) {
    if (report.problems.some((p) => /does not exist|not this binary/.test(p.message)))
      causes.push("the binary the hooks run moved (see the problem above)");
    causes.push(`a ${h.name} session started before linking does not load new hooks: start a new one`);
    if (h.host === "codex" && !seen.trust) causes.push("Codex runs hooks only after you trust them in /hooks");
    causes.push(`or ${h.name} was not used since`);
    report.warnings.push({
      message: `no hook event from ${h.name} since it was linked ${agoText(now - since)}${last ? ` (last: ${last.event} ${agoText(now - last.at_ms)})` : ""}`,
      fix: `likely causes: ${causes.join("; ")}`,
    });
  }
}

/** Backups left next to this host's config files (`<file>.bak`, `<file>.bak.N`): listed, never deleted. */
function listLeftovers({ h, target, report }: Inspect): void {
  const files = new Set<string>();
  try {
    if (h.hooks.kind === "json") files.add(h.hooks.file(target).path);
    else if (h.hooks.kind !== "none") files.add(h.hooks.file(target));
    const mcp = h.mcp.file(target);
    if (mcp) files.add(mcp.path);
    if (h.nativeMemory) files.add(h.nativeMemory.file(target).path);
  } catch {
    return;
  }
  for (const file of files) {
    let names: string[] = [];
    try {
      names = readdirSync(dirname(file));
    } catch {
      continue;
    }
    const bak = `${basename(file)}.bak`;
    for (const n of names.filter(
      (n) => n === bak || (n.startsWith(`${bak}.`) && /^\d+$/.test(n.slice(bak.length + 1))),
    ))
      report.notes.push(
        `backup left: ${tilde(join(dirname(file), n))} (an earlier version Coffer kept; delete it when you no longer need it)`,
      );
  }
}

function countEntries(dir: string): number {
  try {
    return readdirSync(dir).filter((n) => n.endsWith(".md")).length;
  } catch {
    return 0;
  }
}

/** Files and folders in COFFER_HOME that other users could read (stores made before Coffer kept them private). */
function checkPermissions(report: StoreReport): void {
  const home = cofferHome();
  if (!existsSync(home)) return;
  const loose = loosePaths(home);
  if (!loose.length) return;
  const first = loose[0]!;
  report.problems.push({
    message: `${loose.length} file${loose.length === 1 ? "" : "s"} or folder${loose.length === 1 ? "" : "s"} in ${tilde(home)} can be read by other users (e.g. ${tilde(first.path)} is ${first.mode.toString(8)}; Coffer keeps folders 700 and files 600)`,
    fix: "coffer doctor --fix",
  });
}

function inspectStore(config: Config): StoreReport {
  const report: StoreReport = {
    home: cofferHome(),
    config: { file: paths.config(), ok: true, problems: [] },
    entries: { global: 0, projects: 0, project_scopes: 0 },
    index: { file: paths.indexDb(), state: "ok", entries: null, team_entries: null },
    model: null,
    model_why: "",
    model_ok: false,
    sweep: sweepState(config),
    problems: [],
    notes: [],
  };
  // Every problem, not just the first: hooks and the web UI keep the valid keys and skip these.
  report.config.problems = readConfigLenient().problems;
  if (report.config.problems.length) {
    report.config.ok = false;
    for (const message of report.config.problems)
      report.problems.push({
        message,
        fix: `edit ${tilde(paths.config())} (see \`coffer config get\` for the keys)`,
      });
  }
  // With a broken config.toml, what its valid keys (else the defaults) give, as the hooks use it.
  const choice = resolveModel(config);
  const unloaded = report.config.ok ? "" : " (config.toml does not load: its valid keys and the defaults)";
  report.model = choice.settings ? describeSettings(choice.settings) : null;
  report.model_why = `${choice.why}${unloaded}`;
  report.model_ok = !!choice.settings;
  if (choice.source === "none")
    report.notes.push(
      "nothing is distilled: link an agent whose CLI is installed (coffer link claude), or configure a model (see `coffer distill run --help`)",
    );
  else if (choice.settings && isCliSettings(choice.settings) && !choice.settings.cli) {
    report.model_ok = false;
    report.problems.push({
      message: choice.why,
      fix: "install the agent's CLI, or choose another model: coffer config set model.provider <provider>",
    });
  } else if (choice.settings) {
    // The last model call failed for the machine's set-up (never logged in, ...): said once, however many sessions wait.
    const failed = lastSetupFailure();
    const provider = failed?.model?.split("/")[0];
    const problem = provider === choice.settings.provider ? setupProblem(failed?.error, provider) : undefined;
    if (failed && problem) {
      report.model_ok = false;
      report.problems.push({
        message: `${problem.message} (the last distillation attempt, ${agoText(Date.now() - Date.parse(failed.at))}); no session is counted as failed for it`,
        fix: problem.fix,
      });
    }
  }
  // A key Coffer no longer reads is ignored, never a problem: said once here.
  for (const why of retiredKeysNotes())
    report.notes.push(`${why} (${tilde(paths.config())} still sets it: ignored, it can be deleted)`);
  checkPermissions(report);
  for (const file of nonRegularInMemory())
    report.problems.push({
      message: `${tilde(file)} is a symbolic link or not a regular file: Coffer never reads it (sync removes such files)`,
      fix: `rm ${JSON.stringify(file)}`,
    });
  report.entries.global = countEntries(join(paths.globalScope(), "entries"));
  try {
    for (const id of readdirSync(paths.projectsRoot())) {
      report.entries.project_scopes++;
      report.entries.projects += countEntries(join(paths.projectScope(id), "entries"));
    }
  } catch {}
  const file = paths.indexDb();
  if (!existsSync(file)) {
    report.index.state = "missing";
    report.notes.push("index.db does not exist yet; the next command builds it (or run `coffer reindex`)");
    return report;
  }
  const index = inspectIndexFile(file);
  if (index.state === "corrupt") {
    report.index.state = "corrupt";
    report.problems.push({ message: `index.db ${index.detail}`, fix: "coffer reindex" });
  } else if (index.state === "readonly") {
    report.index.state = "readonly";
    report.index.entries = index.entries;
    report.index.team_entries = index.team;
    report.problems.push({
      message: `${tilde(cofferHome())} is read-only (${index.detail}): recall, hooks and the web UI read it, but nothing can be saved`,
      fix: `make it writable again: chmod -R u+w ${tilde(cofferHome())} (a read-only mount: remount it read-write)`,
    });
  } else if (index.state === "outdated") {
    report.index.state = "outdated";
    report.notes.push(
      `index.db has schema ${index.version} (this binary uses ${SCHEMA_VERSION}); the next command rebuilds it`,
    );
  } else {
    report.index.entries = index.entries;
    report.index.team_entries = index.team;
    // Team lanes live in worktrees, not memory/: only memory/'s rows are compared with memory/.
    const onDisk = report.entries.global + report.entries.projects;
    if (report.index.entries !== onDisk) {
      report.notes.push(
        `index.db lists ${report.index.entries} entries, memory/ holds ${onDisk}; the next command catches up (or run \`coffer reindex\`)`,
      );
    }
  }
  return report;
}

export async function runDoctor(hosts: HostLink[], cwd: string, home: string): Promise<DoctorReport> {
  const self = process.execPath;
  // A broken config.toml is reported (first), never a reason to skip the other checks: they use its
  // valid keys and the defaults, as the hooks do.
  const config = loadConfigOrDefaults();
  const repo = findRepoRoot(cwd);
  const facts = readHookFacts(cwd, config);
  const out: HostReport[] = [];
  for (const h of hosts) {
    const user = inspectHost(h, { home }, self, config);
    await checkHooksSeen(h, { home }, user, facts, config);
    out.push(user);
    if (repo && repo.worktree !== home && !h.userOnly) {
      const target = { home, root: repo.worktree };
      const p = inspectHost(h, target, self, config);
      await checkHooksSeen(h, target, p, facts, config);
      if (p.status !== "not linked" || p.problems.length) out.push(p);
      // Both links fire on every event: each hook runs twice (the second delivers nothing new,
      // but the agent waits for both, and session-start context may arrive twice).
      if (user.status !== "not linked" && p.status !== "not linked")
        p.warnings.push({
          message: `${h.host} is linked twice here, for your user and for this project (${repo.worktree}): every hook runs twice`,
          fix: `keep one: coffer unlink ${h.host} --project (or coffer unlink ${h.host} for your user)`,
        });
    }
  }
  const store = inspectStore(config);
  const where = (r: HostReport) => `${r.host}${r.scope === "project" ? " (project)" : ""}`;
  // The config's own problems first: what else doctor says was read through them.
  const fromConfig = new Set(store.config.problems);
  const configProblems = store.problems.filter((p) => fromConfig.has(p.message));
  const problems = [
    ...configProblems.map((p) => ({ where: "config", ...p })),
    ...out.flatMap((r) => r.problems.map((p) => ({ where: where(r), ...p }))),
    ...store.problems.filter((p) => !configProblems.includes(p)).map((p) => ({ where: "store", ...p })),
  ];
  const warnings = out.flatMap((r) => r.warnings.map((p) => ({ where: where(r), ...p })));
  // Sessions the sweep gave up on: a warning, so "nothing to do" never hides them.
  const skipped = givenUpSessions();
  if (skipped.length)
    warnings.push({
      where: "distill",
      message: `${skipped.length === 1 ? "1 session is" : `${skipped.length} sessions are`} skipped by the sweep after failed tries: ${skipped
        .slice(0, 3)
        .map((g) => `${g.host} ${g.session_id} (last: ${g.error})`)
        .join(", ")}${skipped.length > 3 ? ", ..." : ""}`,
      fix:
        skipped.length === 1
          ? givenUpText(skipped[0]!).replace(/^.*?; /, "")
          : "coffer distill list shows them; coffer distill run <session> --force tries one again",
    });
  return { binary: self, hosts: out, store, problems, warnings };
}
