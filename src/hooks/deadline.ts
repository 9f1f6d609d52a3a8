/**
 * Exactly one answer on stdout, and an answer by the deadline no matter what the main thread
 * is doing. SQLite calls and file I/O are synchronous, so a timer on the main thread cannot
 * fire while one of them hangs (a locked index, a huge catch-up): a watchdog worker holds the
 * empty output and, at the deadline, writes it and ends the process with status 0 (the C
 * library's exit through bun:ffi, per OS: see `watchdogExit`). A shared flag decides who
 * answers first; the loser stays silent — and when the watchdog won, the main thread does not
 * end the process until the watchdog's answer is completely written (else the host would see
 * an empty stdout).
 */
import { writeSync } from "node:fs";
import { type ExitStrategy, watchdogExit } from "../lib/platform";

/** 0: nobody answered yet; 1: the main thread answers; 2: the watchdog is writing; 3: the watchdog has written. */
const flag = new Int32Array(new SharedArrayBuffer(4));
const MAIN = 1;
const WATCHDOG_WRITING = 2;

/** Write `text` to fd 1 completely (a pipe may take it in pieces or say EAGAIN). */
function writeAll(text: string): void {
  const buf = Buffer.from(text);
  let off = 0;
  let spins = 0;
  while (off < buf.length) {
    try {
      off += writeSync(1, buf, off, buf.length - off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || ++spins > 2000) return;
      Bun.sleepSync(1);
    }
  }
}

/** Print the answer unless the watchdog already did. Returns false when it was too late. */
export function answer(json: string): boolean {
  if (native) {
    // Past the native watchdog's time (less a margin for its shell to start), its answer may be
    // on its way: stay silent. Before it, disarm it: then this answer is the only one.
    if (performance.now() >= native.fireAt - NATIVE_MARGIN_MS) return false;
    native.disarm();
    native = undefined;
  }
  if (Atomics.compareExchange(flag, 0, 0, MAIN) !== 0) return false;
  writeAll(`${json}\n`);
  return true;
}

// ---------------------------------------------------------------------------------------------
// The native watchdog (Linux): two POSIX timers that run C library functions on their own
// threads, with no JavaScript: at the deadline `system()` prints the empty answer (and the
// hook.log line) through /bin/sh, which inherits stdout; 150 ms later `_exit(0)` ends the process
// with status 0 (the shell, if still writing, keeps stdout open until its answer is out). A
// Worker costs a second JavaScript VM on every hook (about 6 ms of wall time on a 2-core
// machine, measured); these timers cost a few FFI bindings. Elsewhere (macOS has no POSIX
// timers, Windows) or when they cannot be set up, the Worker below stands in.

/** The answer is the native watchdog's from this long before its time. */
const NATIVE_MARGIN_MS = 3;
/** Between the shell's answer and the end of the process. */
const NATIVE_EXIT_AFTER_MS = 150;

let native: { fireAt: number; disarm: () => void } | undefined;
/** The buffers the timers point into: kept alive for the life of the process. */
const nativeKeep: unknown[] = [];

/** `text` single-quoted for /bin/sh. */
const shQuote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

function armNative(ms: number, emptyJson: string, log: string, exit: ExitStrategy): boolean {
  if (process.platform !== "linux" || exit.kind !== "_exit") return false;
  const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
  const defs = {
    timer_create: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    timer_settime: { args: [FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    dlsym: { args: [FFIType.ptr, FFIType.cstring], returns: FFIType.ptr },
  } as const;
  let libc: ReturnType<typeof dlopen<typeof defs>> | undefined;
  for (const lib of exit.libraries) {
    try {
      libc = dlopen(lib, defs);
      break;
    } catch {}
  }
  if (!libc) return false;
  const c = libc.symbols;
  const cstr = (text: string) => {
    const b = Buffer.from(`${text}\0`);
    nativeKeep.push(b);
    return b;
  };
  const system = c.dlsym(null, cstr("system"));
  const exitFn = c.dlsym(null, cstr("_exit"));
  if (!system || !exitFn) return false;
  const line = JSON.stringify({
    at: new Date(Date.now() + ms).toISOString(),
    msg: "deadline reached; answered the empty output",
  });
  const command = cstr(
    `printf '%s\\n' ${shQuote(emptyJson)}; printf '%s\\n' ${shQuote(line)} >> ${shQuote(log)} 2>/dev/null`,
  );
  const ids: bigint[] = [];
  /** struct sigevent (64 bytes): sigev_value, signo, SIGEV_THREAD (2), then the function to run. */
  const timer = (fn: number, arg: number, after: number) => {
    const ev = new BigUint64Array(8);
    ev[0] = BigInt(arg);
    new Int32Array(ev.buffer)[3] = 2;
    ev[2] = BigInt(fn);
    const id = new BigUint64Array(1);
    nativeKeep.push(ev, id);
    if (c.timer_create(1 /* CLOCK_MONOTONIC */, ptr(ev), ptr(id)) !== 0) throw new Error("timer_create failed");
    ids.push(id[0]!);
    settime(id[0]!, after);
  };
  /** One-shot in `after` ms (0: disarm). */
  const settime = (id: bigint, after: number) => {
    const spec = new BigInt64Array(4); // it_interval (0), it_value
    spec[2] = BigInt(Math.floor(after / 1000));
    spec[3] = BigInt(Math.round((after % 1000) * 1e6));
    nativeKeep.push(spec);
    if (c.timer_settime(id, 0, ptr(spec), null) !== 0) throw new Error("timer_settime failed");
  };
  const disarm = () => {
    for (const id of ids) settime(id, 0);
  };
  const fireAt = performance.now() + ms;
  try {
    timer(Number(exitFn), 0, ms + NATIVE_EXIT_AFTER_MS);
    timer(Number(system), Number(ptr(command)), ms);
  } catch {
    try {
      disarm();
    } catch {}
    return false;
  }
  native = { fireAt, disarm };
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

/**
 * Arm the deadline: at `at` (epoch ms) the host gets `emptyJson` and the process ends.
 * `log` is the hook.log path for the one-line record.
 */
export function armDeadline(at: number, emptyJson: string, log: string, exit = watchdogExit()): void {
  try {
    // A deadline in the past still gets a timer (it fires at once).
    if (armNative(Math.max(1, at - Date.now()), emptyJson, log, exit)) return;
  } catch {}
  try {
    const url = URL.createObjectURL(new Blob([WATCHDOG], { type: "application/javascript" }));
    const worker = new Worker(url);
    worker.postMessage({ flag, at, out: `${emptyJson}\n`, log, exit });
    worker.unref();
  } catch {
    // No worker: the main-thread timer still covers every asynchronous wait (stdin).
  }
  const timer = setTimeout(
    () => {
      if (answer(emptyJson)) exitNow();
    },
    Math.max(0, at - Date.now()),
  );
  timer.unref();
}
