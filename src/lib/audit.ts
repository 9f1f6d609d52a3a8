import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { paths } from "./paths";
import { isoNow } from "./time";

export type AuditEvent = {
  event: string;
  actor?: string;
  [field: string]: string | number | boolean | undefined | null | string[];
};

/**
 * Append one line to `state/audit.jsonl`: who changed what, never the content itself. Callers use
 * `audit` from src/scrub/write.ts, which scrubs every string of the record first.
 */
export function appendAudit(record: AuditEvent): void {
  const file = paths.audit();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // One short O_APPEND write per event keeps concurrent writers' lines whole.
  appendFileSync(file, `${JSON.stringify({ at: isoNow(), ...record })}\n`, { mode: 0o600 });
}
