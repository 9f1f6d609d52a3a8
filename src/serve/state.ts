/** `state/serve.json`: which process serves on which port, for `coffer doctor`/`status` and tests. */
import { readFileSync, rmSync } from "node:fs";
import { writeFileAtomic } from "../lib/atomic";
import { paths } from "../lib/paths";

export type ServeInfo = { pid: number; port: number; host: string; url: string; started: string };

export function writeServeInfo(info: ServeInfo): void {
  writeFileAtomic(paths.serveInfo(), `${JSON.stringify(info, null, 2)}\n`, 0o600);
}

export function readServeInfo(): ServeInfo | undefined {
  try {
    return JSON.parse(readFileSync(paths.serveInfo(), "utf8")) as ServeInfo;
  } catch {
    return undefined;
  }
}

/** Remove serve.json, but only when it still describes this process (a newer server may own it). */
export function removeServeInfo(pid = process.pid): void {
  if (readServeInfo()?.pid === pid) rmSync(paths.serveInfo(), { force: true });
}
