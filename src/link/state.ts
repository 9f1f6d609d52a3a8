/**
 * What link must remember to undo itself exactly: the previous value of every native-memory
 * switch it turned off (or that the key was absent), the files it created, the MCP entries it
 * wrote (and what was there before), the backups it wrote, and the sweep setting
 * `link codex --session-end` changed. Kept in `state/link.json` (machine-local).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { paths } from "../lib/paths";

/** A value before Coffer changed it: its exact source text, or absent (optionally with its table). */
export type Saved = { raw: string } | { value: unknown } | { absent: true; tableAbsent?: boolean };

export type LinkState = {
  version: 1;
  /** file -> key path (joined with ".") -> previous value. */
  native_memory: Record<string, Record<string, Saved>>;
  /** Files Coffer created; unlink deletes them again when nothing but Coffer's skeleton is left. */
  created: Record<string, true>;
  /** file -> JSON paths (as JSON text) of containers that were empty before Coffer added to them (kept on unlink). */
  containers: Record<string, string[]>;
  /** `distill.sweep` before `link codex --session-end` turned it on. */
  sweep?: Saved;
  /**
   * file -> entry path (joined with ".") -> what was there before Coffer wrote its entry (absent,
   * or the user's entry `link --force` replaced). Coffer changes and removes only these entries.
   */
  owned: Record<string, Record<string, Saved>>;
  /** file -> the backup Coffer last wrote for it (a `.bak` Coffer did not write is never overwritten). */
  backups: Record<string, string>;
  /** Folders Coffer created for the files it wrote; removed again when unlink leaves them empty. */
  dirs: Record<string, true>;
  /**
   * When each link last wrote its hook entries (`<host>` for the user's config, `<host>@<repo>`
   * for a repository's): doctor warns when no hook event arrived for a day after that.
   */
  linked_at?: Record<string, string>;
  /** Links (keys as in `linked_at`) made with --no-mcp: a later link without --mcp keeps the MCP server out. */
  mcp_off?: Record<string, true>;
};

/** The key of one link in `linked_at`. */
export const linkKey = (host: string, root?: string): string => (root ? `${host}@${root}` : host);

export function linkStatePath(): string {
  return join(paths.state(), "link.json");
}

export function readLinkState(): LinkState {
  const file = linkStatePath();
  const empty: LinkState = {
    version: 1,
    native_memory: {},
    created: {},
    containers: {},
    owned: {},
    backups: {},
    dirs: {},
  };
  if (!existsSync(file)) return empty;
  try {
    const raw = JSON.parse(readFileSync(file, "utf8")) as Partial<LinkState>;
    if (!raw || typeof raw !== "object") return empty;
    return {
      version: 1,
      native_memory: raw.native_memory && typeof raw.native_memory === "object" ? raw.native_memory : {},
      created: raw.created && typeof raw.created === "object" ? raw.created : {},
      containers: raw.containers && typeof raw.containers === "object" ? raw.containers : {},
      owned: raw.owned && typeof raw.owned === "object" ? raw.owned : {},
      backups: raw.backups && typeof raw.backups === "object" ? raw.backups : {},
      dirs: raw.dirs && typeof raw.dirs === "object" ? raw.dirs : {},
      ...(raw.sweep ? { sweep: raw.sweep } : {}),
      ...(raw.linked_at && typeof raw.linked_at === "object" ? { linked_at: raw.linked_at } : {}),
      ...(raw.mcp_off && typeof raw.mcp_off === "object" ? { mcp_off: raw.mcp_off } : {}),
    };
  } catch {
    return empty;
  }
}

export function writeLinkState(state: LinkState): void {
  writeFileAtomic(linkStatePath(), `${JSON.stringify(state, null, 2)}\n`, 0o600);
}
