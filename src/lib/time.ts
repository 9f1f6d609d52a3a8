/** ISO-8601 UTC with second precision, the format of every timestamp Coffer writes. */
export function isoNow(now = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, "Z");
}
