/**
 * How eagerly the JIT compiles. Most Coffer processes live a few milliseconds (a hook, `list`,
 * `recall`): the binary starts with JavaScriptCore's tier-up thresholds scaled up (scripts/targets.ts,
 * `--compile-jit-policy`), so code that runs a few hundred times stays in the interpreter instead
 * of paying to be compiled. A process that turns out to be long or heavy (a server, a reindex, a
 * batch of writes) tiers up normally from the moment it knows, through `fullJit`.
 */

let full = false;

/** From here on, the JIT compiles as it normally would (once per process). */
export function fullJit(): void {
  if (full) return;
  full = true;
  try {
    Bun.unsafe.setJITPolicy(1);
  } catch {}
}

/** Rows indexed or written in this process; past ROWS_BEFORE_FULL_JIT the process is a batch. */
let rows = 0;
const ROWS_BEFORE_FULL_JIT = 256;

/** One more row written: a rebuild, a big refresh or an import is a batch, whatever command started it. */
export function countRow(): void {
  if (++rows === ROWS_BEFORE_FULL_JIT) fullJit();
}
