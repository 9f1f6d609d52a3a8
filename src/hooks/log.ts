import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { paths } from "../lib/paths";

/** hook.log rolls over to hook.log.1 past this size, so the two files stay under ~2x this. */
export const HOOK_LOG_MAX = 256 * 1024;

/**
 * One line to `state/hook.log` (never stdout, never prompt text). Fails silently: the hook
 * must answer even when the log cannot be written.
 */
export function hookLog(message: string, fields: Record<string, string | number | undefined> = {}): void {
  try {
    const file = paths.hookLog();
    const dir = dirname(file);
    if (!existsSync(dir)) {
      // Only inside an existing Coffer home: a hook never creates one just to complain.
      if (!existsSync(dirname(dir))) return;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    }
    try {
      if (statSync(file).size > HOOK_LOG_MAX) renameSync(file, `${file}.1`);
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
