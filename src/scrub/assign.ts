/**
 * Generic rule: a value assigned to (or following) a secret-ish name, in any common syntax:
 * `name = v`, `name: v`, `name := v`, `::=`, `:::=`, `?=`, `.=`, `+=`, `??=`, `||=`, `=>`,
 * `var name string = v`, `val name: String = v`, `"name": v`, `setProperty("NAME", v)`,
 * `<add key="Name" value="v"/>`, `<name>v</name>`, `--name v`, `-Name 'v'`, `name is v` (prose).
 *
 * Driven by one keyword regex (no leading repetition, so it is linear); each hit is then parsed by
 * hand within bounded windows, and the scan resumes after the hit's identifier. The name's words
 * are judged in names.ts, the value is read in read-value.ts (or, in a sentence, prose.ts).
 */
import { classify, type KeyClass, words } from "./names";
import { directToken, proseValue, reverseProseValue } from "./prose";
import { KNOWN_PUBLIC, NAMED_FORMATS } from "./providers";
import { gluedValue, inlineListValues, MAX_VALUE, nextLineValue, readValue, yamlListValues } from "./read-value";
import type { Span } from "./types";
import { isSecretValue, machineMade, type Strength } from "./values";

// the lookahead on the first letter lets the engine skip most positions cheaply
const HIT =
  /(?=[pPsStTkKaAcCbBoOlL])(?:p(?:ass|w|sw|at|rivate)|s(?:ecret|as|ig|ourcegraph)|token|cred|a(?:uth|ccess)|key|otp|bearer|login)/gi;
const MAX_IDENT = 64;

const isIdent = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;

const SCHEME =
  /^(?:Bearer|Basic|Token|Digest|Bot|ApiKey|Api-Key|Api-Token|ApiToken|SSWS|OAuth|JWT|GenieKey|Key)[ \t]+/i;

/** Operators, longest first. `==`, `===`, `!=`, `<=`, `>=` are comparisons, not assignments. */
const OPERATOR = /(?:::?:?=|\?\?=|\|\|=|\?=|\.=|\+=|=>|\?:|:(?!:)|=(?![=~]))/y;
const TYPE_THEN_ASSIGN = /[ \t]*:[ \t]*[&*]?[A-Za-z_][\w.<>[\]?*|, ]{0,40}?[ \t]+=(?![=>])/y;
/** A credential word: in the "type" of `name Type =`, it is the secret's name instead. */
const NAME_WORD = /key|token|secret|pass|pwd|auth|cred|access|private/i;
const GO_TYPE_THEN_ASSIGN = /[ \t]+[&*[\]]{0,4}[A-Za-z_][\w.]{0,30}[ \t]*=(?![=>])/y;
const XML_VALUE_ATTR = /[ \t]*(?:value|secret|password)[ \t]*=[ \t]*/iy;

/** How sure a name is (a prose window's name no surer than the last one finds nothing new in it). */
const STRENGTH_ORDER: Record<Strength, number> = { weak: 1, strong: 2, password: 3 };

/**
 * One call's scan: its text, the spans found, where the keyword search resumes (a value's text is
 * not scanned for names again), and the last prose window that found nothing: its name, how sure
 * that name was (STRENGTH_ORDER) and where the window ended. Inside that window the same name, or
 * one no surer, finds nothing new ("Bearer Bearer Bearer ...").
 */
type Scan = {
  text: string;
  spans: Span[];
  malformed: (v: string, anyLong?: boolean) => boolean;
  resume: number;
  prose: { ident: string; strength: number; to: number };
};

/** Whether a value under a name of this strength is a secret (for lists and blocks, judged item by item). */
function judgeFor(strength: Strength, malformed: (v: string) => boolean): (v: string, quoted: boolean) => boolean {
  return (v, quoted) => isSecretValue(v, strength, quoted) && !KNOWN_PUBLIC.has(v) && !malformed(v);
}

/** Verbs whose string argument names or checks a secret rather than being one (`getToken("prod")`, `hash_password(x)`). */
const NOT_SETTER =
  /^(?:get|fetch|load|read|find|lookup|has|is|remove|delete|del|clear|validate|verify|check|parse|hash|compare|encode|decode|encrypt|decrypt|mask|redact|print|log|format|require|create|generate|new)/i;
const SETTER_OPEN = /\(\s*$/;
/** The names whose meaning the word before them decides (`api key`, `public key`, `csrf token`). */
const PHRASE_HEAD = /^(?:key|keys|token)$/i;
/** The word before a name written as words ("API key"): letters only, after a non-word character. */
const PREV_WORD = /(?:^|[^A-Za-z0-9_])([A-Za-z]{2,20})[ \t]$/;
/** A user name given just before (`user`, `username`, `login`, `uid`): the lone `pass` after it is its password. */
const USER_BEFORE = /["'\s{,;(](?:user(?:name)?|login|uid)["']?\s*[:=]/i;
/** The last letters of those keywords (`ENV`, `setx`, `SetEnv`, `define`, `-gx`): a cheap look before the regex. */
const DECLARE_END = "Vxve";
/** Keywords that declare a name and its value with a space: C `#define`, Dockerfile `ENV`, `setx`, fish `set -gx`. */
const DECLARE_BEFORE = /(?:^|[\s;])(?:#[ \t]*define|ENV|setx|SetEnv|set[ \t]+-[a-zA-Z]*x)[ \t]+$/;
/** Any auth scheme word before an Authorization header's credential: letters and dashes, then a space. */
const ANY_SCHEME = /^[A-Za-z][A-Za-z-]{1,30}[ \t]+(?=[^\s"'])/;

/**
 * A .env-style assignment: `NAME=value` (no spaces around `=`), NAME in UPPER_SNAKE, standing on
 * its own (after a space or at a line start), not declared in code (`const NAME = ...`).
 */
function envLine(text: string, s: number, ident: string): boolean {
  if (!/^[A-Z][A-Z0-9]*_[A-Z0-9_]*$/.test(ident)) return false;
  const e = s + ident.length;
  if (text[e] !== "=" || text[e + 1] === "=" || (s > 0 && !/\s/.test(text[s - 1]!))) return false;
  return !/\b(?:const|let|var|val|final|static|readonly|public|private|def)[ \t]+$/.test(
    text.slice(Math.max(0, s - 20), s),
  );
}

/**
 * After `name:` / `name =` with no value on the spot: the value alone on the next line, a YAML
 * list, an inline list, a YAML block scalar. True when one of those was read (found or not).
 */
function valueElsewhere(scan: Scan, p: number, cls: NonNullable<KeyClass>): boolean {
  const { text, spans, malformed } = scan;
  if ((text[p] === "\n" || text[p] === "\r") && /[:=]/.test(text[p - 1] ?? "")) {
    const judge = judgeFor(cls.strength, malformed);
    // `API key:` and the value alone on the next line, or a YAML list of values
    const found = nextLineValue(text, p);
    const items = found ? [found] : text[p - 1] === ":" ? yamlListValues(text, p, judge) : [];
    for (const [a, b] of items) {
      spans.push({ start: a, end: b, family: cls.family, rank: 3 });
      scan.resume = Math.max(scan.resume, b);
    }
    return true;
  }
  if (text[p] === "[") {
    // a list of values: `api_keys = ["...", "..."]` (read once: names inside it are not looked at again)
    const list = inlineListValues(text, p, judgeFor(cls.strength, malformed));
    for (const [a, b] of list.items) spans.push({ start: a, end: b, family: cls.family, rank: 3 });
    scan.resume = Math.max(scan.resume, list.end);
    return true;
  }
  if ((text[p] === "|" || text[p] === ">") && /^[|>][-+]?[ \t]*\r?\n/.test(text.slice(p, p + 5))) {
    // a YAML block scalar: its first line is the value
    const judge = judgeFor(cls.strength, malformed);
    const found = nextLineValue(text, text.indexOf("\n", p), (v) => judge(v, true), false);
    if (found) spans.push({ start: found[0], end: found[1], family: cls.family, rank: 3 });
    return true;
  }
  return false;
}

/** A name with no operator after it: a setter's argument (`setApiKey("...")`), or a sentence. */
function unassigned(
  scan: Scan,
  s: number,
  e: number,
  ident: string,
  phraseStart: number,
  cls: NonNullable<KeyClass>,
  skipProse: boolean,
): void {
  const { text, spans, malformed, prose } = scan;
  const n = text.length;
  if (text[e] === "(") {
    // a setter's argument: `client.setApiKey("...")`, `.apiToken("...")`, `auth.set_password('...')`
    let q = e + 1;
    while (q < n && q - e < 16 && (text[q] === " " || text[q] === "\t")) q++;
    if (!(text[q] === '"' || text[q] === "'" || text[q] === "`")) return;
    if (NOT_SETTER.test(ident.slice(ident.lastIndexOf(".") + 1))) return;
    const v = readValue(text, q, false).value;
    // (the argument must end the call or be followed by another: checked first, it is the cheap part)
    if (
      v?.quoted &&
      /^\s*[,)]/.test(text.slice(v.end + 1, v.end + 4)) &&
      judgeFor(cls.strength, malformed)(text.slice(v.start, v.end), true)
    ) {
      spans.push({ start: v.start, end: v.end, family: cls.family, rank: 3 });
      scan.resume = Math.max(scan.resume, v.end);
    }
    return;
  }
  // prose: "the password for the staging DB is hunter2", "aws secret is Hj8K..."
  // (a name followed by '(' or '.' is code, not a sentence)
  if (skipProse) return;
  // the same name again inside a window already read finds nothing new ("Bearer Bearer Bearer ...")
  // (and so does any name of no greater strength: `PRIVATE KEY-----BEGIN ...` read as one window)
  if (s < prose.to && (ident === prose.ident || STRENGTH_ORDER[cls.strength] <= prose.strength)) return;
  const after = text[e];
  // "X is the acme api key": the value before the name
  const back =
    cls.strength !== "weak" && !(after === "'" && text[e + 1] === "s") ? reverseProseValue(text, phraseStart) : null;
  if (back) {
    spans.push({ start: back[0], end: back[1], family: cls.family, rank: 3 });
    return;
  }
  if (after === "\n" || after === "\r" || (after === undefined && e === n)) {
    // "Here is my token" and the token alone on the next line
    const found = e < n ? nextLineValue(text, e) : null;
    if (found) {
      spans.push({ start: found[0], end: found[1], family: cls.family, rank: 3 });
      scan.resume = Math.max(scan.resume, found[1]);
    }
    return;
  }
  // "the acme token, new one is X": a comma goes on with the sentence; "the API key's value is X"
  const possessive = after === "'" && text[e + 1] === "s" && text[e + 2] === " ";
  if (!(after === " " || after === "\t" || (after === "," && text[e + 1] === " ") || possessive)) return;
  const read = proseValue(
    text,
    after === "," ? e + 1 : possessive ? e + 2 : e,
    cls.family === "password",
    cls.strength === "weak",
  );
  const found = read.value;
  if (found) {
    spans.push({ start: found[0], end: found[1], family: cls.family, rank: 3 });
    scan.resume = Math.max(scan.resume, found[1]);
  } else {
    prose.ident = ident;
    prose.strength = STRENGTH_ORDER[cls.strength];
    prose.to = read.windowEnd;
  }
}

/** Find assignments of secret values; push one span per value. */
export function assignmentSpans(
  text: string,
  spans: Span[],
  malformed: (v: string, anyLong?: boolean) => boolean = () => false,
): void {
  const scan: Scan = { text, spans, malformed, resume: 0, prose: { ident: "", strength: 0, to: -1 } };
  const { prose } = scan;
  const n = text.length;
  for (;;) {
    HIT.lastIndex = scan.resume;
    const m = HIT.exec(text);
    if (!m) break;
    scan.resume = HIT.lastIndex;
    const h = m.index;
    let s = h;
    while (s > 0 && h - s < MAX_IDENT && isIdent(text.charCodeAt(s - 1))) s--;
    // a value glued to the name (`codakey-<uuid>`, `acmeSECRET-3f9a...`): the value is part of the "identifier"
    const glued = gluedValue(text, h + m[0].length);
    if (glued && s > 0 && /[A-Za-z0-9]/.test(text[s - 1]!)) {
      // inside a longer blob: not a name, and neither is anything else in the run read
      if (glued.end - glued.start >= 64) scan.resume = glued.end;
      continue;
    } else if (glued) {
      const name = text.slice(s, glued.nameEnd);
      const value = text.slice(glued.start, glued.end);
      const gc = classify(name);
      // the value is one machine-made token, not more words of an identifier (`token-service-7d9f8c6b5-x2x4z`)
      if (
        gc &&
        !/^[a-z]{3,}[-_.]/i.test(value) &&
        // an assignment or a host name is not a glued value (`credentials.url=dev-lb1.api.acme.com`)
        !/=[^=]|[a-z0-9-]\.[a-z]{2,6}(?:[:/]|$)/i.test(value) &&
        machineMade(value) &&
        !KNOWN_PUBLIC.has(value) &&
        !malformed(text.slice(s, glued.end), true)
      ) {
        spans.push({ start: glued.start, end: glued.end, family: gc.family, rank: 3 });
        scan.resume = glued.end;
        continue;
      }
      // a long run of token characters is one token: the names inside it are not names
      if (glued.end - glued.start >= 64) {
        scan.resume = glued.end;
        continue;
      }
    }
    let e = h + m[0].length;
    while (e < n && e - h < MAX_IDENT && isIdent(text.charCodeAt(e))) e++;
    scan.resume = e;
    if (h - s >= MAX_IDENT || e - h >= MAX_IDENT) continue; // a long blob, not a name
    while (e > s && (text[e - 1] === "." || text[e - 1] === "-")) e--;
    const ident = text.slice(s, e);
    let cls = classify(ident);
    let phraseStart = s;
    // a name written as words ("API key", "Secret Key", "access token"): the word before decides, as in `api_key`
    if (cls && (text[s - 1] === " " || text[s - 1] === "\t") && PHRASE_HEAD.test(ident)) {
      const prev = PREV_WORD.exec(text.slice(Math.max(0, s - 24), s));
      if (prev) {
        cls = classify(`${prev[1]}_${ident}`);
        phraseStart = s - 1 - prev[1]!.length;
      }
    }
    if (!cls) continue;
    // a signature grants access as a URL's query parameter (`&sig=` of a SAS URL, `X-Amz-Signature=`);
    // elsewhere (`"signature": ...` of a signed payload) it proves something, it does not open anything
    if (cls.family === "signature" && !(text[s - 1] === "&" || text[s - 1] === "?")) continue;
    // a lone `pass` beside a user name is a password (`{"user": "app", "pass": "..."}`)
    if (cls.family === "password" && cls.strength === "weak" && USER_BEFORE.test(text.slice(Math.max(0, s - 120), s)))
      cls = { family: "password", strength: "password" };
    // the same name again inside a prose window already read, and again in prose ("Bearer Bearer ...")
    if (ident === prose.ident && s < prose.to && text[e] === " " && !/^ +[:=?.+|]/.test(text.slice(e, e + 8))) continue;
    const flag = ident.startsWith("-") && (s === 0 || /[\s"'(]/.test(text[s - 1]!));
    const prevCh = s > 0 ? text[s - 1]! : "";
    const quotedIdent = prevCh === '"' || prevCh === "'" || prevCh === "`";
    const element = prevCh === "<" && text[e] === ">";
    let p = e;
    let ok = false;
    let isElement = false;
    let colonGlued = false;
    if (element) {
      // <key>AWSAccessKeyId</key> (a plist) names a key; it does not hold one
      if (ident.toLowerCase() === "key") continue;
      // <password>value</password>: only with the closing tag right after the value
      const close = text.indexOf("<", e + 1);
      if (close < 0 || close - e > MAX_VALUE || !text.startsWith(`</${ident}>`, close)) continue;
      p = e + 1;
      ok = true;
      isElement = true;
    } else {
      // closing quotes / brackets around the name: "name": / ['NAME'] = / \"name\":
      let k = 0;
      while (p < n && k < 4 && /["'`\]\\]/.test(text[p]!)) {
        p++;
        k++;
      }
      const afterName = p;
      while (p < n && (text[p] === " " || text[p] === "\t")) p++;
      if (quotedIdent && text[p] === ",") {
        // setProperty("NAME", "v") / put('name', 'v') / Setenv("NAME", "v")
        const before = text.slice(Math.max(0, s - 40), s - 1);
        if (SETTER_OPEN.test(before)) {
          p++;
          ok = true;
        }
      } else if (quotedIdent && /(?:key|name|id)\s*=\s*$/i.test(text.slice(Math.max(0, s - 12), s - 1))) {
        // <add key="Password" value="..."/>
        XML_VALUE_ATTR.lastIndex = p;
        if (XML_VALUE_ATTR.test(text)) {
          p = XML_VALUE_ATTR.lastIndex;
          ok = true;
        }
      }
      if (!ok) {
        TYPE_THEN_ASSIGN.lastIndex = afterName;
        GO_TYPE_THEN_ASSIGN.lastIndex = afterName;
        OPERATOR.lastIndex = p;
        if (text[afterName] !== "," && TYPE_THEN_ASSIGN.test(text)) {
          p = TYPE_THEN_ASSIGN.lastIndex;
          ok = true;
        } else if (
          !quotedIdent &&
          !flag &&
          afterName === e &&
          GO_TYPE_THEN_ASSIGN.test(text) &&
          // `var name Type = v`, but not "PRIVATE KEY=v" (the second word names the secret itself)
          !NAME_WORD.test(text.slice(afterName, GO_TYPE_THEN_ASSIGN.lastIndex))
        ) {
          p = GO_TYPE_THEN_ASSIGN.lastIndex;
          ok = true;
        } else if (OPERATOR.test(text)) {
          p = OPERATOR.lastIndex;
          // `oauth:client-assertion` (no space after ':', nothing quoted) is a URN or a path, not YAML:
          // a value glued to `name:` counts only when it is a token (`acme_token:3f9a...`)
          ok = true;
          colonGlued =
            text[p - 1] === ":" &&
            text[p - 2] !== ":" &&
            !quotedIdent &&
            text[afterName] === ":" &&
            !/[\s"'`]/.test(text[p] ?? " ");
        } else if (flag && p > afterName && (cls.strength !== "weak" || !/keys$/i.test(ident))) {
          // --token VALUE; --acme-key VALUE when VALUE looks random (not --recv-keys FINGERPRINT)
          ok = true;
        } else if (
          !flag &&
          !quotedIdent &&
          p > afterName &&
          DECLARE_END.includes(text[s - 2] ?? "") &&
          DECLARE_BEFORE.test(text.slice(Math.max(0, s - 16), s))
        ) {
          ok = true; // #define API_KEY "v", ENV TOKEN v, setx TOKEN v, set -gx TOKEN v
        }
      }
    }
    if (ok && !isElement) while (p < n && (text[p] === " " || text[p] === "\t")) p++;
    if (ok && valueElsewhere(scan, p, cls)) continue;
    if (!ok) {
      unassigned(scan, s, e, ident, phraseStart, cls, quotedIdent || flag);
      continue;
    }
    // an auth scheme before the credential: "Bearer x", "Basic x", "Token x"
    let q = p;
    if (text[q] === '"' || text[q] === "'") q++;
    const letter = /[A-Za-z]/.test(text[q] ?? "");
    const scheme = letter ? SCHEME.exec(text.slice(q, q + 20)) : null;
    // an Authorization header's scheme may be any word (`Authorization: Acme-Key x`, `Authorization: SSWS x`)
    const anyScheme = letter && !scheme && cls.family === "auth" ? ANY_SCHEME.exec(text.slice(q, q + 40)) : null;
    const afterScheme =
      scheme && (cls.family === "auth" || cls.family === "token" || cls.family === "api-key") ? scheme : anyScheme;
    const { value: v, lookedTo } = afterScheme
      ? readValue(text, q + afterScheme[0].length, false)
      : readValue(text, p, isElement);
    if (afterScheme && v && text[p] === text[v.end] && (text[p] === '"' || text[p] === "'")) v.quoted = true;
    // whatever the verdict, the text a long value covered is not scanned for names again
    // (a short quoted one may be a name itself: <add key="ClearTextPassword" value="..."/>)
    if (lookedTo > scan.resume && !isElement && !(v?.quoted && lookedTo - p < 64)) scan.resume = lookedTo;
    if (!v || v.code) continue;
    let value = text.slice(v.start, v.end);
    if (!v.quoted && text.slice(v.start, (v.rawEnd ?? v.end) + 3).includes("...")) continue; // a truncated example
    // <add key="Name" value="..."/>: `key=` holds the name; the value attribute is judged with that name
    if (/^key$/i.test(ident) && v.quoted && /^["']\s+value\s*=/i.test(text.slice(v.end, v.end + 20))) continue;
    if (flag && value.startsWith("-")) continue;
    if (!v.quoted && cls.family === "auth" && /^[A-Za-z]+$/.test(value)) continue;
    if (!isSecretValue(value, cls.strength, v.quoted, cls.strength !== "weak" && envLine(text, s, ident))) continue;
    if (
      colonGlued &&
      !(/^[A-Za-z0-9_+=-]{16,}$/.test(value) && (machineMade(value) || (cls.strength !== "weak" && directToken(value))))
    )
      continue;
    if (KNOWN_PUBLIC.has(value) || malformed(value)) continue;
    // a namespaced type name (`clm212:AgencyIdentificationCodeContentType`) is not a secret
    if (cls.strength !== "password" && /(?:[A-Z][a-z]{3,}){3}/.test(value)) continue;
    const ws = words(ident);
    const named = NAMED_FORMATS.find(([w]) => ws.some((x) => w.test(x)));
    if (named && !named[1].test(value)) continue;
    // the whole value, and nothing but the value
    if (value.endsWith("\\") && !v.quoted) value = value.slice(0, -1);
    spans.push({ start: v.start, end: v.start + value.length, family: cls.family, rank: 3 });
    scan.resume = Math.max(scan.resume, v.start + value.length);
  }
}
