/**
 * `coffer doctor`: for every host (user config, and the repository's when it has Coffer's
 * entries) — linked or not, whether the binary in the config still exists and is this one, MCP
 * registration, native-memory state; then config and store/index health. Read-only: it never
 * edits a file. Every problem carries the command that fixes it.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { describeSettings, isCliSettings, resolveModel } from "../distill/model";
import {
  carriesMarker,
  type HostLink,
  type JsonFile,
  type JsonHooks,
  type PluginHooks,
  type Problem,
  type Target,
} from "../hosts/link";
import { cofferHome, paths } from "../lib/paths";
import { loosePaths } from "../lib/permissions";
import { type Config, configDefaults, loadConfig, readConfigLenient } from "../store/config";
import { inspectIndexFile, SCHEMA_VERSION } from "../store/db";
import { nonRegularInMemory } from "../store/indexer";
import { findRepoRoot } from "../store/scope";
import { commandBinary, isCofferBinaryPath } from "./command";
import { planLink } from "./engine";
import { changed, tilde } from "./files";
import { findManaged } from "./hooks-json";
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
  notes: string[];
  problems: Problem[];
};

export type StoreReport = {
  home: string;
  config: { file: string; ok: boolean };
  entries: { global: number; projects: number; project_scopes: number };
  index: { file: string; state: "ok" | "missing" | "outdated" | "corrupt"; entries: number | null };
  /** The model distillation uses ("`claude -p` (haiku)", "openai/gpt-4o-mini"), null when none. */
  model: string | null;
  /** Why that one (or why none): zero configuration, [model], off. */
  model_why: string;
  problems: Problem[];
  notes: string[];
};

export type DoctorReport = {
  binary: string;
  hosts: HostReport[];
  store: StoreReport;
  problems: (Problem & { where: string })[];
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
    notes: [],
    problems: [],
  };
}

/** A generated plugin: linked when it carries the marker, and the binary it runs. */
function inspectPlugin({ report, fix }: Inspect, hooks: PluginHooks, file: string): void {
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
}

/** A hooks file: Coffer's entries, the events missing from a full link, the binaries they run. */
function inspectHookEntries({ report, fix }: Inspect, hooks: JsonHooks, file: JsonFile): void {
  report.hook_file = file.path;
  const doc = readDoc(file);
  if (!doc) return;
  const managed = findManaged(doc, hooks.layout);
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
    else inspectHookEntries(at, h.hooks, h.hooks.file(target));
  } catch (err) {
    report.status = "unreadable";
    report.problems.push({
      message: (err as Error).message,
      fix: `fix ${tilde(report.hook_file)} by hand, then run: ${at.fix}`,
    });
    return report;
  }
  inspectMcp(at);
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
  report.notes.push(...(h.reminders ?? []));
  return report;
}

/** Backups left next to this host's config files (`<file>.bak`, `<file>.bak.N`): listed, never deleted. */
function listLeftovers({ h, target, report }: Inspect): void {
  const files = new Set<string>();
  try {
    files.add(h.hooks.kind === "plugin" ? h.hooks.file(target) : h.hooks.file(target).path);
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

function inspectStore(): StoreReport {
  const report: StoreReport = {
    home: cofferHome(),
    config: { file: paths.config(), ok: true },
    entries: { global: 0, projects: 0, project_scopes: 0 },
    index: { file: paths.indexDb(), state: "ok", entries: null },
    model: null,
    model_why: "",
    problems: [],
    notes: [],
  };
  try {
    const config = loadConfig();
    const choice = resolveModel(config);
    report.model = choice.settings ? describeSettings(choice.settings) : null;
    report.model_why = choice.why;
    if (choice.source === "none")
      report.notes.push(
        "nothing is distilled: link an agent whose CLI is installed (coffer link claude), or configure a model (see `coffer distill run --help`)",
      );
    else if (choice.settings && isCliSettings(choice.settings) && !choice.settings.cli)
      report.problems.push({
        message: choice.why,
        fix: "install the agent's CLI, or choose another model: coffer config set model.provider <provider>",
      });
  } catch {
    // Every problem, not just the first: hooks and the web UI keep the valid keys and skip these.
    report.config.ok = false;
    for (const message of readConfigLenient().problems)
      report.problems.push({
        message,
        fix: `edit ${tilde(paths.config())} (see \`coffer config get\` for the keys)`,
      });
  }
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
  } else if (index.state === "outdated") {
    report.index.state = "outdated";
    report.notes.push(
      `index.db has schema ${index.version} (this binary uses ${SCHEMA_VERSION}); the next command rebuilds it`,
    );
  } else {
    report.index.entries = index.entries;
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
  let config: Config = configDefaults();
  try {
    config = loadConfig();
  } catch {}
  const repo = findRepoRoot(cwd);
  const out: HostReport[] = [];
  for (const h of hosts) {
    out.push(inspectHost(h, { home }, self, config));
    if (repo && repo.worktree !== home) {
      const p = inspectHost(h, { home, root: repo.worktree }, self, config);
      if (p.status !== "not linked" || p.problems.length) out.push(p);
    }
  }
  const store = inspectStore();
  const problems = [
    ...out.flatMap((r) =>
      r.problems.map((p) => ({ where: `${r.host}${r.scope === "project" ? " (project)" : ""}`, ...p })),
    ),
    ...store.problems.map((p) => ({ where: "store", ...p })),
  ];
  return { binary: self, hosts: out, store, problems };
}
