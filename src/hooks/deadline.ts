/**
 * Exactly one answer on stdout, and an answer by the deadline no matter what the main thread
 * is doing. SQLite calls and file I/O are synchronous, so a timer on the main thread cannot
 * fire while one of them hangs (a locked index, a huge catch-up): a watchdog thread holds the
 * empty output and, at the deadline, writes it and ends the process with status 0. A shared
 * flag decides who answers first; the loser stays silent — and when the watchdog won, the main
 * thread does not end the process until the watchdog's answer is completely written (else the
 * host would see an empty stdout).
 *
 * The watchdog is a native thread (watchdog/watchdog.c, loaded through bun:ffi): about 1 ms of a
 * hook's start. Where its library cannot be loaded (a platform without one, a store on a
 * `noexec` mount), a worker does the same (a second JavaScript VM: 2-3 ms of every hook on two
 * cores), ending the process through the C library (see `watchdogExit`).
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { diskCopy, isEmbedded } from "../lib/embedded";
import { writeAll } from "../lib/output";
import { type ExitStrategy, watchdogExit } from "../lib/platform";
import { watchdogLibraries } from "./watchdog/libraries";

/** 0: nobody answered yet; 1: the main thread answers; 2: the watchdog is writing; 3: the watchdog has written. */
const flag = new Int32Array(new SharedArrayBuffer(4));
const MAIN = 1;
const WATCHDOG_WRITING = 2;

/** Print the answer unless the watchdog already did. Returns false when it was too late. */
export function answer(json: string): boolean {
  if (Atomics.compareExchange(flag, 0, 0, MAIN) !== 0) return false;
  writeAll(1, `${json}\n`);
  return true;
}

/** When the watchdog is writing its answer, wait (bounded) until it is out: exiting now would cut it off. */
function awaitWatchdogAnswer(): void {
  if (Atomics.load(flag, 0) !== WATCHDOG_WRITING) return;
  try {
    Atomics.wait(flag, 0, WATCHDOG_WRITING, 2000);
  } catch {
    const until = Date.now() + 2000;
    while (Atomics.load(flag, 0) === WATCHDOG_WRITING && Date.now() < until) Bun.sleepSync(1);
  }
}

/** What the native thread reads until the process ends: never collected. */
const kept: Buffer[] = [];

/** Start the native watchdog thread from the first library that loads; false when none does. */
function armNative(at: number, out: string, log: string, libraries: string[]): boolean {
  for (const library of libraries) {
    const start = openWatchdog(library, dirname(log));
    if (!start) continue;
    const line = `${JSON.stringify({ at: new Date(at).toISOString(), msg: "deadline reached; answered the empty output" })}\n`;
    const bufs = [Buffer.from(out), Buffer.from(`${log}\0`), Buffer.from(line)] as const;
    kept.push(...bufs);
    const [o, l, n] = bufs;
    return start(ptr(flag), ptr(o), o.length, ptr(l), ptr(n), n.length, Math.max(0, at - Date.now())) === 0;
  }
  return false;
}

const SYMBOLS = {
  coffer_watchdog: {
    args: [FFIType.ptr, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.ptr, FFIType.i32, FFIType.i32],
    returns: FFIType.i32,
  },
} as const;

/**
 * The library's start function. One embedded in the binary is loaded from a copy in `dir` (the
 * store's state/, private to this user), written on first use and named by the embedded file's
 * content hash, so a new binary never loads an old copy. A hook creates no folder for it (before
 * the store exists, the worker watches).
 */
function openWatchdog(library: string, dir: string) {
  const path = isEmbedded(library) ? join(dir, basename(library)) : library;
  const open = () => dlopen(path, SYMBOLS).symbols.coffer_watchdog;
  try {
    return open();
  } catch {}
  if (path === library || !existsSync(dir)) return undefined;
  try {
    // Missing or damaged: written again. The right bytes that do not load are refused by this
    // system (a `noexec` mount): written again they would cost every hook a write and an fsync.
    const bytes = readFileSync(library);
    return diskCopy(library, path, (copy) => readFileSync(copy).equals(bytes)).written ? open() : undefined;
  } catch {
    return undefined;
  }
}

/** The watchdog as a worker, for a platform whose library cannot be loaded. */
function armWorker(at: number, out: string, log: string, exit: ExitStrategy): void {
  try {
    const url = URL.createObjectURL(new Blob([WATCHDOG], { type: "application/javascript" }));
    // The small heap (and no copy of the environment): the watchdog holds one timer and one string,
    // and starting a worker with the default large heap costs the hook about 2 ms more.
    const worker = new Worker(url, { smol: true, env: {} });
    worker.postMessage({ flag, at, out, log, exit });
    worker.unref();
  } catch {
    // No worker: the main-thread timer still covers every asynchronous wait (stdin).
  }
}

const WATCHDOG = `
self.onmessage = (e) => {
  const { flag, at, out } = e.data;
  setTimeout(() => {
    if (Atomics.compareExchange(flag, 0, 0, 2) !== 0) return;
    const fs = require("node:fs");
    // The whole answer, however the pipe takes it (in pieces, or EAGAIN for a moment).
    const buf = Buffer.from(out);
    let off = 0;
    let spins = 0;
    while (off < buf.length && spins < 2000) {
      try { off += fs.writeSync(1, buf, off, buf.length - off); }
      catch (err) { if (err && err.code === "EAGAIN") { spins++; Bun.sleepSync(1); } else break; }
    }
    try { fs.appendFileSync(e.data.log, JSON.stringify({ at: new Date().toISOString(), msg: "deadline reached; answered the empty output" }) + "\\n", { mode: 0o600 }); } catch {}
    // Now the main thread may end the process too (it waits for this while it is 2).
    Atomics.store(flag, 0, 3);
    Atomics.notify(flag, 0);
    // process.exit and process.reallyExit in a worker end only the worker: ask the C library.
    const how = e.data.exit;
    try {
      const { dlopen, FFIType } = require("bun:ffi");
      if (how.kind === "TerminateProcess") {
        const k32 = dlopen(how.library, { TerminateProcess: { args: [FFIType.i64, FFIType.u32], returns: FFIType.i32 } });
        k32.symbols.TerminateProcess(-1, 0); // -1: GetCurrentProcess()'s pseudo-handle
      } else {
        for (const lib of how.libraries) {
          try {
            dlopen(lib, { _exit: { args: [FFIType.i32], returns: FFIType.void } }).symbols._exit(0);
          } catch {}
        }
      }
    } catch {}
    process.kill(process.pid, "SIGKILL");
  }, Math.max(0, at - Date.now()));
};`;

/**
 * End the process now with status 0. `reallyExit` skips Bun's orderly shutdown, which would
 * first wait for the watchdog worker to tear down (about 2 ms on every hook). Everything the
 * hook writes is already on disk or in the kernel (synchronous writes, SQLite commits).
 */
export function exitNow(): never {
  awaitWatchdogAnswer();
  const p = process as unknown as { reallyExit?: (code: number) => never };
  if (typeof p.reallyExit === "function") p.reallyExit(0);
  process.exit(0);
}

/** How the watchdog runs: the native libraries to try in order, then a worker that exits this way. */
export type Watchdog = { native: string[]; exit: ExitStrategy };

/**
 * Arm the deadline: at `at` (epoch ms) the host gets `emptyJson` and the process ends.
 * `log` is the hook.log path for the one-line record.
 */
export function armDeadline(
  at: number,
  emptyJson: string,
  log: string,
  watchdog: Watchdog = { native: watchdogLibraries(), exit: watchdogExit() },
): void {
  if (!armNative(at, `${emptyJson}\n`, log, watchdog.native)) armWorker(at, `${emptyJson}\n`, log, watchdog.exit);
  const timer = setTimeout(
    () => {
      if (answer(emptyJson)) exitNow();
    },
    Math.max(0, at - Date.now()),
  );
  timer.unref();
}
