/** memory/ written straight as files (the store picks up hand-written files) and read back. */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectIdFor } from "../../src/store/scope";
import type { Sandbox } from "./sandbox";

export function projectId(repoDir: string): string {
  return projectIdFor(`path:${repoDir}`);
}

export type EntrySpec = {
  id: string;
  title: string;
  body: string;
  tags?: string[];
  applies_to?: string[];
  updated?: string;
  kind?: string;
  keywords?: string[];
};

/** Write entries as files (the store picks up hand-written files) — fast for large fixtures. */
export function writeEntries(sb: Sandbox, scope: "global" | string, entries: EntrySpec[]): void {
  const dir =
    scope === "global"
      ? join(sb.cofferHome, "memory", "global", "entries")
      : join(sb.cofferHome, "memory", "projects", scope, "entries");
  mkdirSync(dir, { recursive: true });
  for (const e of entries) {
    const updated = e.updated ?? "2026-01-01T00:00:00Z";
    const lines = [
      "---",
      `id: ${e.id}`,
      `kind: ${e.kind ?? "note"}`,
      `title: ${JSON.stringify(e.title)}`,
      `tags: [${(e.tags ?? []).join(", ")}]`,
    ];
    if (e.keywords?.length) lines.push(`keywords: [${e.keywords.map((k) => JSON.stringify(k)).join(", ")}]`);
    if (e.applies_to?.length) lines.push(`applies_to: [${e.applies_to.map((g) => JSON.stringify(g)).join(", ")}]`);
    lines.push("actor: user", "source: cli", `created: ${updated}`, `updated: ${updated}`, "---", e.body, "");
    writeFileSync(join(dir, `${e.id}.md`), lines.join("\n"));
  }
}

export function writeRules(sb: Sandbox, scope: "global" | string, text: string): void {
  const dir =
    scope === "global" ? join(sb.cofferHome, "memory", "global") : join(sb.cofferHome, "memory", "projects", scope);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "rules.md"), text);
}

/** Every file under a directory, recursively, as [path, text]. */
export function allFiles(dir: string): [string, string][] {
  const out: [string, string][] = [];
  const walk = (d: string) => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      try {
        out.push([p, readFileSync(p, "latin1")]);
      } catch {
        walk(p);
      }
    }
  };
  walk(dir);
  return out;
}

export function entryFiles(sb: Sandbox): { path: string; text: string }[] {
  return allFiles(join(sb.cofferHome, "memory"))
    .filter(([p]) => /\/entries\/[^/]+\.md$/.test(p))
    .map(([path, text]) => ({ path, text }));
}
