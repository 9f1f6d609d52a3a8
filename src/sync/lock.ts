/** One sync at a time per COFFER_HOME (a CLI sync and serve's auto sync must not interleave). */
import { join } from "node:path";
import { CofferError } from "../lib/errors";
import { acquireLock, LockBusyError } from "../lib/lock";
import { paths } from "../lib/paths";

/** Take the sync lock or fail at once naming the holder; a lock whose process is gone is broken. */
export function acquireSyncLock(): { release: () => void; brokeStale: boolean } {
  let brokeStale = false;
  try {
    // A sync can run for minutes: only a dead owner makes its lock stale.
    const release = acquireLock(join(paths.state(), "sync.lock"), {
      timeoutMs: 0,
      staleMs: Number.MAX_SAFE_INTEGER,
      onBreak: () => (brokeStale = true),
    });
    return { release, brokeStale };
  } catch (err) {
    if (!(err instanceof LockBusyError)) throw err;
    throw new CofferError(
      `another coffer sync is running${err.holderPid ? ` (pid ${err.holderPid})` : ""}`,
      1,
      "Wait for it to finish and run the command again.",
    );
  }
}
