import { defineCommand } from "citty";
import { allHostLinks } from "../hosts/index";
import { homeDir } from "../lib/paths";
import { type DoctorReport, type HostReport, runDoctor } from "../link/doctor";
import { tilde } from "../link/files";
import { withExamples } from "./_run";
import { jsonArg, printJson } from "./_shared";

function hostLine(r: HostReport): string {
  const mark = r.problems.length ? "✗" : r.status === "linked" ? "✓" : "·";
  const scope = r.scope === "project" ? " (project)" : "";
  if (r.status === "not linked")
    return `  ${mark} ${r.host}${scope}: not linked (coffer link ${r.host}${r.scope === "project" ? " --project" : ""})`;
  const parts = [`${r.status}: ${r.events.join(", ") || "no events"} in ${tilde(r.hook_file)}`];
  parts.push(r.mcp.registered ? `MCP in ${tilde(r.mcp.file!)}` : r.mcp.file ? "MCP not registered" : "no MCP config");
  if (r.native_memory.host_value !== null)
    parts.push(`native memory ${r.native_memory.setting} (host: ${r.native_memory.host_value})`);
  return `  ${mark} ${r.host}${scope}: ${parts.join("; ")}`;
}

function render(report: DoctorReport): string {
  const out: string[] = [`Binary: ${report.binary}`, "", "Agents:"];
  for (const r of report.hosts) {
    out.push(hostLine(r));
    for (const n of r.notes) out.push(`      note: ${n}`);
  }
  const s = report.store;
  out.push("", "Store:");
  out.push(`  ${s.config.ok ? "✓" : "✗"} config ${tilde(s.config.file)}`);
  out.push(
    `  · ${s.entries.global} global entries, ${s.entries.projects} project entries in ${s.entries.project_scopes} project${s.entries.project_scopes === 1 ? "" : "s"}`,
  );
  out.push(
    `  ${s.index.state === "corrupt" ? "✗" : s.index.state === "ok" ? "✓" : "·"} index ${tilde(s.index.file)}: ${s.index.state}${s.index.entries !== null ? ` (${s.index.entries} entries)` : ""}`,
  );
  out.push(`  · model: ${s.model ?? "none"}`);
  for (const n of s.notes) out.push(`      note: ${n}`);
  out.push("");
  if (!report.problems.length) out.push("No problems found.");
  else {
    out.push(`${report.problems.length} problem${report.problems.length === 1 ? "" : "s"}:`);
    for (const p of report.problems) out.push(`  - ${p.where}: ${p.message}`, `    fix: ${p.fix}`);
  }
  return `${out.join("\n")}\n`;
}

export default withExamples(
  defineCommand({
    meta: { name: "doctor", description: "Check links, binary paths, index health; print fixes" },
    args: { ...jsonArg },
    async run({ args }) {
      const report = await runDoctor(await allHostLinks(), process.cwd(), homeDir());
      if (args.json) printJson({ ok: report.problems.length === 0, ...report });
      else process.stdout.write(render(report));
      if (report.problems.length) process.exitCode = 1;
    },
  }),
  ["coffer doctor", "coffer doctor --json"],
);
