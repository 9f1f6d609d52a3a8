/** One sync at a time per COFFER_HOME (a CLI sync and serve's auto sync must not interleave). */
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CofferError } from "../lib/errors";
import { paths } from "../lib/paths";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Take the sync lock or fail at once naming the holder; a lock whose process is gone is broken. */
export function acquireSyncLock(): { release: () => void; brokeStale: boolean } {
  const file = join(paths.state(), "sync.lock");
  mkdirSync(paths.state(), { recursive: true });
  let brokeStale = false;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, at: Date.now() }));
      closeSync(fd);
      const release = () => {
        try { unlinkSync(file); } catch {}
      };
      return { release, brokeStale };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let pid = 0;
    try { pid = Number(JSON.parse(readFileSync(file, "utf8")).pid) || 0; } catch {}
    // An empty lock younger than a second is a sync between creating and writing it.
    let fresh = false;
    try { fresh = Date.now() - statSync(file).mtimeMs < 1000; } catch {}
    if (pid > 0 ? alive(pid) : fresh) {
      throw new CofferError(`another coffer sync is running${pid ? ` (pid ${pid})` : ""}`, 1, "Wait for it to finish and run the command again.");
    }
    try { unlinkSync(file); } catch {}
    brokeStale = true;
  }
  throw new CofferError(`could not take the sync lock ${file}`, 1, "Remove the file if no coffer sync is running.");
}
