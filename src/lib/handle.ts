/**
 * The short handle an entry is shown by: the last 8 characters of its ULID. The first 10 are the
 * creation time (entries made in the same minute share 8 or 9 of them), the last 16 are random,
 * so 8 of those tell entries apart in practice (two alike among 100,000 entries about once in 200
 * stores; `findEntry` then says "ambiguous" and lists both). A pure function of the id: the same
 * handle in the CLI, the hooks' text and the web UI, and the hook's bytes stay deterministic.
 * A hand-named entry (`deploy-notes.md`) is shown by its whole id.
 */
import { ULID_RE } from "./ulid";

export const HANDLE_LENGTH = 8;

export function handle(id: string): string {
  return ULID_RE.test(id) ? id.slice(-HANDLE_LENGTH) : id;
}

/** Whether `want` names `id`: the id itself, or 4+ of its first or last characters (either case). */
export function namesId(id: string, want: string): boolean {
  const w = want.trim().toUpperCase();
  const i = id.toUpperCase();
  return i === w || (w.length >= 4 && (i.startsWith(w) || i.endsWith(w)));
}
