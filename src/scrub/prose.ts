/**
 * Secret values in prose: the machine-made word a few words after a secret's name ("the staging
 * password is hunter2", "aws secret is Hj8K...") or before it ("X is the acme api key").
 */
import { lists } from "./names";
import { isProseSecret, isSecretValue, machineMade, typeName } from "./values";

/**
 * Right after a plain secret name ("acme SECRET 1234..."), a token-shaped word is its value even
 * when it looks made up: 16+ token characters with a digit or both cases, not an identifier
 * (`refresh_handler_v2`, `getAccessToken`).
 */
export function directToken(v: string): boolean {
  return (
    v.length >= 16 &&
    /^[A-Za-z0-9+/=_.~:-]+$/.test(v) &&
    (/\d/.test(v) || (/[a-z]/.test(v) && /[A-Z]/.test(v))) &&
    !/^[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+$/.test(v) &&
    // (an identifier with a few digits is a name; with many, a value)
    !(typeName(v) && (v.match(/\d/g)?.length ?? 0) < 4) &&
    isSecretValue(v, "strong")
  );
}

/** Flags that carry a value given for the name before them (`gh secret set NAME --body X`). */
const VALUE_FLAG_AT = /(?:--body|--value|--data|--secret-string|--from-literal|-b|-v)(?:=|\s|$)/y;

/** What proseValue read: the value's span (or null), and where the window of words it read ended. */
export type ProseRead = { value: [number, number] | null; windowEnd: number };

/**
 * In a sentence after a secret word: the first word, within 8 words and before the sentence ends,
 * that follows a linking word (or a ':'/'=') and looks machine-made (isProseSecret). Right after
 * the name, a quoted word, a strong password or a machine-made token counts without a link. With
 * `weak` (a name that may not be a secret's, `acme key`) the value must be machine-made as well.
 */
export function proseValue(text: string, from: number, password: boolean, weak: boolean): ProseRead {
  const n = text.length;
  let windowEnd = from;
  let p = from;
  let linked = false;
  let otherThing = false;
  for (let k = 0; k < (weak ? 4 : 9) && p < n; k++) {
    let c = text.charCodeAt(p);
    // spaces, tabs and the linking punctuation ':' '=' '|' between words
    while (p < n && (c === 32 || c === 9 || c === 58 || c === 61 || c === 124)) {
      if (c !== 32 && c !== 9) linked = true;
      c = text.charCodeAt(++p);
    }
    if (p >= n || c === 10 || c === 13) return { value: null, windowEnd };
    let e = p;
    while (e < n && e - p < 256) {
      const d = text.charCodeAt(e);
      if (d === 32 || d === 9 || d === 10 || d === 13) break;
      e++;
    }
    // right after the secret word, a quoted word is a value too ("with password 'Sup3r-S3cret!'")
    const quotedWord = k === 0 && !weak && "`'\"".includes(text[p]!) && text[e - 1] === text[p] && e - p > 2;
    // or an unquoted one that is unmistakably machine-made or a strong password (.netrc: "password Xk9mP2vLq!")
    const w0 = k === 0 && !quotedWord && e - p >= 8 ? text.slice(p, e) : "";
    const strongWord =
      w0 !== "" &&
      !weak &&
      /\d/.test(w0) &&
      /[a-z].*[A-Z]|[A-Z].*[a-z]/.test(w0) &&
      (/[^\w.,;:]/.test(w0.replace(/[.,;:)]+$/, "")) || (w0.length >= 12 && /\d.*\d/.test(w0)));
    // (a UUID a few words on is an id: "returned 401 for client <uuid>")
    const bare =
      e - p >= 20
        ? text
            .slice(p, e)
            .replace(/^[`'"(]+|[`'").,;:]+$/g, "")
            .replace(/^[0-9a-f-]{36}$/i, "")
        : "";
    // right after the name, a machine-made token; further on, a long one (`acme access token for the prod board X`),
    // unless a word on the way says it is something else (`token for commit X`, `key id X`)
    const cand = bare || w0.replace(/^[`'"(]+|[`'").,;:]+$/g, "");
    // a flag or an assignment (`--token=x`) is read as a name of its own, not as this name's value
    const direct = k === 0 && !weak && w0 !== "" && directToken(cand);
    const tokenWord =
      (w0 !== "" || (bare !== "" && !otherThing && !weak)) &&
      cand[0] !== "-" &&
      !/=[^=]/.test(cand) &&
      (machineMade(cand) || direct);
    if (linked || quotedWord || strongWord || tokenWord) {
      // quotes/backticks around the word, and sentence punctuation after it ('!' and '?' may be the
      // password's own: redacting one more character is harmless, leaving one is not)
      let s0 = p;
      let e0 = e;
      while (s0 < e0 && "`'\"(".includes(text[s0]!)) s0++;
      while (e0 > s0 && "`'\").,;:".includes(text[e0 - 1]!)) e0--;
      const v = text.slice(s0, e0);
      if (direct || (e0 - s0 >= 6 && isProseSecret(v, password) && (!weak || machineMade(v))))
        return { value: [s0, e0], windowEnd };
    }
    windowEnd = e;
    // a flag on the way takes the token as its own value (`--recv-keys X`), unless it only carries it (`--body X`)
    const word = e - p <= 12 ? text.slice(p, e).toLowerCase() : "";
    if (!otherThing && !weak) {
      VALUE_FLAG_AT.lastIndex = p;
      if (lists().other.has(word.replace(/[.,;:)]+$/, "")) || (text[p] === "-" && !VALUE_FLAG_AT.test(text)))
        otherThing = true;
    }
    const last = text[e - 1]!;
    linked = last === ":" || last === "=" || lists().link.has(word);
    // a sentence ends at '.', '!' or '?' after a word (not "1.5")
    if ((last === "." || last === "!" || last === "?") && !(e - p > 1 && /\d/.test(text[e - 2]!)))
      return { value: null, windowEnd };
    p = e;
  }
  return { value: null, windowEnd };
}

/**
 * A machine-made token a few words before the name, joined to it by a link word: "X is the acme
 * api key", "use X as the access token". Returns the token's span.
 */
export function reverseProseValue(text: string, s: number): [number, number] | null {
  // first, without cutting anything out: is there a word long enough to be a value within 5 words?
  let p = s;
  let long = false;
  for (let k = 0; k < 5 && !long; k++) {
    while (p > 0 && (text.charCodeAt(p - 1) === 32 || text.charCodeAt(p - 1) === 9)) p--;
    let b = p;
    while (b > 0 && p - b < 256) {
      const c = text.charCodeAt(b - 1);
      if (c === 32 || c === 9 || c === 10 || c === 13) break;
      b--;
    }
    if (b === p) break;
    if (k > 0 && p - b >= 16) long = true;
    p = b;
  }
  if (!long) return null;
  p = s;
  let linked = false;
  for (let k = 0; k < 5; k++) {
    while (p > 0 && (text.charCodeAt(p - 1) === 32 || text.charCodeAt(p - 1) === 9)) p--;
    if (p === 0) return null;
    let b = p;
    while (b > 0 && p - b < 256) {
      const c = text.charCodeAt(b - 1);
      if (c === 32 || c === 9 || c === 10 || c === 13) break;
      b--;
    }
    if (b === p) return null; // a line break
    const len = p - b;
    if (k > 0 && linked && len >= 16) {
      let s0 = b;
      let e0 = p;
      while (s0 < e0 && "`'\"(".includes(text[s0]!)) s0++;
      while (e0 > s0 && "`'\").,;:".includes(text[e0 - 1]!)) e0--;
      const v = text.slice(s0, e0);
      if (v[0] !== "-" && !/=[^=]/.test(v) && machineMade(v)) return [s0, e0];
    }
    const last = text[p - 1];
    if (last === "." || last === "!" || last === "?") return null;
    // only short words can be a link word or say what the value is: cut those out, not the long ones
    if (len <= 12) {
      const word = text.slice(b, p).toLowerCase();
      if (lists().other.has(word)) return null;
      if (lists().backLink.has(word)) linked = true;
    }
    p = b;
  }
  return null;
}
