/**
 * Reading the value after a secret-ish name, by hand within bounded windows: on the spot (quoted,
 * bare, an XML element's text), alone on the next line, a YAML or inline list, or glued to the name.
 */
import { lists } from "./names";
import { machineMade } from "./values";

export const MAX_VALUE = 4096;

export type Value = { start: number; end: number; quoted: boolean; code: boolean; rawEnd?: number };

/**
 * What readValue read: the value (or null), and how far it looked (also when it found nothing):
 * names before that are inside the value.
 */
export type Read = { value: Value | null; lookedTo: number };

/** The value starting at `p` (after the operator and spaces), or null. Never crosses a line unless `element`. */
export function readValue(text: string, p: number, element: boolean): Read {
  const n = text.length;
  let lookedTo = p;
  if (p >= n) return { value: null, lookedTo };
  if (element) {
    let s = p;
    while (s < n && s - p < 200 && /\s/.test(text[s]!)) s++;
    let e = s;
    while (e < n && e - s < MAX_VALUE && text[e] !== "<") e++;
    if (text[e] !== "<") return { value: null, lookedTo };
    let t = e;
    while (t > s && /\s/.test(text[t - 1]!)) t--;
    return { value: t > s ? { start: s, end: t, quoted: true, code: false } : null, lookedTo };
  }
  let c = text[p]!;
  // Python string prefixes: f"..", r'..', b".."
  let fstring = false;
  if ((c === "f" || c === "r" || c === "b") && (text[p + 1] === '"' || text[p + 1] === "'")) {
    fstring = c === "f";
    p++;
    c = text[p]!;
  }
  if (c === "\\" && (text[p + 1] === '"' || text[p + 1] === "'")) {
    // an escaped quote: JSON inside a string
    const q = `\\${text[p + 1]}`;
    let nl = text.indexOf("\n", p);
    if (nl < 0 || nl - p > MAX_VALUE) nl = Math.min(n, p + MAX_VALUE);
    const end = text.slice(p + 2, nl).indexOf(q);
    lookedTo = end < 0 ? nl : p + 2 + end;
    if (end < 0) return { value: null, lookedTo };
    return { value: { start: p + 2, end: p + 2 + end, quoted: true, code: false }, lookedTo };
  }
  if (c === '"' || c === "'" || c === "`") {
    let e = p + 1;
    while (e < n && e - p < MAX_VALUE) {
      const ch = text[e]!;
      if (ch === "\\") {
        e += 2;
        continue;
      }
      if (ch === c) break;
      if (ch === "\n" && c !== "`") break;
      e++;
    }
    lookedTo = e;
    if (text[e] !== c) return { value: null, lookedTo };
    const v = text.slice(p + 1, e);
    if (fstring && /\{[\w.]+\}/.test(v)) return { value: null, lookedTo };
    return { value: { start: p + 1, end: e, quoted: true, code: false }, lookedTo };
  }
  if (c === "{" || c === "[" || c === "(" || c === "\n" || c === "\r") return { value: null, lookedTo };
  if (text.startsWith("/*", p) || text.startsWith("//", p)) return { value: null, lookedTo }; // a comment, not a value
  let e = p;
  while (e < n && e - p < MAX_VALUE) {
    const ch = text.charCodeAt(e);
    // whitespace, quotes, , ; ) } ] > < & \ ( [ |
    if (
      ch <= 32 ||
      ch === 34 ||
      ch === 39 ||
      ch === 96 ||
      ch === 44 ||
      ch === 59 ||
      ch === 41 ||
      ch === 125 ||
      ch === 93 ||
      ch === 62 ||
      ch === 60 ||
      (ch === 38 && /^&[\w.-]{1,40}=/.test(text.slice(e, e + 42))) ||
      // a backslash ends the value only as an escape (`\n` inside a JSON string), not as a character of it
      (ch === 92 && /^\\[nrt"'\\u/]/.test(text.slice(e, e + 2))) ||
      ch === 40 ||
      ch === 91 ||
      ch === 124
    )
      break;
    e++;
  }
  lookedTo = e;
  if (e === p) return { value: null, lookedTo };
  const stop = text[e];
  // `getAccessToken(session)`, `os.environ["X"]`, `options?.authInfo`: code, not a value
  const code = stop === "(" || stop === "[" || /\?\.|!\.|=>/.test(text.slice(p, e));
  // a trailing sentence period is not part of the value
  let end = e;
  while (end > p && (text[end - 1] === "." || text[end - 1] === ":")) end--;
  return { value: { start: p, end, quoted: false, code, rawEnd: e }, lookedTo };
}

/**
 * A value alone on the next line (after at most one blank line): `API key:\n  3f9a...`,
 * `Here is my token\n\n    3f9a...`. It must be one machine-made token.
 */
export function nextLineValue(
  text: string,
  from: number,
  judge: (v: string) => boolean = machineMade,
  wholeLine = true,
): [number, number] | null {
  let p = from;
  let lines = 0;
  while (p < text.length && lines < 3) {
    const c = text[p]!;
    if (c === "\n") lines++;
    else if (c !== " " && c !== "\t" && c !== "\r") break;
    p++;
  }
  if (lines < 1 || lines > 2 || p >= text.length) return null;
  let e = p;
  while (e < text.length && e - p < 1024 && !/\s/.test(text[e]!)) e++;
  if (e - p < 16) return null;
  // the token is the whole line (in prose; a YAML block's first word is enough)
  if (wholeLine && e < text.length && text[e] !== "\n" && text[e] !== "\r") {
    let q = e;
    while (q < text.length && (text[q] === " " || text[q] === "\t")) q++;
    if (q < text.length && text[q] !== "\n" && text[q] !== "\r") return null;
  }
  let s0 = p;
  let e0 = e;
  while (s0 < e0 && "`'\"".includes(text[s0]!)) s0++;
  while (e0 > s0 && "`'\",;".includes(text[e0 - 1]!)) e0--;
  const v = text.slice(s0, e0);
  return judge(v) && !v.includes(":") ? [s0, e0] : null;
}

/** YAML list items under a name (`api_keys:` then `  - v` lines at one indentation): those the judge accepts. */
export function yamlListValues(
  text: string,
  from: number,
  judge: (v: string, quoted: boolean) => boolean,
): [number, number][] {
  const out: [number, number][] = [];
  let p = from;
  if (text[p] === "\r") p++;
  if (text[p] !== "\n") return out;
  p++;
  let indent = -1;
  for (let k = 0; k < 100 && p < text.length; k++) {
    let q = p;
    while (q < text.length && (text[q] === " " || text[q] === "\t")) q++;
    if (text[q] !== "-" || text[q + 1] !== " " || (indent >= 0 && q - p !== indent)) break;
    indent = q - p;
    let e = text.indexOf("\n", q);
    if (e < 0) e = text.length;
    let vs = q + 2;
    while (vs < e && text[vs] === " ") vs++;
    let ve = e;
    while (ve > vs && /\s/.test(text[ve - 1]!)) ve--;
    const quoted = ve - vs >= 2 && (text[vs] === '"' || text[vs] === "'") && text[ve - 1] === text[vs];
    if (quoted) {
      vs++;
      ve--;
    }
    let v = text.slice(vs, ve);
    // a list item followed by words: its first word is the value, if it is a token (`- name: x` is a mapping)
    let sure = true;
    if (!quoted && /\s/.test(v)) {
      v = v.split(/\s/, 1)[0]!;
      ve = vs + v.length;
      sure = machineMade(v);
    }
    if (!quoted && /:(?:\s|$)/.test(v)) sure = false;
    if (sure && ve - vs <= 4096 && judge(v, quoted)) out.push([vs, ve]);
    p = e + 1;
  }
  return out;
}

/** Items of an inline list (`["a", "b"]`, `[a, b]`) on one line: those the judge accepts. */
export function inlineListValues(
  text: string,
  from: number,
  judge: (v: string, quoted: boolean) => boolean,
): { items: [number, number][]; end: number } {
  const items: [number, number][] = [];
  let p = from + 1;
  const stop = Math.min(text.length, from + 4096);
  for (let k = 0; k < 64 && p < stop; k++) {
    while (p < stop && (text[p] === " " || text[p] === "\t" || text[p] === ",")) p++;
    const c = text[p];
    if (c === undefined || c === "]" || c === "\n" || c === "\r") break;
    let vs = p;
    let ve: number;
    let quoted = false;
    if (c === '"' || c === "'") {
      let close = p + 1;
      while (close < stop && text[close] !== c && text[close] !== "\n") close++;
      if (text[close] !== c) break;
      vs = p + 1;
      ve = close;
      p = close + 1;
      quoted = true;
    } else {
      ve = p;
      while (ve < stop && !/[,\]\s]/.test(text[ve]!)) ve++;
      p = ve;
      // a list of plain values, not a nested structure or code (`[key=[...`, `[f(x), ...]`)
      if (/[[=(]/.test(text.slice(vs, ve))) break;
    }
    if (ve > vs && judge(text.slice(vs, ve), quoted)) items.push([vs, ve]);
  }
  return { items, end: p };
}

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** [A-Za-z0-9+/=_.~-] */
const isValueChar = (c: number) =>
  isLetter(c) ||
  (c >= 48 && c <= 57) ||
  c === 43 ||
  c === 47 ||
  c === 61 ||
  c === 95 ||
  c === 46 ||
  c === 126 ||
  c === 45;

/**
 * A value glued to its name by a separator: `codakey-<uuid>`, `acmeSECRET-3f9a...`,
 * `acme-PRIVATE-key-Zq8v...`, `acmePRIVATE.53e2...`, `acmeACCESS:<uuid>`. The credential word ends
 * at `hitEnd` (letters glued to it belong to the name); returns where the name ends and the value.
 */
export function gluedValue(text: string, hitEnd: number): { nameEnd: number; start: number; end: number } | null {
  const n = text.length;
  let p = hitEnd;
  while (p < n && p - hitEnd < 24 && isLetter(text.charCodeAt(p))) p++;
  for (let k = 0; k < 3; k++) {
    const c = text[p];
    if (c !== "-" && c !== "_" && c !== ".") break;
    let q = p + 1;
    while (q < n && q - p <= 12 && isLetter(text.charCodeAt(q))) q++;
    if (q === p + 1 || !lists().glue.has(text.slice(p + 1, q).toLowerCase())) break;
    p = q;
  }
  const sep = text[p];
  if (sep !== "-" && sep !== "_" && sep !== "." && sep !== ":") return null;
  let e = p + 1;
  while (e < n && e - p < 1024 && isValueChar(text.charCodeAt(e))) e++;
  while (e > p + 1 && (text[e - 1] === "." || text[e - 1] === "-" || text[e - 1] === "_")) e--;
  if (e - p - 1 < 16) return null;
  return { nameEnd: p, start: p + 1, end: e };
}
