import type { ImportReport } from "./engine";
import type { Manifest } from "./manifest";
import type { UndoReport, Withdrawn } from "./undo";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The human summary of an import (or of a dry run). */
export function reportText(r: ImportReport): string {
  const out: string[] = [];
  const verb = r.dry_run ? "Would import" : "Imported";
  out.push(
    `${verb} from ${r.source} (${r.from}): ${plural(r.created, "new entry", "new entries")}, ` +
      (r.updated ? `${r.updated} updated (changed at the source), ` : "") +
      `${r.merged} merged into existing, ${r.already} already imported` +
      (r.redactions ? `; ${r.scrubbed ?? plural(r.redactions, "secret")} redacted` : "") +
      (r.truncated ? `; ${plural(r.truncated, "body", "bodies")} cut to the size limit` : ""),
  );
  const width = Math.max(0, ...r.by_scope.map((s) => scopeName(s).length));
  for (const s of r.by_scope) {
    const kinds = Object.entries(s.kinds)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    out.push(`  ${scopeName(s).padEnd(width)}  ${String(s.total).padStart(6)}  ${kinds}`);
  }
  const f = r.files;
  // only what happened: "0 rules added" beside a rules file just written read as if none came in
  const parts = [
    f.created ? `${f.created} created` : "",
    f.rules_added ? `${plural(f.rules_added, "rule")} added` : "",
    f.kept ? `${f.kept} kept as they were (already present and different)` : "",
  ].filter(Boolean);
  if (parts.length) out.push(`  files: ${parts.join(", ")}`);
  for (const s of r.skipped) out.push(`Skipped: ${s.reason}`);
  const gone = (r as { gone?: { origin: string; id: string }[] }).gone ?? [];
  if (gone.length) {
    out.push(
      `Deleted at the source since the last import: ${plural(gone.length, "memory", "memories")}; the ${gone.length === 1 ? "entry stays" : "entries stay"} in Coffer (coffer forget <id> removes one):`,
    );
    for (const g of gone) out.push(`  ${g.id}  ${g.origin.replace(/#.*$/, "")}`);
  }
  const withdrawn = (r as { withdrawn?: Withdrawn[] }).withdrawn ?? [];
  const trashed = withdrawn.filter((w) => w.outcome === "trashed");
  const edited = withdrawn.filter((w) => w.outcome === "edited");
  if (trashed.length)
    out.push(
      `${r.dry_run ? "Would move" : "Moved"} ${plural(trashed.length, "entry", "entries")} an earlier import took from a repository's GEMINI.md (committed content, not your memory) to the trash (coffer restore <id> brings one back)`,
    );
  if (edited.length)
    out.push(
      `Kept ${plural(edited.length, "entry", "entries")} from a repository's GEMINI.md that you edited in Coffer: ${edited.map((w) => w.id).join(", ")}`,
    );
  if (r.dry_run && r.samples.length) {
    out.push("Samples:");
    for (const s of r.samples) {
      out.push(`  [${s.kind}] ${s.title}  (${s.scope}${s.from ? `; ${s.from}` : ""})`);
      out.push(`      ${s.body}`);
    }
  }
  if (r.dry_run) out.push("Nothing written (--dry-run).");
  else if (r.import_id) out.push(`Import ${r.import_id}. Undo it with: coffer import --undo ${r.import_id}`);
  else out.push("Nothing new: no import recorded.");
  return `${out.join("\n")}\n`;
}

function scopeName(s: { scope: string; label: string }): string {
  return s.scope === "global" ? "global" : `project ${s.label}`;
}

export function undoText(r: UndoReport): string {
  const parts = [`Undid import ${r.import_id} (${r.source}): removed ${plural(r.removed, "entry", "entries")}`];
  if (r.missing) parts.push(`${r.missing} already gone`);
  if (r.restored) parts.push(`${plural(r.restored, "entry", "entries")} it had changed put back as they were`);
  if (r.files_removed) parts.push(`${plural(r.files_removed, "file")} removed`);
  if (r.files_kept) parts.push(`${plural(r.files_kept, "file")} kept (changed since)`);
  if (r.rule_lines_removed) parts.push(`${plural(r.rule_lines_removed, "rule")} removed`);
  return `${parts.join(", ")}\n`;
}

export function manifestsText(list: Manifest[]): string {
  if (!list.length) return "No imports on this machine yet.\n";
  return `${list
    .map(
      (m) =>
        `${m.import_id}  ${m.at}  ${m.source.padEnd(10)}  ${String(m.created.length).padStart(6)} entries${m.updated?.length ? ` (${m.updated.length} updated)` : ""}  ${m.from}${m.undone_at ? `  (undone ${m.undone_at})` : ""}`,
    )
    .join("\n")}\n`;
}
