/** Machine-local sync bookkeeping in state/sync.json (never inside memory/, never synced). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { paths } from "../lib/paths";

export type SyncState = {
  /** Last time a sync finished (committed, pulled and pushed). */
  last_sync?: string;
  /** Last time a sync was tried, successful or not. */
  last_attempt?: string;
  /** The error of the last attempt, cleared by a successful sync. */
  last_error?: string | null;
  /** What the last successful sync did, for `coffer status`. */
  last_summary?: string;
};

export function syncStatePath(): string {
  return join(paths.state(), "sync.json");
}

export function readSyncState(): SyncState {
  try {
    const v = JSON.parse(readFileSync(syncStatePath(), "utf8"));
    return v && typeof v === "object" ? (v as SyncState) : {};
  } catch {
    return {};
  }
}

export function writeSyncState(patch: SyncState): void {
  try {
    writeFileAtomic(syncStatePath(), `${JSON.stringify({ ...readSyncState(), ...patch }, null, 2)}\n`);
  } catch {
    // Bookkeeping only: a read-only state/ must not turn a good sync into a failure.
  }
}
