/**
 * Every occurrence of a secret, not only the one whose context gave it away: once a rule has found
 * a value (`token = 'zajm…'`), the same value elsewhere (`| 'zajm…'`, an agent echoing a key the user
 * pasted a turn earlier, the title of an entry whose body named it) carries no context of its own,
 * so no rule would find it again. The values found in a group of texts that belong together (one
 * text, the fields of one write, the turns of one transcript) are looked for in all of them, with
 * their variants: URL-encoded, JSON-escaped, base64 (at any alignment, so inside `user:key` too),
 * and split across line breaks.
 *
 * Linear time: one pass hashes every 8-character window of a text and looks it up in a table of the
 * variants' first 8 characters (as many values as the text holds cost one pass, not one each); the
 * table keeps a bounded number of values, a bounded number per window, and values of bounded length.
 */
import type { Span } from "./types";
import { isPlaceholder } from "./values";

/** The shortest value spread (shorter ones are common words and numbers), and the hashed window. */
const W = 8;
/** Longer values (a whole PEM block) are found again by their own rule. */
const VALUE_MAX = 1024;
const VARIANTS_MAX = 16384;
const PER_WINDOW = 8;
/** Base64 of a value covers the whole blob it sits in, up to this far either way. */
const BLOB_MAX = 8192;

type Variant = { text: string; family: string; blob: boolean };
export type KnownSecrets = { byWindow: Map<number, Variant[]>; joinable: boolean };

/** 31^W as a 32-bit integer: what the first character of a window weighs in its hash. */
const POW = (() => {
  let p = 1;
  for (let i = 0; i < W; i++) p = Math.imul(p, 31);
  return p;
})();

function windowHash(s: string, at: number): number {
  let h = 0;
  for (let i = at; i < at + W; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Is a found value specific enough to be redacted wherever it occurs? Not a placeholder, 8+
 * characters, and not a short lone word (`rootpasswd` under a password key is redacted there, but
 * the same word elsewhere may name something else).
 */
function spreadable(v: string): boolean {
  return v.length >= W && v.length <= VALUE_MAX && !isPlaceholder(v) && !(/^[a-z]+$/.test(v) && v.length < 12);
}

/**
 * Base64 of `v` as it reads inside a longer encoded text: for each of the three byte alignments, the
 * characters that depend on `v`'s bytes only (standard and URL-safe alphabets).
 */
function base64Cores(v: string): string[] {
  const bytes = Buffer.from(v, "utf8");
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const enc = Buffer.concat([Buffer.alloc(k), bytes]).toString("base64");
    const from = Math.ceil((8 * k) / 6);
    const to = Math.floor((8 * (k + bytes.length)) / 6);
    const core = enc.slice(from, to);
    if (core.length < 10) continue;
    out.push(core);
    const url = core.replace(/\+/g, "-").replace(/\//g, "_");
    if (url !== core) out.push(url);
  }
  return out;
}

/** The values in `spans` (of `text`): what a later pass looks for. `<private>` spans are not values. */
export function foundValues(text: string, spans: Span[], into: Map<string, string>): void {
  for (const s of spans) {
    if (s.with !== undefined || into.size >= VARIANTS_MAX) continue;
    const v = text.slice(s.start, s.end).trim();
    if (spreadable(v) && !into.has(v)) into.set(v, s.family);
    // `user:password` redacted whole: the password alone is the secret too
    const pw = /^[^:\s]{1,64}:(\S+)$/.exec(v)?.[1];
    if (pw && spreadable(pw) && !into.has(pw)) into.set(pw, s.family);
  }
}

/** The table of every variant of every value, by the hash of its first W characters. */
export function knownSecrets(values: Map<string, string>): KnownSecrets | undefined {
  if (!values.size) return undefined;
  const byWindow = new Map<number, Variant[]>();
  const seen = new Set<string>();
  let joinable = false;
  let count = 0;
  const add = (text: string, family: string, blob: boolean) => {
    if (text.length < W || seen.has(text) || count >= VARIANTS_MAX) return;
    const h = windowHash(text, 0);
    const list = byWindow.get(h) ?? [];
    if (list.length >= PER_WINDOW) return;
    seen.add(text);
    list.push({ text, family, blob });
    byWindow.set(h, list);
    count++;
    if (!/\s/.test(text)) joinable = true;
  };
  // every value before any variant: when there are too many, the values themselves are kept
  for (const [v, family] of values) add(v, family, false);
  for (const [v, family] of values) {
    if (count >= VARIANTS_MAX) break;
    add(encodeURIComponent(v), family, false);
    add(v.replace(/\//g, "\\/"), family, false);
    for (const core of base64Cores(v)) add(core, family, true);
  }
  return { byWindow, joinable };
}

/** Every start of a known variant in `s`, in order: `emit(start, end, variant)`. */
function scan(s: string, known: KnownSecrets, emit: (start: number, end: number, v: Variant) => void): void {
  if (s.length < W) return;
  let h = windowHash(s, 0);
  for (let i = 0; ; i++) {
    const bucket = known.byWindow.get(h);
    if (bucket) for (const v of bucket) if (s.startsWith(v.text, i)) emit(i, i + v.text.length, v);
    if (i + W >= s.length) return;
    h = (Math.imul(h, 31) + s.charCodeAt(i + W) - Math.imul(s.charCodeAt(i), POW)) | 0;
  }
}

const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

/**
 * Add a span for every occurrence of a known value in `text` (with its variants); an occurrence
 * inside a base64 blob takes the whole blob. Spans may overlap the rules' own: they are merged.
 */
export function echoSpans(text: string, known: KnownSecrets, spans: Span[]): void {
  let covered = 0;
  const push = (start: number, end: number, v: Variant) => {
    if (end <= covered) return; // inside a span already added (a blob taken whole)
    if (v.blob) {
      let s = start;
      while (s > covered && start - s < BLOB_MAX && BASE64_CHAR.test(text[s - 1]!)) s--;
      let e = end;
      while (e < text.length && e - end < BLOB_MAX && BASE64_CHAR.test(text[e]!)) e++;
      while (e < text.length && e - end < BLOB_MAX && text[e] === "=") e++;
      start = s;
      end = e;
    }
    if (end > covered) covered = end;
    spans.push({ start, end, family: v.family, rank: 5 });
  };
  scan(text, known, push);
  if (!known.joinable || !text.includes("\n")) return;
  // the text with its line breaks (and the indentation after them) taken out: a value wrapped
  // over lines reads whole there; `at` maps each kept character back to the text
  const at = new Int32Array(text.length);
  const kept: string[] = [];
  let n = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 10 && !(c === 13 && text.charCodeAt(i + 1) === 10)) {
      at[n++] = i;
      continue;
    }
    kept.push(text.slice(from, i));
    if (c === 13) i++;
    while (i + 1 < text.length && (text[i + 1] === " " || text[i + 1] === "\t")) i++;
    from = i + 1;
  }
  kept.push(text.slice(from));
  const joined = kept.join("");
  covered = 0;
  scan(joined, known, (js, je, v) => {
    const start = at[js]!;
    const end = at[je - 1]! + 1;
    // whole occurrences were found above; only those that cross a break are new here
    if (end - start !== je - js && !/\s/.test(v.text)) push(start, end, v);
  });
}
