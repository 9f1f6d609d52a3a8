import { readFileSync } from "node:fs";

/** Whether a process runs: alive and not a zombie (exited, not yet reaped by whoever inherited it). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return true; // no /proc: alive is all there is to know
  }
}
