/**
 * Is this value a secret, or a placeholder / reference / ordinary word? Shared by every rule.
 * All checks are plain loops or anchored regexes over one short value (callers bound its length).
 */

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  if (!s) return 0;
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Words that stand in for a secret in docs and examples (compared lower-case, without punctuation). */
const PLACEHOLDER_WORDS = new Set([
  "changeme",
  "changeit",
  "password",
  "passwd",
  "pass",
  "pwd",
  "secret",
  "token",
  "apikey",
  "key",
  "example",
  "sample",
  "dummy",
  "test",
  "testing",
  "foo",
  "bar",
  "baz",
  "foobar",
  "admin",
  "root",
  "guest",
  "user",
  "username",
  "default",
  "redacted",
  "placeholder",
  "todo",
  "tbd",
  "none",
  "null",
  "nil",
  "undefined",
  "empty",
  "true",
  "false",
  "required",
  "optional",
  "string",
  "value",
  "mypassword",
  "mysecret",
  "mytoken",
  "yourpassword",
  "yoursecret",
  "yourtoken",
  "secretvalue",
  "letmein",
  "qwerty",
  "hidden",
  "masked",
  "xxx",
  "yyy",
  "zzz",
  "xyz",
  "abc",
  "abc123",
  "123",
  "1234",
  "123456",
  "12345678",
  "password123",
  "passw0rd",
  "p4ssw0rd",
  "s3cr3t",
  // type names (`password: str`) and configuration words (`AUTH_SECRET_MODE=production`)
  "str",
  "int",
  "number",
  "bool",
  "boolean",
  "any",
  "unknown",
  "object",
  "bytes",
  "text",
  "varchar",
  "char",
  "option",
  "maybe",
  "void",
  "date",
  "secretstr",
  "production",
  "development",
  "staging",
  "local",
  "localhost",
  "debug",
  "enabled",
  "disabled",
  "inherit",
  "prompt",
  "environment",
]);

/**
 * A reference to a secret kept elsewhere, or a template/placeholder: `${VAR}`, `$VAR`, `$(cmd)`,
 * `{{ ... }}`, `<%= %>`, `#{...}`, `%(name)s`, `<YOUR_KEY>`, `[redacted]`, `xxxx`, `****`, `...`.
 */
export function isPlaceholder(v: string): boolean {
  const s = v.trim();
  if (!s) return true;
  const c = s[0]!;
  if (c === "$" && /^\$(?:[{(\w]|$)/.test(s)) return true;
  if (/^%\w+%$/.test(s) || /^![A-Za-z]/.test(s)) return true; // %WINDOWS_VAR%, a YAML tag (!vault, !Ref)
  if (/^[@%][A-Za-z_]\w*$/.test(s) || /^&(?:#x?[0-9a-f]+|[a-z]+);?$/i.test(s)) return true; // @ARGV, %ENV, &lt;string>
  if (/[#*•]{4}/.test(s)) return true; // partly masked: xoxp-5723...-####
  if (s.includes("{{") || s.includes("{%") || s.includes("<%") || s.includes("${") || s.includes("#{")) return true;
  if (s.includes("%(") || /^%[sdv]$/.test(s) || s.includes("...") || s.includes("…")) return true;
  // <YOUR_KEY>, [redacted], {password}: a bracketed word (a bracketed random string is a value)
  if (
    ((c === "<" && s.endsWith(">")) || (c === "[" && s.endsWith("]")) || (c === "{" && s.endsWith("}"))) &&
    /^.[A-Za-z_ .:-]*.$/.test(s)
  )
    return true;
  if (c === "<" && /^<[A-Za-z_ -]{1,40}>?$/.test(s)) return true;
  // mostly x / * / • / # / 0: a mask
  let masked = 0;
  for (const ch of s) if (ch === "x" || ch === "X" || ch === "*" || ch === "•" || ch === "#" || ch === ".") masked++;
  if (masked >= s.length * 0.6) return true;
  if (/^(.)\1+$/.test(s)) return true;
  const word = s.toLowerCase().replace(/[^a-z0-9]/g, "");
  if (PLACEHOLDER_WORDS.has(word)) return true;
  if (/^(?:your|my|insert|enter|put|replace|add|paste|some)(?:own)?[a-z]*(?:here)?$/.test(word) && !/\d/.test(s))
    return true;
  return false;
}

/** A code reference such as `process.env.X`, `os.environ[...]`, `ENV.fetch(...)`, `secrets.X`. */
const REFERENCE =
  /^(?:process\.env|import\.meta\.env|os\.environ|os\.getenv|getenv|System\.getenv|Deno\.env|ENV[.[]|env\.|secrets\.|vars\.|var\.|local\.|data\.|module\.|config\.|settings\.|self\.|this\.|props\.|params\.|args\.|inputs\.|steps\.|needs\.|github\.|random_password\.|Environment\.)/;

export function isReference(v: string): boolean {
  return REFERENCE.test(v);
}

const hasDigit = (s: string) => /\d/.test(s);
const hasLetter = (s: string) => /[A-Za-z]/.test(s);

/** Upper/lower case changes per character: random strings change case often, camelCase words rarely. */
function caseSwitchRate(s: string): number {
  let switches = 0;
  let prev = 0; // 1 upper, 2 lower
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const k = c >= 65 && c <= 90 ? 1 : c >= 97 && c <= 122 ? 2 : 0;
    if (k && prev && k !== prev) switches++;
    if (k) prev = k;
  }
  return switches / s.length;
}

/** Letters only, yet random-looking: `yqDVtkqPECriaLRi`, a 30-letter lower-case run with few vowels. */
export function randomLetters(s: string): boolean {
  if (!/^[A-Za-z]+$/.test(s)) return false;
  if (/[a-z]/.test(s) && /[A-Z]/.test(s.slice(1))) {
    if (s.length < 12 || caseSwitchRate(s) <= 0.3) return false;
    // camelCase words (`StripeSecretKey`) are mostly Capital+lowercase runs
    let wordy = 0;
    for (const w of s.match(/[A-Z]?[a-z]{2,}/g) ?? []) wordy += w.length;
    return wordy < s.length * 0.75;
  }
  if (s.length < 20) return false;
  let vowels = 0;
  for (const c of s.toLowerCase()) if ("aeiou".includes(c)) vowels++;
  return vowels / s.length < 0.3 && entropy(s) >= 3.5;
}

/** One character typed 14 times in a row (`glc_11111111111111...`): a stand-in, not a value. */
function typedRun(s: string): boolean {
  let same = 1;
  for (let i = 1; i < s.length; i++) {
    same = s.charCodeAt(i) === s.charCodeAt(i - 1) ? same + 1 : 1;
    if (same >= 14) return true;
  }
  return false;
}

/** Words that mark a stand-in: `YOUR_TOKEN_HERE`, `PLACEHOLDER`, `CHANGEME`, `xxxx`. */
function placeholderWords(s: string): boolean {
  return /YOUR_|_HERE\b|PLACEHOLDER|CHANGEME|REDACTED|INSERT_|XXXX/i.test(s);
}

/**
 * Made-up values in docs and tests: `YOUR_TOKEN_HERE`, `glc_1111111111111`, `123123123123123`,
 * `EXAMPLEEXAMPLEEXAMPLE`; with `loose` (values under a name, where test writers' fakes are
 * common) also a whole alphabet run (`sk_abcdefghijklmnopqrstuvwxyz123`). Kept narrow on purpose:
 * a fake-looking secret pasted by a user is still better redacted than kept.
 */
export function looksFake(s: string, loose = false): boolean {
  if (placeholderWords(s)) return true;
  let asc = 1;
  let same = 1;
  for (let i = 1; i < s.length; i++) {
    const d = s.charCodeAt(i) - s.charCodeAt(i - 1);
    asc = d === 1 ? asc + 1 : 1;
    same = d === 0 ? same + 1 : 1;
    if (same >= 14 || (loose && asc >= 20)) return true;
  }
  // a short unit repeated: 123123123123123, EXAMPLEEXAMPLEEXAMPLEEXAMPLE
  return /((.)(?!\2).{0,3})\1{4,}/.test(s) || /(.{5,10})\1{3,}/.test(s);
}

/** Mostly made of lower-case words (`value%23still-query#first`): text, not a random token. */
function wordy(s: string): boolean {
  let covered = 0;
  for (const w of s.match(/[a-z]{4,}/g) ?? []) {
    // a word has a word's share of vowels (`value`, `still`); `lbsqwbnak` in a random string has not
    const vowels = w.replace(/[^aeiouy]/g, "").length / w.length;
    if (vowels >= 0.2 && vowels <= 0.6) covered += w.length;
  }
  return covered > s.length * 0.5;
}

/** Values that are never secrets whatever their key: paths, URLs, versions, dates, emails, numbers. */
function ordinaryShape(s: string): boolean {
  if (s.includes("://")) return true;
  if (/^(?:\/|\.\.?\/|~\/|[A-Za-z]:\\)/.test(s) && !/[^\w./\\~:-]/.test(s)) return true;
  // a version (`1.2.3-beta.1`), not `v1.0-<146 hex>` (a Cloudflare key)
  if (/^v?\d+(?:\.\d+){1,3}(?:[-+][\w.-]{0,40})?$/.test(s)) return true;
  // a name with a content hash (`node-modules-<sha256>`: a cache key, a build artifact)
  if (/^[a-z]{2,}(?:-[a-z]{2,}){1,4}-[0-9a-f]{32,}$/.test(s)) return true;
  // a digest or an SSH key fingerprint (`SHA256:nThbg6k...`, `sha512-...`), not a key
  if (/^(?:sha\d{1,3}|md5)[:-][A-Za-z0-9+/=:]+$/i.test(s)) return true;
  // a relative path whose segments are mostly words (`projects/123/secrets/db-password/versions/latest`)
  if (/^[\w.-]+(?:\/[\w.-]+){2,}$/.test(s)) {
    const segs = s.split("/");
    if (segs.filter((x) => /^[a-z][a-z-]{2,}$/.test(x)).length * 2 >= segs.length) return true;
  }
  // a cloud resource id (`subnet-0a1b2c3d4e5f67890`, `sg-0123abcd`)
  if (/^(?:subnet|vpc|sg|igw|nat|rtb|eni|vol|snap|ami|i|eipalloc|acl|tgw|pcx|lt|vpce|fs|db)-[0-9a-f]{8,17}$/.test(s))
    return true;
  if (/^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?$/.test(s)) return true;
  if (/^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/.test(s)) return true;
  if (/^-?\d+(?:\.\d+)?$/.test(s) && s.length < 12) return true;
  // an algorithm's name, not a secret (`password_encryption = scram-sha-256`, `alg: HS256`)
  if (
    /^(?:scram-)?sha-?\d{1,3}$|^md5$|^(?:hs|rs|es|ps)\d{3}$|^aes-?\d{3}(?:-\w+)?$|^argon2(?:id|i|d)?$|^[bs]crypt$|^pbkdf2/i.test(
      s,
    )
  )
    return true;
  // a regular expression or a character class (`[A-Za-z0-9._~+/-]+=*`)
  if (/\[(?:A-Z|a-z|0-9|\^)|\\[dwsb]|\(\?[:=!<]/.test(s)) return true;
  return false;
}

export type Strength = "strong" | "weak" | "password";

/**
 * Is `v` (quotes already removed) a secret, given how sure the key made us?
 *  - "password": a password key; any non-placeholder value with a digit, symbol or mixed case.
 *  - "strong": token/secret/credential keys; as above, but a lone dictionary-looking word is not.
 *  - "weak": a key that may or may not hold a secret (`stripe_key`); the value must look random.
 */
export function isSecretValue(v: string, strength: Strength, quoted = false, envStyle = false): boolean {
  const s = v.trim();
  if (s.length < 4 || s.length > 4096) return false;
  if (isPlaceholder(s) || isReference(s) || ordinaryShape(s)) return false;
  // a made-up value under a secret's name (`abcdef1234567890abcdef...`, `0000XxXx...`) is a test
  // secret, and redacting it costs nothing: only stand-in words and one character typed 14 times keep it
  if (placeholderWords(s) || typedRun(s)) return false;
  // keys and tokens are ASCII; text in another script is a message, not a credential
  if (/[^\x20-\x7e]/.test(s)) return false;
  if (/\s/.test(s)) {
    // a phrase: only a password key makes a multi-word value a secret (a passphrase), and only with a digit/symbol
    // a quoted passphrase under a password name ("correct horse battery staple")
    if (
      strength === "password" &&
      quoted &&
      s.length >= 12 &&
      /^[a-z]+(?: [a-z]+){1,4}$/.test(s) &&
      !/\b(?:your|enter|password|passphrase|secret|must|should|required|please|here|the|is|at|least|characters?)\b/.test(
        s,
      )
    )
      return true;
    // a passphrase is short: a sentence (5+ words, or non-ASCII text) is prose, not a password
    return (
      (strength === "password" || (strength === "strong" && quoted)) &&
      s.length >= 8 &&
      s.length <= 64 &&
      s.split(/\s+/).length <= 4 &&
      /[\d!@#$%^&*]/.test(s) &&
      !/[^\x20-\x7e]/.test(s) &&
      !/\s{2,}/.test(s)
    );
  }
  const letters = hasLetter(s);
  const digits = hasDigit(s);
  const symbols = /[^A-Za-z0-9_.\-/]/.test(s);
  if (strength === "weak") {
    if (s.length < 12 || wordy(s)) return false;
    const nd = s.replace(/\D/g, "").length;
    if (letters && nd >= 2 && s.length - nd >= 4 && entropy(s) >= 3.2) return true;
    return randomLetters(s);
  }
  if (!letters) return digits && (strength === "password" ? s.length >= 6 : s.length >= 12);
  // letters with '_', '.', '-', '/' only: a word or identifier (`hashed`, `auth.token`), unless random;
  // a password key's quoted word is a password all the same (`password = "rootpasswd"`)
  if (!digits && !symbols)
    return (
      randomLetters(s.replace(/[_.\-/]/g, "")) ||
      (quoted && strength === "password" && s.length >= 6 && !/[._/]/.test(s)) ||
      // .env style (`DB_PASSWORD=supersecret`): a word there is the value, not code
      (envStyle && s.length >= 8 && !/[-._/]/.test(s))
    );
  return true;
}

/**
 * A type or function name: word characters whose letters come in word-long runs (`Pbkdf2Params`,
 * `Uint8Array`, `XMLHttpRequest`, `getUserById`); a random token's runs are a letter or two long.
 */
export function typeName(s: string): boolean {
  if (/[^\w]/.test(s) || !/[a-z]/.test(s) || !/[A-Z]/.test(s)) return false;
  const runs = s.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g);
  if (!runs || runs.length < 2) return false;
  let letters = 0;
  for (const r of runs) letters += r.length;
  return letters / runs.length >= 3.5;
}

/** Stricter check for a value found in prose ("the password is X"): it must look machine-made. */
export function isProseSecret(v: string, password = false): boolean {
  const s = v.trim();
  if (s.length < (password ? 6 : 8) || s.length > 1024 || isPlaceholder(s) || ordinaryShape(s) || looksFake(s))
    return false;
  if (!hasLetter(s) || /[^\x20-\x7e]|[<>]/.test(s)) return false;
  // "the password is hunter2": after a password word, letters with a digit are enough
  if (password && hasDigit(s)) return true;
  // CamelCase words with a digit (`Pbkdf2Params`, `Uint8Array`) are type names
  if (typeName(s)) return false;
  if (hasDigit(s))
    return entropy(s) >= 2.5 && !/^[a-z]+\d{1,4}$/i.test(s.replace(/[!?.,]$/, "")) ? true : /[^\w]/.test(s);
  return randomLetters(s);
}

/** A word that only a machine makes: 16+ characters that a weak name's value check accepts too. */
export function machineMade(v: string): boolean {
  if (v.length < 16 || /[-_.]{3}/.test(v)) return false;
  // (cheap first: without a digit or both cases only random letters could pass)
  if (!/\d/.test(v) && !(/[a-z]/.test(v) && /[A-Z]/.test(v)) && !/^[A-Za-z]+$/.test(v)) return false;
  return isSecretValue(v, "weak") && isProseSecret(v);
}

/**
 * `abcdefghij`, `klmnopqrstuvwx`: ten letters of the alphabet in a row are typed by a person, not
 * generated (digits in a row, `0123456789`, are common in test keys people paste all the same).
 */
export function alphabetRun(s: string): boolean {
  let run = 1;
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    run = letter && c - s.charCodeAt(i - 1) === 1 ? run + 1 : 1;
    if (run >= 10) return true;
  }
  return false;
}
