/**
 * Coffer's files are private to their user: folders under COFFER_HOME are 0700 and files 0600.
 * New ones are created so from the start (lib/umask.ts: set once at process start, it also covers
 * SQLite and git); stores made by older versions are tightened by `coffer doctor --fix`
 * (`loosePaths` / `tighten`: group and other bits removed, the owner's bits kept as they are).
 */
import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

export type LoosePath = { path: string; mode: number; dir: boolean };

/** Files and folders under `root` (itself included) that group or others may access. Symlinks are not followed. */
export function loosePaths(root: string, limit = 200_000): LoosePath[] {
  if (process.platform === "win32") return [];
  const out: LoosePath[] = [];
  const stack = [root];
  let seen = 0;
  while (stack.length && seen < limit) {
    const p = stack.pop()!;
    seen++;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) continue;
    const mode = st.mode & 0o777;
    const dir = st.isDirectory();
    if (mode & 0o077) out.push({ path: p, mode, dir });
    if (!dir) continue;
    try {
      for (const name of readdirSync(p)) stack.push(join(p, name));
    } catch {}
  }
  return out;
}

/** Remove group and other bits from each path; returns how many were changed. */
export function tighten(list: LoosePath[]): number {
  let n = 0;
  for (const l of list) {
    try {
      chmodSync(l.path, l.mode & 0o700);
      n++;
    } catch {}
  }
  return n;
}
