/**
 * One JSON line to a log file Coffer keeps in its state folder (`state/hook.log`, `state/sweep.log`):
 * never prompt text, never stdout. Past `max` bytes the file rolls over to `<file>.1`, so the two
 * stay under about twice that. Only inside an existing Coffer home (a log never creates one), and
 * never throws: whoever logs must go on when the log cannot be written.
 */
import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname } from "node:path";

const LOG_MAX = 256 * 1024;

export function appendLogLine(
  file: string,
  message: string,
  fields: Record<string, string | number | undefined> = {},
  max = LOG_MAX,
): void {
  try {
    const dir = dirname(file);
    if (!existsSync(dir)) {
      if (!existsSync(dirname(dir))) return;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    }
    try {
      if (statSync(file).size > max) renameSync(file, `${file}.1`);
    } catch {}
    const line = JSON.stringify({
      at: new Date().toISOString(),
      pid: process.pid,
      ...fields,
      msg: message.slice(0, 2000),
    });
    appendFileSync(file, `${line}\n`, { mode: 0o600 });
  } catch {}
}
