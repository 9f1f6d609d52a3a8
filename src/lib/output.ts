/**
 * Text to stdout and stderr, written synchronously to the file descriptors. The first use of
 * `process.stdout` or `process.stderr` builds Node's stream machinery, which costs a compiled
 * Bun binary about as much as its whole start (issue 38); a command that prints a few lines and
 * exits needs none of it. Every command's output and the hook's answer go through here.
 */
import { fstatSync, writeSync } from "node:fs";

/**
 * Write all of `text` to `fd`, however the pipe takes it (in pieces, or EAGAIN for a moment).
 * False when it could not: the reader is gone (EPIPE) or the descriptor failed.
 */
export function writeAll(fd: number, text: string): boolean {
  const buf = Buffer.from(text);
  let off = 0;
  let spins = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || ++spins > 2000) return false;
      Bun.sleepSync(1);
    }
  }
  return true;
}

/**
 * A command's output. Once the reader is gone (`coffer list | head -1`) the output has nowhere to
 * go and that is not an error: the process ends quietly with 0, as `seq 1e9 | head -1` does.
 */
export function writeOut(text: string): void {
  if (!writeAll(1, text)) process.exit(0);
}

/** A message for people (notices, warnings, errors): stderr, ending quietly like writeOut. */
export function writeErr(text: string): void {
  if (!writeAll(2, text)) process.exit(0);
}

/**
 * Whether stdout (1) or stderr (2) is a terminal, without building its stream. A pipe or a file
 * (what scripts and agents give) is told by one fstat; only a character device (a terminal, or
 * /dev/null) loads node:tty, which costs milliseconds, to ask the terminal itself.
 */
export function isTerminal(fd: 1 | 2): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
    // Looked up at run time: a static import (or a `require` the bundler hoists) would load it always.
    return (process.getBuiltinModule("node:tty") as typeof import("node:tty")).isatty(fd);
  } catch {
    return false;
  }
}
