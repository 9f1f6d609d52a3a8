/**
 * `state/agent-clis.json`: the linked agents that have a headless CLI, in link order, with the path
 * each CLI was found at when it was linked (machine-local). `src/distill/linked-clis.ts` decides
 * what distillation does with it; the session-start hook reads it too, to know without searching
 * PATH whether a background sweep has a model to use (`src/capture/background.ts`).
 *
 * And where an agent CLI may be run from (issue 36): only absolute folders of PATH (a relative
 * entry such as `./node_modules/.bin`, or an empty one, means "wherever the process stands": a
 * cloned repository's own binaries), never a folder or file inside the repository at hand, and
 * only an absolute recorded path.
 */
import { realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, relative, resolve, sep } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { type Host, isHost } from "../lib/hosts";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";

export type LinkedCli = { host: Host; path: string | null; linked_at: string };

const file = () => join(paths.state(), "agent-clis.json");

/** The records, or undefined when the file does not exist (a store linked before it did). */
export function readLinkedRecords(): LinkedCli[] | undefined {
  let text: string;
  try {
    text = readOwnText(file(), 1024 * 1024);
  } catch {
    return undefined;
  }
  try {
    const doc = JSON.parse(text) as { agents?: unknown };
    if (!Array.isArray(doc.agents)) return [];
    return doc.agents
      .filter(
        (a): a is LinkedCli =>
          a && typeof a === "object" && isHost(a.host) && (typeof a.path === "string" || a.path === null),
      )
      .map((a) => (a.path === null || isAbsolute(a.path) ? a : { ...a, path: null })); // a relative path: none
  } catch {
    return [];
  }
}

export function writeLinkedRecords(agents: LinkedCli[]): void {
  writeFileAtomic(file(), `${JSON.stringify({ version: 1, agents }, null, 2)}\n`, 0o600);
}

/** A regular file the user may run (any file on Windows). */
export function isExecutable(path: string): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && (process.platform === "win32" || (st.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** True when `path` (followed through links) is `dir` or inside it (followed through links too). */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(real(dir), real(path));
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The folders of a PATH value an agent CLI may be run from: absolute ones only, none inside
 * `repos` (the repositories at hand: their `node_modules/.bin` is other people's code).
 */
export function searchPath(pathValue: string | undefined, repos: readonly (string | undefined)[] = []): string[] {
  return (pathValue ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir) && !repos.some((repo) => repo && isInside(dir, repo)));
}

/** Where PATH finds `bin`, from `searchPath`'s folders only, and not through a link into `repo`. */
export function whichOnPath(bin: string, pathValue: string | undefined, repo?: string): string | undefined {
  for (const dir of searchPath(pathValue, [repo])) {
    const found = Bun.which(bin, { PATH: dir });
    if (found && isAbsolute(found) && !(repo && isInside(found, repo))) return found;
  }
  return undefined;
}

/** `env` with PATH set to `value` (Windows spells it `Path`: one key, whatever its case). */
export function withPath(env: Record<string, string>, value: string): Record<string, string> {
  for (const name of Object.keys(env)) if (name.toUpperCase() === "PATH") delete env[name];
  env.PATH = value;
  return env;
}
