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

/** The local calendar day of a time, `YYYY-MM-DD` (budgets and daily figures follow the user's day). */
export function localDay(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The start (local midnight) of the day after the one `ms` falls in. */
export function nextLocalMidnight(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime();
}

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
