/** Commit messages and summaries that say what changed, per scope. */
import { join } from "node:path";
import { paths } from "../lib/paths";
import { readMemoryFile } from "../store";
import { isSyncedPath, pathKind, scopeOfPath } from "./layout";

export type Change = { status: "A" | "M" | "D"; path: string };

export type ScopeCounts = {
  scope: string;
  label: string;
  added: number;
  edited: number;
  removed: number;
  rules: boolean;
  handoffs: number;
  project: boolean;
};

/** Parse `git diff --name-status -z --no-renames` output. */
export function parseNameStatus(out: string): Change[] {
  const parts = out.split("\0").filter(Boolean);
  const changes: Change[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const s = parts[i]![0] as string;
    changes.push({ status: s === "A" ? "A" : s === "D" ? "D" : "M", path: parts[i + 1]! });
  }
  return changes;
}

/** A project's label from memory/projects/<id>/project.md; the id when there is none. */
export function scopeLabel(scope: string): string {
  if (scope === "global") return "global";
  try {
    // Never through a link: the label goes into a commit message that is pushed.
    const m = /^label:\s*(.+)$/m.exec(readMemoryFile(join(paths.projectScope(scope), "project.md")).text);
    if (m) {
      const raw = m[1]!.trim();
      const label = raw.startsWith('"') ? JSON.parse(raw) : raw;
      return `${label} (${scope.slice(0, 8)})`;
    }
  } catch {}
  return scope;
}

const CONTENT = new Set(["entry", "rules", "handoff", "project"]);

export function countByScope(changes: Change[]): ScopeCounts[] {
  const by = new Map<string, ScopeCounts>();
  for (const c of changes) {
    const scope = scopeOfPath(c.path);
    if (!scope || !CONTENT.has(pathKind(c.path))) continue;
    let s = by.get(scope);
    if (!s) {
      s = {
        scope,
        label: scopeLabel(scope),
        added: 0,
        edited: 0,
        removed: 0,
        rules: false,
        handoffs: 0,
        project: false,
      };
      by.set(scope, s);
    }
    const kind = pathKind(c.path);
    if (kind === "entry") {
      if (c.status === "A") s.added++;
      else if (c.status === "D") s.removed++;
      else s.edited++;
    } else if (kind === "rules") s.rules = true;
    else if (kind === "handoff") s.handoffs++;
    else if (kind === "project") s.project = true;
  }
  // global first, then projects by label
  return [...by.values()].sort((a, b) =>
    a.scope === "global" ? -1 : b.scope === "global" ? 1 : a.label.localeCompare(b.label),
  );
}

export function describeCounts(s: ScopeCounts): string {
  const parts: string[] = [];
  if (s.added) parts.push(`${s.added} added`);
  if (s.edited) parts.push(`${s.edited} edited`);
  if (s.removed) parts.push(`${s.removed} removed`);
  if (parts.length) parts[0] = parts[0]!.replace(/^(\d+)/, (n) => `${n} ${Number(n) === 1 ? "entry" : "entries"}`);
  if (s.rules) parts.push("rules changed");
  if (s.handoffs) parts.push(`${s.handoffs} handoff${s.handoffs === 1 ? "" : "s"}`);
  if (s.project) parts.push("project info");
  return `${s.label}: ${parts.join(", ") || "no content changes"}`;
}

/** Subject + body for Coffer's commit of this machine's pending changes. */
export function commitMessage(changes: Change[], host: string): string {
  const scopes = countByScope(changes);
  const entries = scopes.reduce((n, s) => n + s.added + s.edited + s.removed, 0);
  const dropped = changes.filter((c) => c.status === "D" && !isSyncedPath(c.path)).map((c) => c.path);
  const other = changes.filter((c) => !CONTENT.has(pathKind(c.path)) && !dropped.includes(c.path)).map((c) => c.path);
  const head = scopes.length
    ? `Coffer sync from ${host}: ${entries} entr${entries === 1 ? "y" : "ies"} changed in ${scopes.length} scope${scopes.length === 1 ? "" : "s"}`
    : dropped.length && !other.length
      ? `Coffer sync from ${host}: stop tracking ${dropped.length} file${dropped.length === 1 ? "" : "s"} that are not memory content`
      : `Coffer sync from ${host}: sync settings`;
  const body = scopes.map(describeCounts);
  if (other.length) body.push(`other: ${other.join(", ")}`);
  if (dropped.length) body.push(`no longer tracked (not memory content, kept on disk): ${dropped.join(", ")}`);
  return [head, "", ...body, ""].join("\n");
}
