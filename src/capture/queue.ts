import * as v from "valibot";
import { writeFileAtomic } from "../lib/atomic";
import { withFileLock } from "../lib/lock";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";

/** One finished session waiting to be observed (`queue/session-queue.json`). */
export const QueueItemSchema = v.object({
  transcript_path: v.string(),
  host: v.string(),
  session: v.string(),
  at: v.string(),
});
export type QueueItem = v.InferOutput<typeof QueueItemSchema>;

export const QUEUE_MAX = 50;

const lockFile = () => `${paths.queue()}.lock`;

/** The queue as stored; a missing or damaged file reads as empty (valid items of a damaged list are kept). */
export function readQueue(): QueueItem[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readOwnText(paths.queue()));
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item) => {
    const r = v.safeParse(QueueItemSchema, item);
    return r.success ? [r.output] : [];
  });
}

function writeQueue(items: QueueItem[]): void {
  writeFileAtomic(paths.queue(), `${JSON.stringify(items, null, 2)}\n`, 0o600);
}

/** Keep one item per host + session (the newest), oldest first, at most QUEUE_MAX. */
export function normalizeQueue(items: QueueItem[]): QueueItem[] {
  const byKey = new Map<string, QueueItem>();
  for (const item of items) {
    const key = `${item.host}\u0000${item.session}`;
    const prev = byKey.get(key);
    if (!prev || prev.at <= item.at) byKey.set(key, item);
  }
  return [...byKey.values()].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)).slice(-QUEUE_MAX);
}

/** Add a finished session under the queue lock (dedup by host + session, newest 50 kept). */
export function enqueueSession(item: QueueItem, timeoutMs = 1000): void {
  withFileLock(lockFile(), () => writeQueue(normalizeQueue([...readQueue(), item])), { timeoutMs });
}

/**
 * Read-modify-write the queue under its lock: `fn` gets the current items and returns the
 * items to keep plus a result.
 */
export function updateQueue<T>(fn: (items: QueueItem[]) => { keep: QueueItem[]; result: T }, timeoutMs = 5000): T {
  return withFileLock(
    lockFile(),
    () => {
      const { keep, result } = fn(readQueue());
      writeQueue(normalizeQueue(keep));
      return result;
    },
    { timeoutMs },
  );
}
