import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export type StoredEntry = { scope: string; id: string; text: string; meta: Record<string, unknown>; body: string };

/** Every entry file under memory/, parsed just enough for assertions. */
export function storedEntries(cofferHome: string): StoredEntry[] {
  const mem = join(cofferHome, "memory");
  const scopes: [string, string][] = [["global", join(mem, "global", "entries")]];
  if (existsSync(join(mem, "projects")))
    for (const id of readdirSync(join(mem, "projects"))) scopes.push([id, join(mem, "projects", id, "entries")]);
  const out: StoredEntry[] = [];
  for (const [scope, dir] of scopes) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".md"))) {
      const text = readFileSync(join(dir, name), "utf8");
      const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text)!;
      out.push({
        scope,
        id: name.slice(0, -3),
        text,
        meta: Bun.YAML.parse(m[1]!) as Record<string, unknown>,
        body: m[2]!.trim(),
      });
    }
  }
  return out;
}

/** Project id -> label, from each project's project.md. */
function projectLabels(cofferHome: string): Map<string, string> {
  const dir = join(cofferHome, "memory", "projects");
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const id of readdirSync(dir)) {
    try {
      const m = /^label:\s*(.+)$/m.exec(readFileSync(join(dir, id, "project.md"), "utf8"));
      out.set(id, m ? JSON.parse(m[1]!) : id);
    } catch {
      out.set(id, id);
    }
  }
  return out;
}

/** Every regular file's text under a directory (for "no secret anywhere" checks). */
export function allText(dir: string): string {
  let out = "";
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out += readFileSync(p).toString("latin1");
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** Entries of one project (by label) or of global. */
export function entriesOf(cofferHome: string, label: string): StoredEntry[] {
  const labels = projectLabels(cofferHome);
  return storedEntries(cofferHome).filter((e) =>
    label === "global" ? e.scope === "global" : labels.get(e.scope) === label,
  );
}
