import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic";
import { paths } from "./paths";

/** ISO-8601 UTC with second precision, the format of every timestamp Coffer writes. */
export function isoNow(now = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The current time in ms. `COFFER_NOW` (an ISO time) fixes it, for tests of behaviour bound to the
 * calendar day (the daily distillation budget); unset or unparsable, it is the real clock.
 */
export function nowMs(): number {
  const fixed = process.env.COFFER_NOW;
  if (fixed) {
    const t = Date.parse(fixed);
    if (!Number.isNaN(t)) return t;
  }
  return Date.now();
}

/** A local calendar day: `YYYY-MM-DD`, and the instants it starts and ends (local midnights). */
export type LocalDay = { day: string; start: number; end: number };

let today: LocalDay | undefined;
const clockFile = () => join(paths.state(), "clock.json");
/** What the local time depends on: TZ, else the system's zone file (replaced when the zone is changed). */
function zoneKey(): string {
  const tz = process.env.TZ;
  if (tz !== undefined) return `TZ=${tz}`;
  const st = lstatSync("/etc/localtime", { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.mtimeMs}` : "";
}

/**
 * The local day `ms` falls in (budgets and daily figures follow the user's day). A process's first
 * local-time call costs it about 3 ms (the runtime loads ICU's time zones: as much as its own
 * start, issue 38), so today's bounds are kept in `state/clock.json` for the zone they were
 * computed in: the other processes of the day compare instants with them and never ask ICU.
 */
export function localDayOf(ms: number): LocalDay {
  if (today && ms >= today.start && ms < today.end) return today;
  const zone = zoneKey();
  try {
    const c = JSON.parse(readFileSync(clockFile(), "utf8")) as LocalDay & { zone: string };
    if (c.zone === zone && typeof c.day === "string" && ms >= c.start && ms < c.end) {
      today = { day: c.day, start: c.start, end: c.end };
      return today;
    }
  } catch {}
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  const found: LocalDay = {
    day: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
    start: new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime(),
    end: new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime(),
  };
  const now = nowMs();
  if (now >= found.start && now < found.end) {
    today = found;
    try {
      writeFileAtomic(clockFile(), JSON.stringify({ zone, ...found }));
    } catch {} // a cache: the next process asks ICU again
  }
  return found;
}

/** The local calendar day of a time, `YYYY-MM-DD`. */
export const localDay = (ms: number): string => localDayOf(ms).day;

/** A count for people: 1234567 -> "1,234,567" (toLocaleString costs a process its first ICU load, ~1 ms). */
export const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

const ISO_STAMP = /^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?$/;

/**
 * A timestamp from outside (an import, a file) as Coffer writes them (`isoNow`'s format), or
 * undefined when it is not an ISO-8601 date/time between the years 1970 and 9999.
 */
export function normTimestamp(value: unknown): string | undefined {
  if (typeof value !== "string" || !ISO_STAMP.test(value.trim())) return undefined;
  const ms = Date.parse(value.trim());
  if (Number.isNaN(ms) || ms < 0 || ms > 253402300799000) return undefined;
  return isoNow(new Date(ms));
}

/** How long ago, for people: "just now", "12 min ago", "3 h ago", "4 days ago" (`ms` = how long). */
export function agoText(ms: number): string {
  const m = Math.max(0, Math.round(ms / 60_000));
  if (m < 1) return "just now";
  if (m < 60) return `${m} min ago`;
  const hrs = Math.round(m / 60);
  return hrs < 48 ? `${hrs} h ago` : `${Math.round(hrs / 24)} days ago`;
}
