import { paths } from "../lib/paths";
import { appendLogLine } from "../lib/rolling-log";

/**
 * One line to `state/hook.log` (never stdout, never prompt text). Fails silently: the hook
 * must answer even when the log cannot be written.
 */
export function hookLog(message: string, fields: Record<string, string | number | undefined> = {}): void {
  try {
    appendLogLine(paths.hookLog(), message, fields);
  } catch {} // no HOME: nowhere to log
}
