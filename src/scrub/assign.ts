/**
 * Generic rule: a value assigned to (or following) a secret-ish name, in any common syntax:
 * `name = v`, `name: v`, `name := v`, `::=`, `:::=`, `?=`, `.=`, `+=`, `??=`, `||=`, `=>`,
 * `var name string = v`, `val name: String = v`, `"name": v`, `setProperty("NAME", v)`,
 * `<add key="Name" value="v"/>`, `<name>v</name>`, `--name v`, `-Name 'v'`, `name is v` (prose).
 *
 * Driven by one keyword regex (no leading repetition, so it is linear); each hit is then parsed by
 * hand within bounded windows, and the scan resumes after the hit's identifier.
 */
import { KNOWN_PUBLIC, NAMED_FORMATS } from "./providers";
import type { Span } from "./types";
import { isProseSecret, isSecretValue, machineMade, type Strength, typeName } from "./values";

// the lookahead on the first letter lets the engine skip most positions cheaply
const HIT =
  /(?=[pPsStTkKaAcCbBoOlL])(?:p(?:ass|w|sw|at|rivate)|s(?:ecret|as|ig|ourcegraph)|token|cred|a(?:uth|ccess)|key|otp|bearer|login)/gi;
const MAX_IDENT = 64;
const MAX_VALUE = 4096;

const isIdent = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;

/** Split an identifier into lower-case words: `AWS_SECRET_ACCESS_KEY`, `clientSecret`, `APIKey`, `--api-key`. */
export function words(ident: string): string[] {
  return ident
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);
}

const STOP_WORDS = new Set([
  "tokenizer",
  "tokenizers",
  "tokenize",
  "tokenized",
  "tokenization",
  "tokenizing",
  "keyboard",
  "keyword",
  "keywords",
  "keypress",
  "keyring",
  "keychain",
  "keyframe",
  "keyframes",
  "keyup",
  "keydown",
  "keycode",
  "keystroke",
  "keystrokes",
  "keyof",
  "keyset",
  "monkey",
  "donkey",
  "turkey",
  "hockey",
  "jockey",
  "whiskey",
  "passport",
  "bypass",
  "compass",
  "passthrough",
  "passenger",
  "passengers",
  "passive",
  "passage",
  "passed",
  "passes",
  "passing",
  "author",
  "authors",
  "authority",
  "authored",
  "authentication",
  "authenticated",
  "authenticate",
  "authenticator",
  "authorize",
  "authorized",
  "authorizer",
  "authz",
  "secretary",
  "passwordless",
  "jsonwebtoken",
  "secrets",
  "tokens",
]);

/** Words after "key" that make it a UI/data key (`key_down`, `keyPressed`, `KeyPair`, `keyStr`). */
const KEY_SUFFIX_STOP = new Set([
  "alias",
  "board",
  "code",
  "frame",
  "length",
  "mesh",
  "meshing",
  "pair",
  "pairs",
  "press",
  "pressed",
  "ring",
  "selector",
  "signature",
  "signatures",
  "stone",
  "storetype",
  "word",
  "up",
  "down",
  "left",
  "right",
  "vault",
  "chars",
  "str",
  "event",
  "events",
  "map",
  "set",
  "binding",
  "bindings",
  "listener",
  "stroke",
  "fn",
  "func",
  "function",
  "of",
  "in",
  "by",
  "value",
  "values",
]);

/** Words after the secret word that make the name describe something else (`token_url`, `password_hash`). */
const SUFFIX_STOP = new Set([
  "id",
  "ids",
  "name",
  "names",
  "type",
  "types",
  "url",
  "uri",
  "urls",
  "endpoint",
  "file",
  "files",
  "path",
  "paths",
  "dir",
  "length",
  "len",
  "size",
  "count",
  "expiry",
  "expires",
  "expiration",
  "exp",
  "ttl",
  "lifetime",
  "timeout",
  "header",
  "headers",
  "field",
  "fields",
  "label",
  "hash",
  "hashed",
  "hasher",
  "hashers",
  "validator",
  "validators",
  "policy",
  "min",
  "max",
  "format",
  "prefix",
  "suffix",
  "kind",
  "version",
  "mode",
  "required",
  "enabled",
  "disabled",
  "ref",
  "arn",
  "helper",
  "manager",
  "provider",
  "input",
  "env",
  "var",
  "variable",
  "rotation",
  "strength",
  "regex",
  "pattern",
  "placeholder",
  "hint",
  "help",
  "prompt",
  "error",
  "errors",
  "message",
  "msg",
  "title",
  "column",
  "mask",
  "visible",
  "visibility",
  "toggle",
  "icon",
  "button",
  "btn",
  "form",
  "changed",
  "updated",
  "created",
  "at",
  "date",
  "time",
  "location",
  "source",
  "alias",
  "index",
  "limit",
  "budget",
  "usage",
  "used",
  "stdin",
  "cmd",
  "command",
  "method",
  "reset",
  "confirm",
  "confirmation",
  "check",
  "verify",
  "store",
  "storage",
  "service",
  "request",
  "response",
  "resp",
  "res",
  "req",
  "status",
  "state",
  "result",
  "callback",
  "handler",
  "generator",
  "factory",
  "class",
  "util",
  "utils",
  "spec",
  "test",
  "tests",
  "mock",
  "fixture",
  "param",
  "parameter",
  "algorithm",
  "algorithms",
  "info",
  "encryption",
  "scheme",
  "args",
  "arg",
  "argv",
  "options",
  "opts",
  "config",
  "settings",
  "algo",
  "alg",
  "key",
]);

/** Provider names that, alone in a name, mean its value is that provider's credential (when it looks random). */
const PROVIDER_NAMES = new Set(
  (
    "sourcegraph stripe github gitlab slack twilio sendgrid mailgun mailchimp heroku openai anthropic huggingface " +
    "npm pypi databricks doppler dynatrace shopify okta auth0 algolia airtable asana atlassian jira bitbucket " +
    "cloudflare datadog newrelic sentry pagerduty postman pulumi terraform snyk sonar sonarqube sumologic twitch " +
    "zendesk hubspot intercom mixpanel amplitude firebase supabase netlify vercel digitalocean linode circleci " +
    "travis codecov coveralls contentful dropbox etsy paypal braintree plaid adyen razorpay pusher telegram " +
    "mapbox mongodb atlas grafana jfrog artifactory nuget rubygems clojars launchdarkly frameio typeform yandex " +
    "login"
  ).split(" "),
);

/** Words before "token" that make it something else (`csrf_token`, `max_tokens`, `next_token`). */
const TOKEN_PREFIX_STOP = new Set([
  "csrf",
  "xsrf",
  "public",
  "next",
  "prev",
  "previous",
  "page",
  "continuation",
  "pagination",
  "cancel",
  "cancellation",
  "max",
  "min",
  "num",
  "total",
  "input",
  "output",
  "prompt",
  "completion",
  "special",
  "eos",
  "bos",
  "pad",
  "unk",
  "sep",
  "cls",
  "mask",
  "design",
  "sync",
  "lexer",
  "parser",
  "authenticity",
]);

/** Words before "key" that make a key a secret key. */
const KEY_STRONG_PREFIX = new Set([
  "api",
  "access",
  "secret",
  "private",
  "client",
  "app",
  "application",
  "master",
  "account",
  "encryption",
  "encrypt",
  "signing",
  "sign",
  "license",
  "licence",
  "auth",
  "shared",
  "admin",
  "sas",
  "consumer",
  "subscription",
  "webhook",
  "hmac",
  "jwt",
  "session",
  "deploy",
  "aes",
  "crypt",
  "cipher",
  "decryption",
  "root",
  "write",
  "read",
  "ingest",
  "ingestion",
  "management",
  "server",
  "service",
  "rest",
  "developer",
  "dev",
  "prod",
  "live",
  "test",
  "x",
]);

/** Words before "key" that make a key not a secret (`public_key`, `primaryKey`, `PARTITION_KEY`). */
const KEY_PREFIX_STOP = new Set([
  "public",
  "pub",
  "primary",
  "foreign",
  "partition",
  "sort",
  "cache",
  "idempotency",
  "hot",
  "natural",
  "bucket",
  "schema",
  "sequence",
  "row",
  "unique",
  "index",
  "idx",
  "map",
  "dict",
  "object",
  "lookup",
  "hash",
  "group",
  "item",
  "list",
  "message",
  "route",
  "react",
  "dedup",
  "dedupe",
  "composite",
  "range",
  "field",
  "column",
  "table",
  "order",
  "translation",
  "i18n",
  "locale",
  "config",
  "settings",
  "state",
  "storage",
  "registry",
  "shortcut",
  "hotkey",
  "menu",
  "query",
  "tab",
  "s3",
  "object",
  "file",
  "data",
  "json",
  "yaml",
  "dom",
  "node",
  "child",
  "parent",
  "sub",
  "component",
  "prop",
  "props",
  "ref",
  "id",
  "name",
  "label",
  "sorting",
  "header",
  "new",
  "old",
  "ssh", // ssh keys are set as paths; a real key is a PEM block, caught on its own
]);

export type KeyClass = { strength: Strength; family: string } | null;

const classified = new Map<string, KeyClass>();

/** How sure is this name that its value is a secret? (memoised: names repeat) */
export function classify(ident: string): KeyClass {
  let c = classified.get(ident);
  if (c !== undefined) return c;
  if (classified.size > 4096) classified.clear();
  c = classifyWords(ident);
  classified.set(ident, c);
  return c;
}

function classifyWords(ident: string): KeyClass {
  const ws = words(ident);
  if (!ws.length || ws.length > 12) return null;
  let last = -1;
  let family = "";
  let strength: Strength = "strong";
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    if (STOP_WORDS.has(w)) continue;
    let f = "";
    let s: Strength = "strong";
    if (w === "pass" && ws.length === 1) {
      // a lone "pass" is as often a test outcome ("pass": "...") as a password: the value must look random
      f = "password";
      s = "weak";
    } else if (
      w === "password" ||
      w === "passwd" ||
      w === "passphrase" ||
      w === "pass" ||
      w === "pwd" ||
      w === "pw" ||
      w === "psw" ||
      w === "pword" ||
      w === "passwords" ||
      w.endsWith("password") ||
      w.endsWith("passwd")
    ) {
      f = "password";
      s = "password";
    } else if (w.includes("secret")) f = "secret";
    else if (w.includes("token") && w !== "tokens") f = "token";
    else if (w.startsWith("credential") || w === "creds" || w === "cred") f = "credential";
    else if (w === "auth" || w === "authorization" || w === "bearer" || w === "oauth") f = "auth";
    else if (w === "sas" || w === "pat" || w === "otp") f = "token";
    else if (w === "access" || w === "private") {
      // `acme_access`, `acmePRIVATE`, "the ACCESS value": a credential when the value looks random;
      // followed by another word it describes that (`private_registry`, `access_log`, `privateEndpoint`)
      if (i < ws.length - 1) continue;
      f = w === "access" ? "token" : "key";
      s = "weak";
    } else if (w === "sig" || w === "signature") {
      // a signature (`&sig=` of a SAS URL, `X-Amz-Signature`) signs with a secret and grants access: when random
      f = "signature";
      s = "weak";
    } else if (w === "apikey" || (w === "key" && ws[i - 1] === "api")) f = "api-key";
    else if (w === "key" || w === "keys" || (w.endsWith("key") && w.length <= 20)) {
      const prev = w === "key" || w === "keys" ? ws[i - 1] : w.slice(0, -3);
      if (prev && KEY_PREFIX_STOP.has(prev)) {
        // a non-secret key kind: it does not count as the secret word
        continue;
      }
      if (ws[i + 1] && KEY_SUFFIX_STOP.has(ws[i + 1]!)) continue;
      f = "key";
      const envStyle = /^[A-Z0-9_]+$/.test(ident.replace(/^-+/, "")) && ws.length > 1;
      s = (prev && KEY_STRONG_PREFIX.has(prev)) || envStyle ? "strong" : "weak";
    }
    if (!f) continue;
    if (f === "token" && i > 0 && TOKEN_PREFIX_STOP.has(ws[i - 1]!)) continue;
    last = i;
    family = f;
    strength = s;
  }
  if (last < 0) {
    // a name that is only a provider's (`sourcegraph: <hex>`, `SONAR_LOGIN`): the value must look random
    const provider = ws.find((w) => PROVIDER_NAMES.has(w));
    return provider && ws.length <= 3 && !ws.some((w) => SUFFIX_STOP.has(w))
      ? { strength: "weak", family: provider }
      : null;
  }
  for (let j = last + 1; j < ws.length; j++) if (SUFFIX_STOP.has(ws[j]!) && ws[j] !== "key") return null;
  return { strength, family };
}

const SCHEME =
  /^(?:Bearer|Basic|Token|Digest|Bot|ApiKey|Api-Key|Api-Token|ApiToken|SSWS|OAuth|JWT|GenieKey|Key)[ \t]+/i;

type Value = { start: number; end: number; quoted: boolean; code: boolean; rawEnd?: number };

/** How far the last value read looked (also when it found nothing): hits before it are inside that value. */
let lookedTo = 0;

/** The value starting at `p` (after the operator and spaces), or null. Never crosses a line unless `element`. */
function readValue(text: string, p: number, element: boolean): Value | null {
  const n = text.length;
  lookedTo = p;
  if (p >= n) return null;
  if (element) {
    let s = p;
    while (s < n && s - p < 200 && /\s/.test(text[s]!)) s++;
    let e = s;
    while (e < n && e - s < MAX_VALUE && text[e] !== "<") e++;
    if (text[e] !== "<") return null;
    let t = e;
    while (t > s && /\s/.test(text[t - 1]!)) t--;
    return t > s ? { start: s, end: t, quoted: true, code: false } : null;
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
    if (end < 0) return null;
    return { start: p + 2, end: p + 2 + end, quoted: true, code: false };
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
    if (text[e] !== c) return null;
    const v = text.slice(p + 1, e);
    if (fstring && /\{[\w.]+\}/.test(v)) return null;
    return { start: p + 1, end: e, quoted: true, code: false };
  }
  if (c === "{" || c === "[" || c === "(" || c === "\n" || c === "\r") return null;
  if (text.startsWith("/*", p) || text.startsWith("//", p)) return null; // a comment, not a value
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
  if (e === p) return null;
  const stop = text[e];
  // `getAccessToken(session)`, `os.environ["X"]`, `options?.authInfo`: code, not a value
  const code = stop === "(" || stop === "[" || /\?\.|!\.|=>/.test(text.slice(p, e));
  // a trailing sentence period is not part of the value
  let end = e;
  while (end > p && (text[end - 1] === "." || text[end - 1] === ":")) end--;
  return { start: p, end, quoted: false, code, rawEnd: e };
}

/** Operators, longest first. `==`, `===`, `!=`, `<=`, `>=` are comparisons, not assignments. */
const OPERATOR = /(?:::?:?=|\?\?=|\|\|=|\?=|\.=|\+=|=>|\?:|:(?!:)|=(?![=~]))/y;
const TYPE_THEN_ASSIGN = /[ \t]*:[ \t]*[&*]?[A-Za-z_][\w.<>[\]?*|, ]{0,40}?[ \t]+=(?![=>])/y;
/** A credential word: in the "type" of `name Type =`, it is the secret's name instead. */
const NAME_WORD = /key|token|secret|pass|pwd|auth|cred|access|private/i;
const GO_TYPE_THEN_ASSIGN = /[ \t]+[&*[\]]{0,4}[A-Za-z_][\w.]{0,30}[ \t]*=(?![=>])/y;
const XML_VALUE_ATTR = /[ \t]*(?:value|secret|password)[ \t]*=[ \t]*/iy;
/** Words after which, in prose, the next word is the value: "is", "was", "to", "key" ("secret key X"). */
const LINK = new Set([
  "is",
  "was",
  "are",
  "be",
  "to",
  "as",
  "=",
  ":",
  "|",
  "key",
  "token",
  "secret",
  "id",
  "value",
  "now",
  "here",
  "-",
  "–",
  "—",
  "->",
  "=>",
  "→",
]);

/**
 * In a sentence after a secret word: the first word, within 8 words and before the sentence ends,
 * that follows a linking word (or a ':'/'=') and looks machine-made (isProseSecret).
 */
/** Where the last prose window ended (set by proseValue), for skipping repeats of a name inside it. */
let proseEnd = 0;
/** The name whose prose window found nothing, and where that window ended (reset by each assignmentSpans). */
let proseIdent = "";
/** How sure that window's name was (STRENGTH_ORDER): a name no surer inside it finds nothing new either. */
let proseStrength = 0;
const STRENGTH_ORDER: Record<Strength, number> = { weak: 1, strong: 2, password: 3 };
let proseTo = -1;

/** Words that name what a nearby hash or id is: after one of them, a token is that, not the secret. */
/** Words that name what a nearby hash or id is: after one of them, a token is that, not the secret (lower-cased). */
const OTHER_WORDS = new Set(
  "commit sha sha1 sha256 sha512 hash digest checksum md5 etag revision rev fingerprint id ids uuid guid nonce request trace build version tag".split(
    " ",
  ),
);

/**
 * Right after a plain secret name ("acme SECRET 1234..."), a token-shaped word is its value even
 * when it looks made up: 16+ token characters with a digit or both cases, not an identifier
 * (`refresh_handler_v2`, `getAccessToken`).
 */
function directToken(v: string): boolean {
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

/**
 * In a sentence after a secret word: the first word, within 8 words and before the sentence ends,
 * that follows a linking word (or a ':'/'=') and looks machine-made (isProseSecret). Right after
 * the name, a quoted word, a strong password or a machine-made token counts without a link. With
 * `weak` (a name that may not be a secret's, `acme key`) the value must be machine-made as well.
 */
function proseValue(text: string, from: number, password: boolean, weak: boolean): [number, number] | null {
  const n = text.length;
  proseEnd = from;
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
    if (p >= n || c === 10 || c === 13) return null;
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
      if (direct || (e0 - s0 >= 6 && isProseSecret(v, password) && (!weak || machineMade(v)))) return [s0, e0];
    }
    proseEnd = e;
    // a flag on the way takes the token as its own value (`--recv-keys X`), unless it only carries it (`--body X`)
    const word = e - p <= 12 ? text.slice(p, e).toLowerCase() : "";
    if (!otherThing && !weak) {
      VALUE_FLAG_AT.lastIndex = p;
      if (OTHER_WORDS.has(word.replace(/[.,;:)]+$/, "")) || (text[p] === "-" && !VALUE_FLAG_AT.test(text)))
        otherThing = true;
    }
    const last = text[e - 1]!;
    linked = last === ":" || last === "=" || LINK.has(word);
    // a sentence ends at '.', '!' or '?' after a word (not "1.5")
    if ((last === "." || last === "!" || last === "?") && !(e - p > 1 && /\d/.test(text[e - 2]!))) return null;
    p = e;
  }
  return null;
}

/**
 * A value alone on the next line (after at most one blank line): `API key:\n  3f9a...`,
 * `Here is my token\n\n    3f9a...`. It must be one machine-made token.
 */
function nextLineValue(
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
function yamlListValues(
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
function inlineListValues(
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

/** Whether a value under a name of this strength is a secret (for lists and blocks, judged item by item). */
function judgeFor(strength: Strength, malformed: (v: string) => boolean): (v: string, quoted: boolean) => boolean {
  return (v, quoted) => isSecretValue(v, strength, quoted) && !KNOWN_PUBLIC.has(v) && !malformed(v);
}

/** Verbs whose string argument names or checks a secret rather than being one (`getToken("prod")`, `hash_password(x)`). */
const NOT_SETTER =
  /^(?:get|fetch|load|read|find|lookup|has|is|remove|delete|del|clear|validate|verify|check|parse|hash|compare|encode|decode|encrypt|decrypt|mask|redact|print|log|format|require|create|generate|new)/i;

/** Link words between a value and the name after it ("X is the api key", "use X as the token"). */
const BACK_LINK = new Set(["is", "as", "was", "=", "->", "-", "—", "are", "be"]);

/**
 * A machine-made token a few words before the name, joined to it by a link word: "X is the acme
 * api key", "use X as the access token". Returns the token's span.
 */
function reverseProseValue(text: string, s: number): [number, number] | null {
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
      if (OTHER_WORDS.has(word)) return null;
      if (BACK_LINK.has(word)) linked = true;
    }
    p = b;
  }
  return null;
}
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
function valueElsewhere(
  text: string,
  p: number,
  cls: NonNullable<KeyClass>,
  malformed: (v: string) => boolean,
  spans: Span[],
): boolean {
  if ((text[p] === "\n" || text[p] === "\r") && /[:=]/.test(text[p - 1] ?? "")) {
    const judge = judgeFor(cls.strength, malformed);
    // `API key:` and the value alone on the next line, or a YAML list of values
    const found = nextLineValue(text, p);
    const items = found ? [found] : text[p - 1] === ":" ? yamlListValues(text, p, judge) : [];
    for (const [a, b] of items) {
      spans.push({ start: a, end: b, family: cls.family, rank: 3 });
      HIT.lastIndex = Math.max(HIT.lastIndex, b);
    }
    return true;
  }
  if (text[p] === "[") {
    // a list of values: `api_keys = ["...", "..."]` (read once: names inside it are not looked at again)
    const list = inlineListValues(text, p, judgeFor(cls.strength, malformed));
    for (const [a, b] of list.items) spans.push({ start: a, end: b, family: cls.family, rank: 3 });
    HIT.lastIndex = Math.max(HIT.lastIndex, list.end);
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
  text: string,
  s: number,
  e: number,
  ident: string,
  phraseStart: number,
  cls: NonNullable<KeyClass>,
  skipProse: boolean,
  malformed: (v: string) => boolean,
  spans: Span[],
): void {
  const n = text.length;
  if (text[e] === "(") {
    // a setter's argument: `client.setApiKey("...")`, `.apiToken("...")`, `auth.set_password('...')`
    let q = e + 1;
    while (q < n && q - e < 16 && (text[q] === " " || text[q] === "\t")) q++;
    if (!(text[q] === '"' || text[q] === "'" || text[q] === "`")) return;
    if (NOT_SETTER.test(ident.slice(ident.lastIndexOf(".") + 1))) return;
    const v = readValue(text, q, false);
    // (the argument must end the call or be followed by another: checked first, it is the cheap part)
    if (
      v?.quoted &&
      /^\s*[,)]/.test(text.slice(v.end + 1, v.end + 4)) &&
      judgeFor(cls.strength, malformed)(text.slice(v.start, v.end), true)
    ) {
      spans.push({ start: v.start, end: v.end, family: cls.family, rank: 3 });
      HIT.lastIndex = Math.max(HIT.lastIndex, v.end);
    }
    return;
  }
  // prose: "the password for the staging DB is hunter2", "aws secret is Hj8K..."
  // (a name followed by '(' or '.' is code, not a sentence)
  if (skipProse) return;
  // the same name again inside a window already read finds nothing new ("Bearer Bearer Bearer ...")
  // (and so does any name of no greater strength: `PRIVATE KEY-----BEGIN ...` read as one window)
  if (s < proseTo && (ident === proseIdent || STRENGTH_ORDER[cls.strength] <= proseStrength)) return;
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
      HIT.lastIndex = Math.max(HIT.lastIndex, found[1]);
    }
    return;
  }
  // "the acme token, new one is X": a comma goes on with the sentence; "the API key's value is X"
  const possessive = after === "'" && text[e + 1] === "s" && text[e + 2] === " ";
  if (!(after === " " || after === "\t" || (after === "," && text[e + 1] === " ") || possessive)) return;
  const found = proseValue(
    text,
    after === "," ? e + 1 : possessive ? e + 2 : e,
    cls.family === "password",
    cls.strength === "weak",
  );
  if (found) {
    spans.push({ start: found[0], end: found[1], family: cls.family, rank: 3 });
    HIT.lastIndex = Math.max(HIT.lastIndex, found[1]);
  } else {
    proseIdent = ident;
    proseStrength = STRENGTH_ORDER[cls.strength];
    proseTo = proseEnd;
  }
}

/** Name words that may follow the credential word inside a glued name (`-SECRET-KEY-`, `_PRIVATE_key`, `.access.`). */
const GLUE_WORDS = new Set(["key", "keys", "token", "secret", "access", "private", "api", "auth"]);
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
function gluedValue(text: string, hitEnd: number): { nameEnd: number; start: number; end: number } | null {
  const n = text.length;
  let p = hitEnd;
  while (p < n && p - hitEnd < 24 && isLetter(text.charCodeAt(p))) p++;
  for (let k = 0; k < 3; k++) {
    const c = text[p];
    if (c !== "-" && c !== "_" && c !== ".") break;
    let q = p + 1;
    while (q < n && q - p <= 12 && isLetter(text.charCodeAt(q))) q++;
    if (q === p + 1 || !GLUE_WORDS.has(text.slice(p + 1, q).toLowerCase())) break;
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

/** Find assignments of secret values; push one span per value. */
export function assignmentSpans(
  text: string,
  spans: Span[],
  malformed: (v: string, anyLong?: boolean) => boolean = () => false,
): void {
  proseIdent = "";
  proseStrength = 0;
  proseTo = -1;
  HIT.lastIndex = 0;
  const n = text.length;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: the usual exec loop
  while ((m = HIT.exec(text))) {
    const h = m.index;
    let s = h;
    while (s > 0 && h - s < MAX_IDENT && isIdent(text.charCodeAt(s - 1))) s--;
    // a value glued to the name (`codakey-<uuid>`, `acmeSECRET-3f9a...`): the value is part of the "identifier"
    const glued = gluedValue(text, h + m[0].length);
    if (glued && s > 0 && /[A-Za-z0-9]/.test(text[s - 1]!)) {
      // inside a longer blob: not a name, and neither is anything else in the run read
      if (glued.end - glued.start >= 64) HIT.lastIndex = glued.end;
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
        HIT.lastIndex = glued.end;
        continue;
      }
      // a long run of token characters is one token: the names inside it are not names
      if (glued.end - glued.start >= 64) {
        HIT.lastIndex = glued.end;
        continue;
      }
    }
    let e = h + m[0].length;
    while (e < n && e - h < MAX_IDENT && isIdent(text.charCodeAt(e))) e++;
    HIT.lastIndex = e;
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
    if (ident === proseIdent && s < proseTo && text[e] === " " && !/^ +[:=?.+|]/.test(text.slice(e, e + 8))) continue;
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
    if (ok && valueElsewhere(text, p, cls, malformed, spans)) continue;
    if (!ok) {
      unassigned(text, s, e, ident, phraseStart, cls, quotedIdent || flag, malformed, spans);
      continue;
    }
    // an auth scheme before the credential: "Bearer x", "Basic x", "Token x"
    let q = p;
    if (text[q] === '"' || text[q] === "'") q++;
    const letter = /[A-Za-z]/.test(text[q] ?? "");
    const scheme = letter ? SCHEME.exec(text.slice(q, q + 20)) : null;
    let v: Value | null;
    // an Authorization header's scheme may be any word (`Authorization: Acme-Key x`, `Authorization: SSWS x`)
    const anyScheme = letter && !scheme && cls.family === "auth" ? ANY_SCHEME.exec(text.slice(q, q + 40)) : null;
    if ((scheme && (cls.family === "auth" || cls.family === "token" || cls.family === "api-key")) || anyScheme) {
      v = readValue(text, q + (scheme ?? anyScheme)![0].length, false);
      if (v && text[p] === text[v.end] && (text[p] === '"' || text[p] === "'")) v.quoted = true;
    } else v = readValue(text, p, isElement);
    // whatever the verdict, the text a long value covered is not scanned for names again
    // (a short quoted one may be a name itself: <add key="ClearTextPassword" value="..."/>)
    if (lookedTo > HIT.lastIndex && !isElement && !(v?.quoted && lookedTo - p < 64)) HIT.lastIndex = lookedTo;
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
    HIT.lastIndex = Math.max(HIT.lastIndex, v.start + value.length);
  }
}
