/**
 * Wait until `cond` holds, polling every `every` ms (50); after `ms` (10 s) fail, naming `what` was
 * awaited and what `context()` tells (a log, a server's stderr).
 */
export async function until(
  cond: () => boolean,
  opts: { what?: string; context?: () => string; ms?: number; every?: number } = {},
): Promise<void> {
  const end = Date.now() + (opts.ms ?? 10_000);
  while (!cond()) {
    if (Date.now() > end) {
      const more = opts.context ? `; ${opts.context()}` : "";
      throw new Error(`timed out waiting${opts.what ? ` for ${opts.what}` : ""}${more}`);
    }
    await Bun.sleep(opts.every ?? 50);
  }
}
