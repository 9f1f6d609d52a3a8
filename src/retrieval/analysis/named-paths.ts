/**
 * Paths named in text (a prompt, a recall query) and the `applies_to` globs they match: what the
 * prompt hook and recall share to find entries about a file the user mentions.
 */
import { statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** `abs` relative to `dir` with `/` separators, or undefined when it is outside `dir`. */
export function relativeInside(dir: string, abs: string): string | undefined {
  const rel = relative(dir, abs);
  if (!rel || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** A touched path (absolute or relative to cwd) as an absolute path inside cwd, else undefined. */
export function touchedInside(cwd: string, p: string): string | undefined {
  if (!p || p.length > 4096 || p.includes("\0")) return undefined;
  const abs = resolve(cwd, p);
  return relativeInside(cwd, abs) === undefined ? undefined : abs;
}

const TRAIL = /[.,;:!?)\]}>'"`]+$/;
const LEAD = /^[(<['"`]+/;

/**
 * File paths a prompt names under cwd: tokens with a `/` or a file extension (whether or not the
 * file exists yet: `applies_to` globs match the path), or capitalized/dot names (Makefile, .env)
 * that exist, stripped of quotes, trailing punctuation and `:line[:col]`; at most `max` paths,
 * after at most 32 lookups.
 */
export function promptPaths(prompt: string, cwd: string, max = 12): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let lookups = 0;
  for (const raw of prompt.slice(0, 20000).split(/[\s,;|]+/)) {
    if (out.length >= max) break;
    if (raw.length < 3 || raw.length > 512) continue;
    let token = raw
      .replace(LEAD, "")
      .replace(TRAIL, "")
      .replace(/:\d+(?::\d+)?$/, "")
      .replace(TRAIL, "");
    if (token.startsWith("@")) token = token.slice(1); // `@src/x.ts` mentions
    if (!token || /^[a-z][a-z0-9+.-]*:\/\//i.test(token)) continue; // URLs
    // A path, a name with an extension, or a bare name like Makefile / Dockerfile / .env.
    if (
      !token.includes("/") &&
      !/\.[A-Za-z0-9]{1,10}$/.test(token) &&
      !/^(?:[A-Z][A-Za-z0-9_-]{2,}|\.[A-Za-z0-9_.-]+)$/.test(token)
    )
      continue;
    const abs = touchedInside(cwd, token);
    if (!abs || seen.has(abs)) continue;
    seen.add(abs);
    if (token.includes("/") || /\.[A-Za-z0-9]{1,10}$/.test(token)) {
      if (!token.endsWith("/")) out.push(abs);
      continue;
    }
    if (++lookups > 32) break;
    try {
      if (statSync(abs).isFile()) out.push(abs);
    } catch {}
  }
  return out;
}

const globCache = new Map<string, Bun.Glob>();

/** Does a project-relative path match one of an entry's `applies_to` globs? */
export function matchesAny(globs: string[], relPath: string): boolean {
  for (const g of globs) {
    let glob = globCache.get(g);
    if (!glob) {
      try {
        glob = new Bun.Glob(g.replace(/^\.\//, ""));
      } catch {
        continue;
      }
      globCache.set(g, glob);
    }
    if (glob.match(relPath)) return true;
  }
  return false;
}
