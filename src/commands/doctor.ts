import { existsSync } from "node:fs";
import { defineCommand } from "citty";
import { allHostLinks } from "../hosts/index";
import { handle } from "../lib/handle";
import { writeErr, writeOut } from "../lib/output";
import { cofferHome, homeDir } from "../lib/paths";
import { loosePaths, tighten } from "../lib/permissions";
import { agoText } from "../lib/time";
import { type DoctorReport, type HostReport, runDoctor } from "../link/doctor";
import { tilde } from "../link/files";
import type { SyncConflict } from "../store";
import { withExamples } from "./_run";
import { jsonArg, paint, plural, printJson, short } from "./_shared";

const OK = () => paint.ok("✓");
const BAD = () => paint.bad("✗");
const NA = () => paint.dim("·");
const WARN = () => paint.bad("!");

function hostLine(r: HostReport): string {
  const mark = r.problems.length ? BAD() : r.warnings.length ? WARN() : r.status === "linked" ? OK() : NA();
  const scope = r.scope === "project" ? " (project)" : "";
  if (r.status === "not linked")
    return `  ${mark} ${r.host}${scope}: not linked (coffer link ${r.host}${r.scope === "project" ? " --project" : ""})`;
  const parts = [`${r.status}: ${r.events.join(", ") || "no events"} in ${tilde(r.hook_file)}`];
  parts.push(r.mcp.registered ? `MCP in ${tilde(r.mcp.file!)}` : r.mcp.file ? "MCP not registered" : "no MCP config");
  if (r.native_memory.host_value !== null)
    parts.push(`native memory ${r.native_memory.setting} (host: ${r.native_memory.host_value})`);
  return `  ${mark} ${r.host}${scope}: ${parts.join("; ")}`;
}

const ago = (iso: string) => agoText(Date.now() - Date.parse(iso));

/** The proof the hooks fire: the last event Coffer received from the host, and injections this week. */
function hooksLine(r: HostReport): string | undefined {
  const s = r.hooks_seen;
  if (!s) return undefined;
  const last = s.last
    ? `last ${s.last.event} ${ago(s.last.at)}${s.last.project ? ` in ${s.last.project}` : ""}`
    : `none seen${s.linked_at ? ` since linked ${ago(s.linked_at)}` : ""}`;
  return `      hooks: ${last}; ${plural(s.injections_7d, "injection")} in 7 days`;
}

/** One project's staleness check (store/stale.ts) as doctor reports it. */
type StaleFigure = { project: string; checked: number; stale: number; kept: number };

/** A repository whose committed `.coffer/rules.md` adds rules to its sessions. */
type TeamRules = { repository: string; file: string; rules: number };

function render(report: DoctorReport, stale: StaleFigure[] = [], teamRules: TeamRules[] = []): string {
  const out: string[] = [`Binary: ${report.binary}`];
  // A broken config.toml first: everything below was read with its valid keys and the defaults.
  const config = report.store.config;
  if (!config.ok)
    out.push(
      `${BAD()} config ${tilde(config.file)} does not load as written: ${plural(config.problems.length, "problem")} (listed below); the checks below use its valid keys and the defaults`,
    );
  out.push("", "Agents:");
  for (const r of report.hosts) {
    out.push(hostLine(r));
    const hooks = hooksLine(r);
    if (hooks) out.push(hooks);
    for (const n of r.notes) out.push(`      note: ${n}`);
  }
  const s = report.store;
  out.push("", "Store:");
  out.push(
    !s.config.ok
      ? `  ${BAD()} config ${tilde(s.config.file)}`
      : existsSync(s.config.file)
        ? `  ${OK()} config ${tilde(s.config.file)}`
        : `  ${NA()} config ${tilde(s.config.file)}: defaults (no file yet)`,
  );
  out.push(
    `  ${NA()} ${plural(s.entries.global, "global entry", "global entries")}, ${plural(s.entries.projects, "project entry", "project entries")} in ${plural(s.entries.project_scopes, "project")}`,
  );
  out.push(
    `  ${s.index.state === "corrupt" || s.index.state === "readonly" ? BAD() : s.index.state === "ok" ? OK() : NA()} index ${tilde(s.index.file)}: ${s.index.state === "readonly" ? "read-only" : s.index.state}${s.index.entries !== null ? ` (${plural(s.index.entries, "entry", "entries")}${s.index.team_entries ? `, and ${s.index.team_entries} from team lanes` : ""})` : ""}`,
  );
  for (const f of stale)
    out.push(
      `  ${NA()} stale: ${plural(f.stale, "entry", "entries")} of ${f.checked} naming files, scripts or dependencies in ${f.project}${f.kept ? ` (${f.kept} kept)` : ""}${f.stale ? " (coffer stale lists them)" : ""}`,
    );
  for (const t of teamRules)
    out.push(
      `  ${NA()} team rules: ${t.repository} adds ${plural(t.rules, "rule")} to its sessions (${tilde(t.file)}, read from the checkout)`,
    );
  // A model named but not usable (its CLI missing, logged out) is a problem below, never a check.
  out.push(`  ${s.model ? (s.model_ok ? OK() : BAD()) : NA()} model: ${s.model ?? "none"} (${s.model_why})`);
  out.push(`  ${s.sweep.failed ? WARN() : s.sweep.last ? OK() : NA()} sweep: ${s.sweep.summary}`);
  for (const n of s.notes) out.push(`      note: ${n}`);
  out.push("");
  if (!report.problems.length) out.push("No problems found.");
  else {
    out.push(`${report.problems.length} problem${report.problems.length === 1 ? "" : "s"}:`);
    for (const p of report.problems) out.push(`  - ${p.where}: ${p.message}`, `    fix: ${p.fix}`);
  }
  if (report.warnings.length) {
    out.push(`${plural(report.warnings.length, "warning")}:`);
    for (const w of report.warnings)
      out.push(`  - ${w.where}: ${w.message}`, `    ${/^likely causes/.test(w.fix) ? w.fix : `fix: ${w.fix}`}`);
  }
  return `${out.join("\n")}\n`;
}

export default withExamples(
  defineCommand({
    meta: {
      name: "doctor",
      description: "Check links, binary paths, that the hooks fire, index health; print fixes",
    },
    args: {
      fix: {
        type: "boolean",
        description:
          "Make COFFER_HOME private again (folders 700, files 600); move entry files Coffer cannot read to the trash",
      },
      ...jsonArg,
    },
    async run({ args }) {
      if (args.fix) {
        const n = tighten(loosePaths(cofferHome()));
        if (n && !args.json)
          writeErr(
            `Made ${plural(n, "file or folder", "files or folders")} in ${tilde(cofferHome())} private (700/600).\n`,
          );
      }
      // Doctor compares every entry file with the index (other commands check only what changed).
      // A broken index is reported as it is (opening the store would quietly rebuild it first).
      const unreadable: { file: string; id: string; why: string }[] = [];
      let stale: StaleFigure[] = [];
      let teamRules: TeamRules[] = [];
      const trashed: string[] = [];
      let tempsRemoved: { dir: string; removed: number }[] = [];
      let collisions: { file: string; id: string; personal: string }[] = [];
      let syncCopies: SyncConflict[] = [];
      try {
        const { inspectIndexFile } = await import("../store/db");
        if (inspectIndexFile().state !== "ok") throw new Error("index not ok");
        const { closeStore, openStore, walkAllScopes } = await import("../store/store");
        const { forget, unreadableEntries } = await import("../store/entries");
        const store = openStore({ freshness: "none", notice: () => {} });
        try {
          walkAllScopes(store);
          // Temp files of writes that were killed: litter in memory/ and state/, staged by `git add .coffer` in a team lane.
          tempsRemoved = (await import("../store/tidy")).removeDeadTempFiles(store);
          // A team file named with one of the user's ids: skipped on read, the personal entry wins.
          collisions = (await import("../store/team")).teamIdCollisions(store.team);
          // Entries edited on two machines whose older copy sync kept: one version is injected, marked.
          syncCopies = (await import("../store/sync-conflicts")).syncConflicts(store);
          // Staleness: this project and the others checked on this machine, against their checkouts.
          const { checkKnownProjects } = await import("../store/stale/stale");
          const { projectMeta } = await import("../store/store");
          stale = checkKnownProjects(store).map((r) => ({
            project: projectMeta(r.scope).label,
            checked: r.checked,
            stale: r.stale.length,
            kept: r.kept,
          }));
          // Rules from repositories (.coffer/rules.md): delivered at session start like a CLAUDE.md.
          if (store.config["team.read"] === "on") teamRules = (await import("../store/rules")).teamRuleSources();
          for (const hit of unreadableEntries(store)) {
            // --fix: a file Coffer cannot read goes to the trash (restorable as it was for 30 days).
            if (args.fix) {
              forget(store, hit.entry.id, "user", { scopes: [hit.scope], allowBroken: true });
              trashed.push(hit.entry.id);
            } else unreadable.push({ file: hit.file, id: hit.entry.id, why: hit.broken ?? "" });
          }
        } finally {
          closeStore(store);
        }
      } catch {} // an unreadable index is doctor's to report below
      if (trashed.length && !args.json)
        writeErr(
          `Moved ${plural(trashed.length, "entry file", "entry files")} Coffer cannot read to the trash: ${trashed.join(", ")} (coffer restore <id> brings one back as it was).\n`,
        );
      if (tempsRemoved.length && !args.json)
        writeErr(
          `Removed ${plural(
            tempsRemoved.reduce((sum, t) => sum + t.removed, 0),
            "temp file",
          )} of writes that were killed (${tempsRemoved.map((t) => tilde(t.dir)).join(", ")}).\n`,
        );
      const report = await runDoctor(await allHostLinks(), process.cwd(), homeDir());
      for (const u of unreadable)
        report.problems.push({
          where: "store",
          message: `${tilde(u.file)} is not a readable entry (${u.why}): recall, hooks and sync skip it`,
          fix: `coffer forget ${u.id}, or coffer doctor --fix (both move it to the trash), or fix it by hand`,
        });
      for (const c of collisions)
        report.warnings.push({
          where: "team lane",
          message: `${tilde(c.file)} has the id of your own entry ${c.id} (${tilde(c.personal)}): yours is used, the team file is skipped`,
          fix: "If they are the same entry, delete one of the two files; if not, rename the team file to a new id (a file's name is its id)",
        });
      for (const c of syncCopies)
        report.warnings.push({
          where: "sync",
          message: `entry ${handle(c.kept)} was edited on two machines: the newer version is used, the older is kept as ${handle(c.copy)} ("${short(c.title, 60)}")`,
          fix: `coffer show ${handle(c.copy)} to compare, then coffer forget ${handle(c.copy)} (edit ${handle(c.kept)} first for anything of the older version you need)`,
        });
      if (args.json)
        printJson({
          ok: report.problems.length === 0,
          ...report,
          stale,
          team_rules: teamRules,
          removed_temps: tempsRemoved,
          sync_conflicts: syncCopies,
        });
      else writeOut(render(report, stale, teamRules));
      if (report.problems.length) process.exitCode = 1;
    },
  }),
  [
    "coffer doctor",
    "coffer doctor --json",
    "coffer doctor --fix      # make COFFER_HOME private again, trash unreadable entry files",
  ],
);
