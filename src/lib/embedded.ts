/**
 * Files embedded in the binary (`import p from "./x.bin" with { type: "file" }`): their path is
 * inside the executable when it is compiled, on disk when run from source. A reader that needs a
 * real file (`dlopen`, reads at an offset of a large table) uses a copy under the store's state/.
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "./atomic";

/** A path inside the compiled binary (`/$bunfs/...`, `B:/~BUN/...` on Windows), not on disk. */
export function isEmbedded(path: string): boolean {
  return path.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(path);
}

/**
 * `embedded` as a file on disk: itself when run from source, else `copy`, written (atomically,
 * private to the user) unless `current(copy)` says the copy there is this file. `written` is true
 * when this call wrote it.
 */
export function diskCopy(
  embedded: string,
  copy: string,
  current: (copy: string) => boolean,
): { path: string; written: boolean } {
  if (!isEmbedded(embedded)) return { path: embedded, written: false };
  try {
    if (current(copy)) return { path: copy, written: false };
  } catch {} // no copy yet
  writeFileAtomic(copy, readFileSync(embedded), 0o600);
  return { path: copy, written: true };
}
