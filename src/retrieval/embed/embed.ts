/**
 * The sentence embedding: a static model distilled from all-MiniLM-L6-v2 (scripts/embed/ builds
 * it; SOURCES.md there says from what). A sentence's vector is the mean of its WordPiece tokens'
 * rows, scaled to unit length: no network, no native code, microseconds per sentence.
 *
 * The table (model.bin, layout in scripts/embed/export.py) is embedded in the binary. A compiled
 * binary's embedded files can only be copied out whole, so the first use copies it once into
 * `state/model/<id>.bin`. A process maps the vocabulary's part of that file (hash slots, strings,
 * scales: 0.7 MB, of which a sentence's WordPiece probes touch a few pages) and reads each token's
 * row when it first meets the token: a prompt hook reads a few dozen rows. (Reading the vocabulary
 * instead cost a prompt hook 0.4 ms; mapping the rows too faulted in 64 KB around each row it
 * touched, 8 MB more resident memory for one sentence.)
 *
 * The tokenizer is BERT's (uncased): clean control characters, space out CJK ideographs, strip
 * accents, lowercase; split on whitespace and punctuation; WordPiece, greedy longest match with
 * `##` continuations, a word over 100 characters or with no match is unknown (and dropped, as
 * model2vec drops it). test/retrieval/embed.test.ts pins ids and vectors to the Python
 * tokenizer's and model's on 1,000 strings.
 */
import { openSync, readdirSync, readSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { diskCopy } from "../../lib/embedded";
import { paths } from "../../lib/paths";
import tablePath from "./model.bin" with { type: "file" };
import meta from "./model.json";

export const MODEL_ID: string = meta.id;
export const DIMS: number = meta.dims;

/** Tokens read per text at most (the teacher's limit), and characters looked at before that. */
const MAX_TOKENS = 512;
const MAX_CHARS = 512 * 8;
const MAX_WORD = 100;
const HEADER = 64;

type Table = {
  slots: Int32Array;
  offsets: Uint32Array;
  strings: Uint8Array;
  scales: Float32Array;
  /** A token's row of int8 components (read from the file on first use, then kept). */
  row: (id: number) => Int8Array;
  dims: number;
  tokens: number;
  unk: number;
};

let table: Table | null | undefined;

/** Where the table is read from: the source file, or its copy under state/ for a compiled binary. */
function tableFile(): string {
  const { path, written } = diskCopy(
    tablePath,
    join(paths.state(), "model", `${MODEL_ID}.bin`),
    (copy) => statSync(copy).size === meta.bytes,
  );
  // Another binary's model (an older version) is not needed any more: one copy is kept, this one.
  if (written)
    for (const name of readdirSync(dirname(path)))
      if (name.endsWith(".bin") && name !== basename(path))
        try {
          unlinkSync(join(dirname(path), name));
        } catch {}
  return path;
}

/** Read `length` bytes of `fd` at `position` into a new buffer (all of them, however the reads come). */
function readAt(fd: number, length: number, position: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let done = 0; done < length; ) {
    const n = readSync(fd, out, done, length - done, position + done);
    if (n <= 0) throw new Error("model table is shorter than its header says");
    done += n;
  }
  return out;
}

/**
 * The table's first `HEADER + bytes` bytes mapped (the file is never truncated: a new copy replaces
 * it by rename), and where the vocabulary starts in them; read into memory where mapping fails.
 */
export function vocabOf(path: string, fd: number, bytes: number): { vocab: Uint8Array; start: number } {
  try {
    const vocab = Bun.mmap(path, { size: HEADER + bytes });
    if (vocab.length === HEADER + bytes) return { vocab, start: HEADER };
  } catch {}
  return { vocab: readAt(fd, bytes, HEADER), start: 0 };
}

/** The table, opened on first use; null when it cannot be read (similarity is then off). */
export function loadTable(file?: string): Table | null {
  if (table !== undefined && !file) return table;
  try {
    // The descriptor stays open for the process: rows are read from it as tokens are met.
    const path = file ?? tableFile();
    const fd = openSync(path, "r");
    const head = readAt(fd, HEADER, 0);
    const view = new DataView(head.buffer);
    if (view.getUint32(0, true) !== 0x314d4543) throw new Error("not a model table"); // "CEM1"
    const dims = view.getUint32(4, true);
    const tokens = view.getUint32(8, true);
    const nslots = view.getUint32(12, true);
    const strBytes = view.getUint32(16, true);
    const unk = view.getUint32(20, true);
    const pad = (4 - (strBytes % 4)) % 4;
    // Everything before the rows, mapped (read where mapping fails): slots, offsets, strings, scales.
    const vocabBytes = 4 * nslots + 4 * (tokens + 1) + strBytes + pad + 4 * tokens;
    const { vocab, start } = vocabOf(path, fd, vocabBytes);
    let at = start;
    const slots = new Int32Array(vocab.buffer, at, nslots);
    at += 4 * nslots;
    const offsets = new Uint32Array(vocab.buffer, at, tokens + 1);
    at += 4 * (tokens + 1);
    const strings = new Uint8Array(vocab.buffer, at, strBytes);
    at += strBytes + pad;
    const scales = new Float32Array(vocab.buffer, at, tokens);
    const rowsAt = HEADER + vocabBytes;
    const rows = new Map<number, Int8Array>();
    const row = (id: number): Int8Array => {
      let r = rows.get(id);
      if (!r) {
        const bytes = readAt(fd, dims, rowsAt + id * dims);
        r = new Int8Array(bytes.buffer);
        rows.set(id, r);
      }
      return r;
    };
    const t = { slots, offsets, strings, scales, row, dims, tokens, unk };
    if (!file) table = t;
    return t;
  } catch {
    if (!file) table = null;
    return null;
  }
}

const encoder = new TextEncoder();

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const HASH = 0x23; // "#"
/** fnv1a32 of "##", where a continuation piece's hash starts. */
const CONTINUED = Math.imul(Math.imul(FNV_OFFSET ^ HASH, FNV_PRIME) ^ HASH, FNV_PRIME) >>> 0;

/**
 * The id of the vocabulary token `bytes[from, to)` (UTF-8), after "##" when `continued`, or -1.
 * It hashes and compares the word's bytes where they are: a word of n characters can take n
 * probes, and none of them allocates.
 */
function lookup(t: Table, bytes: Uint8Array, from: number, to: number, continued: boolean): number {
  let h = continued ? CONTINUED : FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, FNV_PRIME);
  const prefix = continued ? 2 : 0;
  const length = prefix + to - from;
  const mask = t.slots.length - 1;
  for (let s = (h >>> 0) & mask; ; s = (s + 1) & mask) {
    const id = t.slots[s]!;
    if (id < 0) return -1;
    const start = t.offsets[id]!;
    if (t.offsets[id + 1]! - start !== length) continue;
    if (continued && (t.strings[start] !== HASH || t.strings[start + 1] !== HASH)) continue;
    let i = 0;
    while (i < to - from && t.strings[start + prefix + i] === bytes[from + i]) i++;
    if (i === to - from) return id;
  }
}

/** CJK ideographs, spaced out as single-character words (BERT's `handle_chinese_chars`). */
function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b920 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

const WHITE = /^[\t\n\r\v\f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
const OTHER = /^\p{C}$/u;
const MARK = /^\p{Mn}$/u;
const PUNCT = /^[\p{P}!-/:-@[-`{-~]$/u;

/** Printable ASCII and tab/line breaks: nothing to clean, fold or strip (most of what Coffer embeds). */
const PLAIN = /^[\t\n\r\x20-\x7e]*$/;

/** BERT's normalizer and pre-tokenizer: the words of `text`, lowercased and without accents. */
export function basicWords(text: string): string[] {
  // In printable ASCII every character but a letter, a digit or a space is punctuation.
  if (PLAIN.test(text)) return text.toLowerCase().match(/[a-z0-9]+|[^a-z0-9\s]/g) ?? [];
  let clean = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    // Control characters go (tab and line breaks are spaces); then whitespace is a space.
    if (ch === "\t" || ch === "\n" || ch === "\r") clean += " ";
    else if (cp === 0 || cp === 0xfffd || OTHER.test(ch)) continue;
    else if (WHITE.test(ch)) clean += " ";
    else if (isCjk(cp)) clean += ` ${ch} `;
    else clean += ch;
  }
  let folded = "";
  for (const ch of clean.normalize("NFD")) if (!MARK.test(ch)) folded += ch.toLowerCase();
  const words: string[] = [];
  let word = "";
  for (const ch of folded) {
    if (ch === " " || WHITE.test(ch)) {
      if (word) words.push(word);
      word = "";
    } else if (PUNCT.test(ch)) {
      if (word) words.push(word);
      words.push(ch);
      word = "";
    } else word += ch;
  }
  if (word) words.push(word);
  return words;
}

/** WordPiece ids of one word ([] for an unknown word), without the unknown token. */
function wordPieces(t: Table, word: string): number[] {
  // Pieces end on character boundaries: `ends[k]` is where character k ends in the UTF-8 bytes.
  const bytes = encoder.encode(word);
  let ends: number[] | undefined;
  if (bytes.length !== word.length) {
    ends = [];
    let at = 0;
    for (const ch of word) {
      at += encoder.encode(ch).length;
      ends.push(at);
    }
    if (ends.length > MAX_WORD) return []; // [UNK]
  } else if (word.length > MAX_WORD) return [];
  const chars = ends?.length ?? bytes.length;
  const byteAt = (k: number) => (k === 0 ? 0 : ends ? ends[k - 1]! : k);
  const pieces: number[] = [];
  let start = 0;
  while (start < chars) {
    let end = chars;
    let found = -1;
    while (start < end) {
      const id = lookup(t, bytes, byteAt(start), byteAt(end), start > 0);
      if (id >= 0) {
        found = id;
        break;
      }
      end--;
    }
    if (found < 0) return []; // the whole word is [UNK]
    pieces.push(found);
    start = end;
  }
  return pieces.filter((id) => id !== t.unk);
}

/** Words seen before in this process and their pieces (a reindex meets the same words again and again). */
const seenWords = new Map<string, number[]>();
const SEEN_MAX = 100_000;

/** Token ids of `text` as model2vec reads it: no special tokens, unknown pieces dropped. */
export function tokenize(text: string, t: Table | null = loadTable(), max = MAX_TOKENS): number[] {
  if (!t) return [];
  const ids: number[] = [];
  const chars = Math.min(MAX_CHARS, max * 8);
  for (const word of basicWords(text.length > chars ? text.slice(0, chars) : text)) {
    let pieces = t === table ? seenWords.get(word) : undefined;
    if (!pieces) {
      pieces = wordPieces(t, word);
      if (t === table) {
        if (seenWords.size >= SEEN_MAX) seenWords.clear();
        seenWords.set(word, pieces);
      }
    }
    for (const id of pieces) ids.push(id);
    if (ids.length >= max) return ids.slice(0, max);
  }
  return ids;
}

/** The unit vector of `text` (all zeros when it holds no known token, or the model is missing). */
export function embed(text: string, maxTokens = MAX_TOKENS, t: Table | null = loadTable()): Float32Array {
  const out = new Float32Array(t?.dims ?? DIMS);
  if (!t) return out;
  const ids = tokenize(text, t, maxTokens);
  if (!ids.length) return out;
  const d = t.dims;
  // Eight components a turn: a fresh process runs this loop in the interpreter, where the loop's
  // own steps cost as much as the sums (0.47 -> 0.33 ms for 25 tokens). The same sums in the same order.
  const whole = d - (d % 8);
  for (const id of ids) {
    const s = t.scales[id]!;
    const r = t.row(id);
    let i = 0;
    for (; i < whole; i += 8) {
      out[i]! += r[i]! * s;
      out[i + 1]! += r[i + 1]! * s;
      out[i + 2]! += r[i + 2]! * s;
      out[i + 3]! += r[i + 3]! * s;
      out[i + 4]! += r[i + 4]! * s;
      out[i + 5]! += r[i + 5]! * s;
      out[i + 6]! += r[i + 6]! * s;
      out[i + 7]! += r[i + 7]! * s;
    }
    for (; i < d; i++) out[i]! += r[i]! * s;
  }
  let norm = 0;
  for (let i = 0; i < d; i++) norm += out[i]! * out[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < d; i++) out[i]! /= norm;
  return out;
}

/**
 * Whether the model can read `text`: most of its letters are Latin script (the model is English;
 * Chinese, Japanese or Korean come out one character a token, Cyrillic or Greek in fragments).
 */
export function readsText(text: string): boolean {
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  const latin = text.match(/\p{Script=Latin}/gu)?.length ?? 0;
  // An ideograph, kana or hangul syllable says about what a short word does: it counts three letters.
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu)?.length ?? 0;
  return latin > 0 && latin >= 0.6 * (letters + 2 * cjk);
}
