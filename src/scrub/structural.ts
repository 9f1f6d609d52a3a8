/**
 * Secrets recognised by their shape rather than a name: PEM private keys, credentials in URLs,
 * Bearer/Basic credentials, JWTs, DSNs `user:pw@tcp(...)`, `.pgpass` lines, Kubernetes Secret
 * `data:`, command lines (`curl -u`, `mysql -pPW`, `sshpass -p`, `docker login -p`,
 * `ConvertTo-SecureString`), and `<private>...</private>` spans.
 *
 * Each finder is a literal search (indexOf, or a regex that starts with a literal behind a left
 * boundary) followed by bounded hand parsing; none revisits text it has passed.
 */

import { classify } from "./assign";
import type { Span } from "./types";
import { isPlaceholder, isSecretValue } from "./values";

/** `<private>...</private>`: dropped whole (to the end of the text when unclosed). */
export function privateSpans(text: string, spans: Span[]): void {
  if (!text.includes("<") || !/<private>/i.test(text)) return;
  const open = /<private>/gi;
  const close = /<\/private>/gi;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = open.exec(text))) {
    close.lastIndex = m.index + m[0].length;
    const c = close.exec(text);
    const end = c ? c.index + c[0].length : text.length;
    spans.push({ start: m.index, end, family: "private", rank: 0, with: "" });
    open.lastIndex = end;
  }
}

/** PEM private-key blocks (also with `\n` escapes inside JSON), to the END line or the end of the text. */
export function pemSpans(text: string, spans: Span[]): void {
  let from = 0;
  let nextEnd = -2; // -2: not searched yet; -1: none left
  for (;;) {
    const b = text.indexOf("-----BEGIN", from);
    if (b < 0) return;
    const headEnd = text.indexOf("-----", b + 10);
    if (headEnd < 0 || headEnd - b > 120) {
      from = b + 10;
      continue;
    }
    const label = text.slice(b + 10, headEnd);
    if (!/PRIVATE KEY/.test(label)) {
      from = headEnd + 5;
      continue;
    }
    // the next END marker, searched again only once passed (a run of headers stays linear)
    if (nextEnd !== -1 && nextEnd < headEnd + 5) nextEnd = text.indexOf("-----END", headEnd + 5);
    const endAt = nextEnd;
    let end = text.length;
    if (endAt >= 0) {
      const close = text.indexOf("-----", endAt + 8);
      end = close >= 0 && close - endAt < 120 ? close + 5 : endAt + 8;
    }
    // a key has a base64 body: "-----BEGIN PRIVATE KEY-----\nanything\n-----END..." in docs, or code
    // that looks for the header, is not one
    const body = text.slice(headEnd + 5, Math.min(endAt >= 0 ? endAt : text.length, headEnd + 800));
    // the first word of the body is base64 (16+ characters) or an armor header ("Proc-Type:", "Version:")
    const first = body.replace(/\\n/g, "\n").trim().split(/\s+/, 1)[0] ?? "";
    if (!/^[A-Za-z0-9+/=]{16,}$/.test(first) && !/^[A-Za-z-]{2,20}:$/.test(first)) {
      from = headEnd + 5;
      continue;
    }
    spans.push({ start: b, end, family: "private-key", rank: 1 });
    from = end;
  }
}

// '#' may be part of an unencoded password (`admin:Xk9#mP2@db`); '?' and '/' end the authority
/** PuTTY .ppk keys: the lines after `Private-Lines: N` (through `Private-MAC:`) are the key. */
export function puttySpans(text: string, spans: Span[]): void {
  let from = 0;
  for (;;) {
    const i = text.indexOf("Private-Lines:", from);
    if (i < 0) return;
    const nl = text.indexOf("\n", i);
    if (nl < 0) return;
    if (text.startsWith("[redacted]", nl + 1)) {
      from = nl + 1;
      continue;
    }
    const mac = text.indexOf("Private-MAC:", nl);
    let end = mac >= 0 && mac - nl < 8192 ? text.indexOf("\n", mac) : -1;
    if (end < 0) end = mac >= 0 && mac - nl < 8192 ? text.length : Math.min(text.length, nl + 4096);
    spans.push({ start: nl + 1, end, family: "private-key", rank: 1 });
    from = end;
  }
}

const URL_STOP = /[\s/?"'<>`\\]/;

/** `scheme://user:password@host`: the password (or a token used as the user name) goes. */
export function urlSpans(text: string, spans: Span[]): void {
  let from = 0;
  for (;;) {
    const i = text.indexOf("://", from);
    if (i < 0) return;
    from = i + 3;
    let s = i;
    while (s > 0 && i - s < 32 && /[A-Za-z0-9+.-]/.test(text[s - 1]!)) s--;
    if (s === i || !/[A-Za-z]/.test(text[s]!)) continue;
    // find the last '@' before the authority ends
    let at = -1;
    let e = i + 3;
    while (e < text.length && e - i < 512) {
      const ch = text[e]!;
      if (ch === "@") at = e;
      else if (URL_STOP.test(ch)) break;
      e++;
    }
    if (at < 0) continue;
    const userinfo = text.slice(i + 3, at);
    const colon = userinfo.indexOf(":");
    if (colon >= 0) {
      const pw = userinfo.slice(colon + 1);
      const user = userinfo.slice(0, colon);
      // (`cvs://:pserver:anoncvs@host` is a CVS method, not a password)
      if (
        pw.length >= 3 &&
        !isPlaceholder(pw) &&
        !(user.startsWith("$") || user.startsWith("{")) &&
        !(user === "" && pw.includes(":"))
      )
        spans.push({ start: i + 3 + colon + 1, end: at, family: "url-credentials", rank: 2 });
    } else if (userinfo.length >= 16 && isSecretValue(userinfo, "weak")) {
      spans.push({ start: i + 3, end: at, family: "url-credentials", rank: 2 });
    }
    from = at + 1;
  }
}

const BEARER = /(?<![\w-])(bearer|basic|token)[ \t]+([A-Za-z0-9._~+/-]{8,4096}=*)/gi;

/** `Bearer <token>` / `Basic <base64>` anywhere (a credential, not the English word). */
export function bearerSpans(text: string, spans: Span[]): void {
  if (!/[Bb]earer|[Bb]asic|[Tt]oken|BEARER|BASIC|TOKEN/.test(text)) return;
  BEARER.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = BEARER.exec(text))) {
    const scheme = m[1]!.toLowerCase();
    const v = m[2]!;
    const start = m.index + m[0].length - v.length;
    // "Token" as a scheme only right after an Authorization header
    if (
      scheme === "token" &&
      !/authorization["']?\s*[:=]\s*["']?$/i.test(text.slice(Math.max(0, m.index - 20), m.index))
    )
      continue;
    if (isPlaceholder(v)) continue;
    const digits = /\d/.test(v);
    const mixed = /[a-z]/.test(v) && /[A-Z]/.test(v.slice(1));
    const symbols = /[._~+/=-]/.test(v);
    if (
      scheme === "basic" &&
      (!/^[A-Za-z0-9+/]+=*$/.test(v) || !(digits || v.endsWith("=") || /[+/]/.test(v) || mixed))
    )
      continue;
    if (!(digits || mixed || (symbols && v.length >= 12))) continue;
    spans.push({ start, end: start + v.length, family: "auth-header", rank: 2 });
  }
}

const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{4,16384}(?:\.[A-Za-z0-9_\-/+]{0,8192}={0,2})?/g;
const JWT_B64 = /(?<![A-Za-z0-9+/=_-])ZXlK[A-Za-z0-9+/_-]{36,16384}={0,2}/g;

export function jwtSpans(text: string, spans: Span[]): void {
  if (text.includes("eyJ")) {
    JWT.lastIndex = 0;
    let m: RegExpExecArray | null;
    // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
    while ((m = JWT.exec(text))) {
      let end = m.index + m[0].length;
      while (end > m.index && text[end - 1] === ".") end--;
      spans.push({ start: m.index, end, family: "jwt", rank: 1 });
    }
  }
  if (text.includes("ZXlK")) {
    JWT_B64.lastIndex = 0;
    let m: RegExpExecArray | null;
    // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
    while ((m = JWT_B64.exec(text))) spans.push({ start: m.index, end: m.index + m[0].length, family: "jwt", rank: 1 });
  }
}

const DSN = /(?<![\w.-])[\w.-]{1,64}:([^\s@/"'`:]{3,128})@(?:tcp|udp|unix)\(/g;

/** Go DSNs: `user:password@tcp(host:3306)/db`. */
export function dsnSpans(text: string, spans: Span[]): void {
  if (!text.includes("@tcp(") && !text.includes("@unix(") && !text.includes("@udp(")) return;
  DSN.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = DSN.exec(text))) {
    const pw = m[1]!;
    if (isPlaceholder(pw)) continue;
    const start = m.index + m[0].indexOf(`:${pw}@`) + 1;
    spans.push({ start, end: start + pw.length, family: "dsn", rank: 2 });
  }
}

const PGPASS =
  /(?<![^\s>`'"(])(\*|[A-Za-z0-9_][A-Za-z0-9._-]{0,252}):(\d{1,5}|\*):([^\s:]{1,128}):([^\s:]{1,128}):((?:\\:|[^\s:'"`]){1,256})(?![^\s'"`])/g;

/** `.pgpass` lines: hostname:port:database:username:password. */
export function pgpassSpans(text: string, spans: Span[]): void {
  PGPASS.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = PGPASS.exec(text))) {
    const pw = m[5]!.replace(/[.,;)]+$/, "");
    // a host is '*', a name or an address (a hex pair like "74" is a fingerprint, not a host)
    if (isPlaceholder(pw) || /^\d+$/.test(m[4]!) || !(m[1] === "*" || /[A-Za-z.]/.test(m[1]!))) continue;
    const end = m.index + m[0].length - (m[5]!.length - pw.length);
    spans.push({ start: end - pw.length, end, family: "pgpass", rank: 2 });
  }
}

/** Kubernetes Secret manifests: every value under `data:` / `stringData:` of a `kind: Secret` document. */
export function kubernetesSpans(text: string, spans: Span[]): void {
  if (!/\bkind:[ \t]*["']?secret\b/i.test(text)) return;
  // document separators and `kind: Secret` lines, each found once
  const seps: number[] = [];
  const kinds: number[] = [];
  const sepRe = /^---[ \t]*$/gm;
  const kindRe = /\bkind:[ \t]*["']?secret\b/gi;
  let x: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((x = sepRe.exec(text))) seps.push(x.index);
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((x = kindRe.exec(text))) kinds.push(x.index);
  let si = 0;
  let ki = 0;
  const re = /^([ \t]*)(data|stringData):[ \t]*$/gm;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = re.exec(text))) {
    // the document holding this line: between the separators around it
    while (si < seps.length && seps[si]! < m.index) si++;
    const docStart = si > 0 ? seps[si - 1]! : 0;
    const docEnd = si < seps.length ? seps[si]! : text.length;
    while (ki < kinds.length && kinds[ki]! < docStart) ki++;
    if (!(ki < kinds.length && kinds[ki]! < docEnd)) continue;
    const minLen = m[2] === "data" ? 10 : 4;
    const indent = m[1]!.replace(/\t/g, "    ").length;
    let pos = m.index + m[0].length + 1;
    let lines = 0;
    let block = -1; // indent of a `|`/`>` block's key, while inside one
    while (pos < text.length && lines++ < 500) {
      let nl = text.indexOf("\n", pos);
      if (nl < 0) nl = text.length;
      const line = text.slice(pos, nl);
      const lead = /^[ \t]*/.exec(line)![0];
      const ind = lead.replace(/\t/g, "    ").length;
      if (line.trim() === "" || line.trim().startsWith("#")) {
        pos = nl + 1;
        continue;
      }
      if (ind <= indent) break;
      if (block >= 0 && ind > block) {
        spans.push({ start: pos + lead.length, end: nl, family: "kubernetes", rank: 2 });
        pos = nl + 1;
        continue;
      }
      block = -1;
      const kv = /^([\w.-]+):[ \t]*(.*)$/.exec(line.slice(lead.length));
      if (kv) {
        const raw = kv[2]!.replace(/[ \t]+$/, "");
        if (/^[|>][-+]?$/.test(raw)) block = ind;
        else {
          // data: one base64 token (quoted or not); stringData: the quoted string or the rest of the line
          const q = /^(["'])(.*?)\1/.exec(raw);
          const v = q ? q[2]! : m[2] === "data" ? /^\S*/.exec(raw)![0] : raw;
          if (v && v.replace(/=+$/, "").length >= minLen && !isPlaceholder(v)) {
            const vs = pos + lead.length + kv[0].length - kv[2]!.length + (q ? 1 : 0);
            spans.push({ start: vs, end: vs + v.length, family: "kubernetes", rank: 2 });
          }
        }
      }
      pos = nl + 1;
    }
    re.lastIndex = Math.max(re.lastIndex, Math.min(pos, text.length));
  }
}

const CREDENTIAL_PAIR =
  /(?<![\w.])[\w.]{0,40}(?:auth|Auth|AUTH|[Cc]redentials?|CREDENTIALS?|NetworkCredential|PasswordAuthentication)[ \t]{0,3}(?:=[ \t]{0,3})?[([][ \t]{0,3}(["'])[^"'\n]{1,100}\1[ \t]{0,3},[ \t]{0,3}(["'])([^"'\n]{1,256})\2/g;

/** A (user, password) pair: `auth=("admin", "pw")`, `new BasicCredentials("app", "pw")`, `NetworkCredential("u", "pw")`. */
export function credentialPairSpans(text: string, spans: Span[]): void {
  if (!/auth|AUTH|[Cc]redential|CREDENTIAL/.test(text)) return;
  CREDENTIAL_PAIR.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = CREDENTIAL_PAIR.exec(text))) {
    const pw = m[3]!;
    if (pw.length < 4 || isPlaceholder(pw)) continue;
    const end = m.index + m[0].length - 1;
    spans.push({ start: end - pw.length, end, family: "password", rank: 2 });
  }
}

const NAME_VALUE =
  /\bname["']?[ \t]{0,3}[:=][ \t]{0,3}["']?([A-Za-z_][\w.-]{0,60})["']?[ \t]{0,3}(?:,[ \t]{0,3}|\r?\n[ \t]{0,40}(?:-[ \t]{1,3})?)["']?value["']?[ \t]{0,3}[:=][ \t]{0,3}(["']?)([^\s"',}]{1,512})\2/g;

/** A secret's name and value given apart: Kubernetes `- name: DB_PASSWORD` / `value: ...`, JSON {"name": ..., "value": ...}. */
export function nameValueSpans(text: string, spans: Span[]): void {
  if (!text.includes("value")) return;
  NAME_VALUE.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = NAME_VALUE.exec(text))) {
    const cls = classify(m[1]!);
    const v = m[3]!;
    if (!cls || !isSecretValue(v, cls.strength, m[2] !== "")) continue;
    const end = m.index + m[0].length - m[2]!.length;
    spans.push({ start: end - v.length, end, family: cls.family, rank: 3 });
  }
}

const COMMAND =
  /(?<![\w-])(curl|mysql|mysqldump|mysqladmin|mysqlimport|mariadb|sshpass|docker|ConvertTo-SecureString)(?![\w-])/g;
const FLAG_VALUE = `(?:=|[ \\t]{0,5})((?:[^\\s"'\`|;&]|"[^"\\n]{0,512}"|'[^'\\n]{0,512}'){1,512})`;
const CURL_USER = new RegExp(`[ \\t](?:-u|--user)${FLAG_VALUE}`, "g");
const MYSQL_P = /[ \t]-p("[^"\n]{1,512}"|'[^'\n]{1,512}'|[^\s"'`|;&]{1,512})/g;
const SSHPASS_P = /[ \t]-p[ \t]{0,5}("[^"\n]{1,512}"|'[^'\n]{1,512}'|[^\s"'`|;&]{1,512})/g;
const DOCKER_P = /[ \t]-p[ \t]{1,5}("[^"\n]{1,512}"|'[^'\n]{1,512}'|[^\s"'`|;&]{1,512})/g;
const SECURE_STRING = /^(?:[ \t]{1,5}-String)?[ \t]{1,5}("[^"\n]{1,512}"|'[^'\n]{1,512}')/g;

const unquote = (v: string) => (/^(["']).*\1$/s.test(v) ? v.slice(1, -1) : v);

/** The command's extent: to the end of its line, following `\` continuations (at most 10 lines). */
function commandEnd(text: string, from: number): number {
  let end = from;
  for (let k = 0; k < 10; k++) {
    const nl = text.indexOf("\n", end);
    if (nl < 0) return text.length;
    let t = nl;
    if (text[t - 1] === "\r") t--;
    if (text[t - 1] !== "\\" && text[t - 1] !== "`") return nl;
    end = nl + 1;
  }
  return end;
}

/** Credentials on command lines. Each line region is searched once. */
export function commandSpans(text: string, spans: Span[]): void {
  if (!/curl|mysql|mariadb|sshpass|docker|SecureString/.test(text)) return;
  COMMAND.lastIndex = 0;
  let scanned = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = COMMAND.exec(text))) {
    const cmd = m[1]!;
    const from = Math.max(m.index + cmd.length, scanned);
    const end = commandEnd(text, from);
    const region = text.slice(from, end);
    scanned = end;
    COMMAND.lastIndex = Math.max(COMMAND.lastIndex, m.index + cmd.length);
    const push = (re: RegExp, check: (v: string) => boolean, family: string) => {
      re.lastIndex = 0;
      let f: RegExpExecArray | null;
      // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
      while ((f = re.exec(region))) {
        const raw = f[1]!;
        const v = unquote(raw);
        if (!check(v)) continue;
        const s = from + f.index + f[0].length - raw.length + (raw === v ? 0 : 1);
        spans.push({ start: s, end: s + v.length, family, rank: 2 });
      }
    };
    if (cmd === "curl") {
      push(
        CURL_USER,
        (v) => {
          const c = v.indexOf(":");
          if (c < 0) return false;
          const user = v.slice(0, c);
          const pw = v.slice(c + 1).replace(/^["']|["']$/g, "");
          if (!pw) return user.length >= 3 && !isPlaceholder(user);
          return !isPlaceholder(pw) && !/^\$/.test(pw);
        },
        "curl",
      );
    } else if (cmd === "sshpass") push(SSHPASS_P, (v) => !isPlaceholder(v), "password");
    else if (cmd === "docker") {
      if (/^\s+login\b/.test(region)) push(DOCKER_P, (v) => !isPlaceholder(v), "password");
    } else if (cmd === "ConvertTo-SecureString") {
      push(SECURE_STRING, (v) => !isPlaceholder(v), "password");
    } else push(MYSQL_P, (v) => !isPlaceholder(v), "password");
  }
}
