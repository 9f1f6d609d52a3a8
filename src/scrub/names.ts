/**
 * Secret-ish names: split an identifier into words and decide how sure the name is that its value
 * is a secret (`AWS_SECRET_ACCESS_KEY` strong, `acme_key` weak, `public_key` and `token_url` not).
 * The word lists are data (names.txt, embedded in the binary), read on the first call.
 */
import { readFileSync } from "node:fs";
import listsPath from "./names.txt" with { type: "file" };
import type { Strength } from "./values";

/** Split an identifier into lower-case words: `AWS_SECRET_ACCESS_KEY`, `clientSecret`, `APIKey`, `--api-key`. */
export function words(ident: string): string[] {
  return ident
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);
}

/** The lists of names.txt (each section's doc comment there says what it holds). */
export type WordLists = {
  stop: Set<string>;
  keySuffixStop: Set<string>;
  suffixStop: Set<string>;
  providers: Set<string>;
  tokenPrefixStop: Set<string>;
  keyStrongPrefix: Set<string>;
  keyPrefixStop: Set<string>;
  glue: Set<string>;
  link: Set<string>;
  backLink: Set<string>;
  other: Set<string>;
};

const SECTIONS: Record<string, keyof WordLists> = {
  stop: "stop",
  "key-suffix-stop": "keySuffixStop",
  "suffix-stop": "suffixStop",
  providers: "providers",
  "token-prefix-stop": "tokenPrefixStop",
  "key-strong-prefix": "keyStrongPrefix",
  "key-prefix-stop": "keyPrefixStop",
  glue: "glue",
  link: "link",
  "back-link": "backLink",
  other: "other",
};

/** Parse names.txt: `[section]` lines, `#` comment lines, words separated by white space. */
export function parseWordLists(text: string): WordLists {
  const lists = Object.fromEntries(Object.values(SECTIONS).map((k) => [k, new Set<string>()])) as WordLists;
  let current: Set<string> | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const section = /^\[([a-z-]+)\]$/.exec(line);
    if (section) {
      const key = SECTIONS[section[1]!];
      if (!key) throw new Error(`names.txt: unknown list [${section[1]}]`);
      current = lists[key];
      continue;
    }
    if (!current) throw new Error(`names.txt: words before the first [list]: ${line}`);
    for (const w of line.split(/\s+/)) current.add(w);
  }
  return lists;
}

let wordLists: WordLists | undefined;

/** The word lists, read from names.txt on first use and kept for the process. */
export function lists(): WordLists {
  wordLists ??= parseWordLists(readFileSync(listsPath, "utf8"));
  return wordLists;
}

export type KeyClass = { strength: Strength; family: string } | null;

/** classify's answers by name (names repeat); emptied when it grows past a few thousand. */
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
  const L = lists();
  let last = -1;
  let family = "";
  let strength: Strength = "strong";
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    if (L.stop.has(w)) continue;
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
      if (prev && L.keyPrefixStop.has(prev)) {
        // a non-secret key kind: it does not count as the secret word
        continue;
      }
      if (ws[i + 1] && L.keySuffixStop.has(ws[i + 1]!)) continue;
      f = "key";
      const envStyle = /^[A-Z0-9_]+$/.test(ident.replace(/^-+/, "")) && ws.length > 1;
      s = (prev && L.keyStrongPrefix.has(prev)) || envStyle ? "strong" : "weak";
    }
    if (!f) continue;
    if (f === "token" && i > 0 && L.tokenPrefixStop.has(ws[i - 1]!)) continue;
    last = i;
    family = f;
    strength = s;
  }
  if (last < 0) {
    // a name that is only a provider's (`sourcegraph: <hex>`, `SONAR_LOGIN`): the value must look random
    const provider = ws.find((w) => L.providers.has(w));
    return provider && ws.length <= 3 && !ws.some((w) => L.suffixStop.has(w))
      ? { strength: "weak", family: provider }
      : null;
  }
  for (let j = last + 1; j < ws.length; j++) if (L.suffixStop.has(ws[j]!) && ws[j] !== "key") return null;
  return { strength, family };
}
