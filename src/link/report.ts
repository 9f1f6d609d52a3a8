/** Human and JSON output for link / unlink (shared by both commands). */
import type { Plan } from "./engine";
import { changed, diffChanges, type FileChange, tilde } from "./files";

function status(c: FileChange): "created" | "updated" | "deleted" | "unchanged" {
  if (!changed(c)) return "unchanged";
  if (c.before === null) return "created";
  if (c.after === null) return "deleted";
  return "updated";
}

export function planJson(plan: Plan, verb: "link" | "unlink", dryRun: boolean, bin?: string) {
  return {
    host: plan.host,
    scope: plan.scope,
    action: verb,
    dry_run: dryRun,
    ...(bin ? { binary: bin } : {}),
    files: plan.changes.map((c) => ({
      path: c.path,
      status: status(c),
      changes: c.notes,
      backup: changed(c) && c.before !== null && !dryRun ? (c.backup ?? null) : null,
    })),
    ...(dryRun ? { diff: diffChanges(plan.changes) } : {}),
    notes: plan.notes,
  };
}

export function planText(plan: Plan, name: string, verb: "link" | "unlink", dryRun: boolean, bin?: string): string {
  const lines: string[] = [];
  const todo = plan.changes.filter(changed);
  const where = plan.scope === "project" ? "this repository" : "your user";
  if (dryRun) {
    const diff = diffChanges(plan.changes);
    if (diff) lines.push(diff.trimEnd(), "");
    lines.push(
      todo.length
        ? `Dry run: ${todo.length} file${todo.length === 1 ? "" : "s"} would change; nothing was written.`
        : `Dry run: nothing would change.`,
    );
  } else if (!todo.length) {
    lines.push(
      verb === "link"
        ? `${name} is already linked for ${where}; nothing changed.`
        : `${name} has no Coffer entries for ${where}; nothing changed.`,
    );
  } else {
    lines.push(verb === "link" ? `Linked ${name} for ${where}:` : `Unlinked ${name} for ${where}:`);
    for (const c of todo) {
      const s = status(c);
      const what = c.notes.length ? c.notes.join("; ") : s;
      const bak = c.backup ? ` (previous version: ${tilde(c.backup)})` : "";
      lines.push(`  ${tilde(c.path)}: ${s === "updated" ? "" : `${s}, `}${what}${bak}`);
    }
    if (bin && verb === "link") lines.push(`Commands run ${bin}`);
  }
  for (const n of plan.notes) lines.push(`- ${n}`);
  return `${lines.join("\n")}\n`;
}
