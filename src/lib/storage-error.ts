/**
 * Storage failures said so a user can act on them. Apart from errors.ts because it probes the file
 * system (who owns the store, free space, who holds the index) and needs paths.ts, which itself
 * throws CofferErrors: errors.ts imports nothing of Coffer's.
 */
import { readdirSync, readFileSync, readlinkSync, statfsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { CofferError } from "./errors";
import { cofferHome, paths } from "./paths";

/**
 * A file system or SQLite failure a user can act on, as a CofferError that says what is wrong and
 * how to fix it: a read-only or unwritable COFFER_HOME, a full disk, an index locked by another
 * process (named when the system says who holds it). Anything else gives undefined.
 */
export function storageError(err: unknown): CofferError | undefined {
  if (err instanceof CofferError) return undefined;
  const e = err as { code?: string; errno?: number; message?: string; path?: string } | null;
  const code = String(e?.code ?? "");
  const msg = String(e?.message ?? "");
  // An atomic write's temp file is named after its target: name the target.
  const where = e?.path ? ` (${e.path.replace(/([/\\])\.([^/\\]+)\.\d+\.[0-9a-z]+\.tmp$/, "$1$2")})` : "";
  const ioError = code.startsWith("SQLITE_IOERR") || /disk I\/O error/i.test(msg);
  if (
    code === "ENOSPC" ||
    code === "EDQUOT" ||
    code.startsWith("SQLITE_FULL") ||
    /database or disk is full/i.test(msg) ||
    (ioError && diskFull())
  )
    return new CofferError(
      `the disk holding Coffer's store is full${where}: nothing was written`,
      1,
      "Free some space (or move COFFER_HOME to a disk with room) and run the command again; memory/ is unchanged.",
      "unavailable",
    );
  if (
    code === "EROFS" ||
    code.startsWith("SQLITE_READONLY") ||
    /read-only file system|attempt to write a readonly database/i.test(msg)
  )
    return new CofferError(
      `Coffer's store is read-only${where}: this command needs to write`,
      1,
      "Reading still works (recall, list, show, status, hooks). To save, make COFFER_HOME writable again (remount it read-write, or `coffer doctor --fix` for its permissions), or point COFFER_HOME at a writable copy.",
      "unavailable",
    );
  if (code === "EACCES" || code === "EPERM") {
    // The user's own files made read-only (chmod a-w) are not someone else's: no sudo needed.
    if (ownedByUs(e?.path))
      return new CofferError(
        `Coffer's store is read-only${where}: this command needs to write`,
        1,
        `Reading still works. To save, make it writable again: chmod -R u+w ${cofferHome()}`,
        "unavailable",
      );
    return new CofferError(
      `permission denied${where}: Coffer cannot write its store`,
      1,
      "Give your user its files back (e.g. `sudo chown -R $USER ~/.coffer`), then `coffer doctor --fix`.",
      "unavailable",
    );
  }
  if (ioError)
    return new CofferError(
      "the index (state/index.db) gave a disk I/O error",
      1,
      "Check the disk that holds COFFER_HOME; `coffer reindex` rebuilds the index from memory/ (the files are the truth).",
      "unavailable",
    );
  if (/^SQLITE_(BUSY|LOCKED)/.test(code) || /database is (locked|busy)/i.test(msg)) {
    const holders = lockHolders();
    return new CofferError(
      `the index (state/index.db) is locked by another process${holders.length ? `: ${holders.join(", ")}` : ""}`,
      1,
      "Wait for it to finish and run the command again; if it is stuck, stop that process (a lock held by a process that died is released by the system).",
      "busy",
    );
  }
  return undefined;
}

/** The nearest existing file or folder at or above `path` belongs to this process's user. */
function ownedByUs(path: string | undefined): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return false;
  for (let p = path ?? paths.state(); ; p = dirname(p)) {
    try {
      return statSync(p).uid === uid;
    } catch {
      if (dirname(p) === p) return false;
    }
  }
}

/** No free space on the file system that holds COFFER_HOME (false when that cannot be told). */
function diskFull(): boolean {
  try {
    const st = statfsSync(paths.state().replace(/[/\\]state$/, ""));
    return st.bavail * st.bsize < 64 * 1024;
  } catch {
    return false;
  }
}

/** Other processes that have the index open (Linux /proc; elsewhere nothing is known): "pid 123 (sqlite3 ...)". */
function lockHolders(): string[] {
  const out: string[] = [];
  if (process.platform !== "linux") return out;
  const db = paths.indexDb();
  try {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      const holds = fds.some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(db);
        } catch {
          return false;
        }
      });
      if (!holds) continue;
      let cmd = "";
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8")
          .split("\0")
          .filter(Boolean)
          .join(" ")
          .replace(/\s+/g, " ")
          .slice(0, 80);
      } catch {}
      out.push(`pid ${pid}${cmd ? ` (${cmd})` : ""}`);
      if (out.length >= 5) break;
    }
  } catch {}
  return out;
}
