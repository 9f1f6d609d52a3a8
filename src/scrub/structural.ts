/**
 * Secrets recognised by their shape rather than a name: PEM private keys, credentials in URLs,
 * Bearer/Basic credentials, JWTs, DSNs `user:pw@tcp(...)`, `.pgpass` lines, Kubernetes Secret
 * `data:`, command lines (`curl -u`, `mysql -pPW`, `sshpass -p`, `docker login -p`,
 * `ConvertTo-SecureString`), and `<private>...</private>` spans.
 *
 * Each finder is a literal search (indexOf, or a regex that starts with a literal behind a left
 * boundary) followed by bounded hand parsing; none revisits text it has passed.
 */

import { classify } from "./names";
import { KNOWN_PUBLIC } from "./providers";
import type { Span } from "./types";
import { alphabetRun, entropy, isPlaceholder, isSecretValue, looksFake, machineMade, typeName } from "./values";

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
    if (at < 0) {
      from = Math.max(from, pathTokenSpans(text, e, spans));
      continue;
    }
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

/** Path segments after which the next ones are a credential: webhooks, bot tokens, `/api/v1/<token>/`. */
const WEBHOOK_SEGMENT = /^(?:hooks?|webhooks?|incomingwebhook|webhookb2|triggers?|bot|services)$/i;

/**
 * Tokens in a URL's path (returns where the path reading stopped): after a webhook word (`/webhook/<uuid>@<uuid>/IncomingWebhook/<hex>/...`,
 * `/hooks/catch/123/<token>/`) every machine-made segment; right after `/api/v<n>/` one that is not
 * a UUID or a hex digest (those are ids and commits), and the same after `/tokens/` or `/keys/`.
 */
function pathTokenSpans(text: string, from: number, spans: Span[]): number {
  if (text[from] !== "/") return from;
  let p = from;
  let hook = false;
  let api = 0;
  for (let k = 0; k < 16 && p < text.length && text[p] === "/"; k++) {
    let e = p + 1;
    while (e < text.length && e - p < 512 && !/[\s/?#"'<>`\\)\]]/.test(text[e]!)) e++;
    const seg = text.slice(p + 1, e);
    if (WEBHOOK_SEGMENT.test(seg)) hook = true;
    else if (seg.length >= 16 && (hook || api === 2 || api === 3)) {
      const id = /^[0-9a-f-]{36}$|^[0-9a-f]{32,64}$/i.test(seg);
      const bare = seg.replace(/@/g, "");
      const random =
        machineMade(bare) ||
        (bare.length >= 20 && /[a-z]/.test(bare) && /[A-Z]/.test(bare) && entropy(bare) >= 3.8 && !typeName(bare));
      if ((hook || !id) && random) spans.push({ start: p + 1, end: e, family: "token", rank: 2 });
    }
    api = seg === "api" ? 1 : api === 1 && /^v\d{1,2}$/.test(seg) ? 2 : /^(?:tokens?|keys?)$/i.test(seg) ? 3 : 0;
    p = e;
  }
  return p;
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
  /\b(?:name|key)["']?[ \t]{0,3}[:=][ \t]{0,3}["']?([A-Za-z_][\w.-]{0,60})["']?[ \t]{0,3}(?:,[ \t]{0,3}|\r?\n[ \t]{0,40}(?:-[ \t]{1,3})?)["']?value["']?[ \t]{0,3}[:=][ \t]{0,3}(["']?)([^\s"',}]{1,512})\2/g;

const XML_NAME_VALUE =
  /\bname=(["'])([A-Za-z_][\w.-]{0,60})\1[^<>\n]{0,160}>[ \t\r\n]{0,40}<value>[ \t]{0,10}([^<\s]{1,1024})[ \t]{0,10}<\/value>/g;

/**
 * A secret's name and value given apart: Kubernetes `- name: DB_PASSWORD` / `value: ...`, JSON
 * {"name": ..., "value": ...}, .NET settings `<setting name="ApiSecret"><value>...</value>`.
 */
export function nameValueSpans(text: string, spans: Span[]): void {
  if (!text.includes("value")) return;
  if (text.includes("<value>")) {
    XML_NAME_VALUE.lastIndex = 0;
    let x: RegExpExecArray | null;
    // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
    while ((x = XML_NAME_VALUE.exec(text))) {
      const cls = classify(x[2]!);
      const v = x[3]!;
      if (!cls || !isSecretValue(v, cls.strength, true)) continue;
      const vs = x.index + x[0].lastIndexOf(v);
      spans.push({ start: vs, end: vs + v.length, family: cls.family, rank: 3 });
    }
  }
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

const PASS_FLAG = /(?<=[ \t])-p(?:[ \t]{1,5}|=)("[^"\n]{1,256}"|'[^'\n]{1,256}'|[^\s"'`|;&]{1,256})/g;
const USER_FLAG = /(?:^|[ \t])(?:-u|-U|--user|--username|--login|-l)(?:[ \t]+|=)[^\s-]/;

/**
 * `-p PASSWORD` on any command line, after a user flag (`-u deploy -p ...`) or when the value
 * looks like a password (letters of both cases with a digit); `-p 8080:80`, `mkdir -p dir`,
 * `tsc -p tsconfig.json`, `ssh -p 2222`, `kubectl logs -p web-7d9f8`, `cargo test -p crate-2` stay.
 */
export function passFlagSpans(text: string, spans: Span[]): void {
  if (!text.includes(" -p")) return;
  PASS_FLAG.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = PASS_FLAG.exec(text))) {
    const raw = m[1]!;
    const v = unquote(raw);
    if (v.length < 4 || !/[A-Za-z]/.test(v) || /[/\\:]|^\.|\.[a-z]{2,4}$/.test(v) || isPlaceholder(v)) continue;
    // the line before the flag, at most 200 characters back
    let ls = m.index;
    while (ls > 0 && m.index - ls < 200 && text[ls - 1] !== "\n") ls--;
    const line = text.slice(ls, m.index);
    const user = USER_FLAG.test(line);
    // alone, only a password's look: letters of both cases with a digit (`kubectl logs -p web-7d9f8c6b5-x2x4z`,
    // `cargo test -p my-crate-2` name a pod and a crate)
    const strong = v.length >= 8 && /\d/.test(v) && /[a-z]/.test(v) && /[A-Z]/.test(v);
    if (!(user ? isSecretValue(v, "password", raw !== v) : strong)) continue;
    const s = m.index + m[0].length - raw.length + (raw === v ? 0 : 1);
    spans.push({ start: s, end: s + v.length, family: "password", rank: 2 });
  }
}

const COMMAND =
  /(?<![\w-])(curl|mysql|mysqldump|mysqladmin|mysqlimport|mariadb|sshpass|docker|ConvertTo-SecureString)(?![\w-])/g;
const FLAG_VALUE = `(?:=|[ \\t]{0,5})((?:[^\\s"'\`|;&]|"[^"\\n]{0,512}"|'[^'\\n]{0,512}'){1,512})`;
const CURL_USER = new RegExp(`[ \\t](?:-u|--user)${FLAG_VALUE}`, "g");
const CURL_HEADER = /[ \t](?:-H|--header)[ \t]{1,5}(["'])([A-Za-z0-9_-]{1,64}):[ \t]{0,5}([^"'\n]{1,2048})\1/g;
/** Headers whose values are ids, hashes, dates or content descriptions, never credentials. */
const PLAIN_HEADER =
  /^(?:accept|content|user-agent|if-|etag|cache|date|host|origin|referer|range|x-request|x-correlation|x-trace|traceparent|tracestate|x-b3|x-amz-date|x-amz-content|x-forwarded|x-real-ip|idempotency|x-idempotency|x-github-delivery|x-hub-signature|connection|upgrade|dnt|prefer)|id$/i;
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
      // any other header whose value is a machine-made token (`-H "X-Acme: 3f9a..."`): curl sends credentials that way
      CURL_HEADER.lastIndex = 0;
      let h: RegExpExecArray | null;
      // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
      while ((h = CURL_HEADER.exec(region))) {
        if (PLAIN_HEADER.test(h[2]!)) continue;
        const raw = h[3]!.trimEnd();
        const scheme = /^[A-Za-z][A-Za-z-]{1,30}[ \t]+/.exec(raw);
        const v = scheme ? raw.slice(scheme[0].length) : raw;
        if (/\s/.test(v) || !machineMade(v)) continue;
        const vs = from + h.index + h[0].length - 1 - (h[3]!.length - (raw.length - v.length));
        spans.push({ start: vs, end: vs + v.length, family: "auth-header", rank: 2 });
      }
    } else if (cmd === "sshpass") push(SSHPASS_P, (v) => !isPlaceholder(v), "password");
    else if (cmd === "docker") {
      if (/^\s+login\b/.test(region)) push(DOCKER_P, (v) => !isPlaceholder(v), "password");
    } else if (cmd === "ConvertTo-SecureString") {
      push(SECURE_STRING, (v) => !isPlaceholder(v), "password");
    } else push(MYSQL_P, (v) => !isPlaceholder(v), "password");
  }
}

/** Where a provider-style prefix's marker may sit: `sk-`, `pk_`, `rk_`, `<word>pat_`, `<word>_live_`, `<word>_test_`, `<word>_prod_`. */
const PREFIX_MARK = /(?:sk|pk|rk|pat|live|test|prod)[_-]/g;
/** [A-Za-z0-9_-] */
const tokenChar = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
/** Mask characters: a body made mostly of these is an example (`sk_live_xxxxxxxx`, `pk_test_****`). */
const MASK = /[xX*#•.]/g;

/**
 * `user_profile_settings`, `learn-pipeline-2024`, `fixture_data_v2`: lower-case words joined, with
 * short numbers and short tags (`v2`, `s3`, `k8s`), an identifier.
 */
function identifierLike(body: string): boolean {
  const parts = body.split(/[_-]+/).filter(Boolean);
  if (parts.length < 2) return false;
  return parts.every(
    (w) =>
      (/^[a-z]{2,14}$|^[A-Z][a-z]{1,13}$/.test(w) && /[aeiouy]/i.test(w)) ||
      /^\d{1,4}$/.test(w) ||
      /^[a-z0-9]{1,4}$/.test(w),
  );
}

/**
 * Tokens with a provider-style prefix, whatever the provider and whatever the body's entropy:
 * `acme_live_...`, `acme_test_...`, `acmepat_...`, `sk-...`, `pk_...`. The prefix itself says
 * "credential"; the body only has to be a token (16+ characters, not a mask, not lower-case words).
 */
export function prefixedSpans(text: string, spans: Span[]): void {
  if (!/(?:sk|pk|rk|pat|live|test|prod)[_-]/.test(text)) return;
  PREFIX_MARK.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = PREFIX_MARK.exec(text))) {
    const mark = m[0].slice(0, -1);
    const at = m.index;
    // the token's start: back over token characters (a bounded walk; further back is a blob, not a prefix)
    let s = at;
    while (s > 0 && at - s <= 32 && tokenChar(text.charCodeAt(s - 1))) s--;
    if (at - s > 32 || (s > 0 && /[A-Za-z0-9_.+/@-]/.test(text[s - 1]!))) {
      // inside a blob: so is every later marker of the same run, skip it whole
      let e = at;
      while (e < text.length && tokenChar(text.charCodeAt(e))) e++;
      PREFIX_MARK.lastIndex = Math.max(PREFIX_MARK.lastIndex, e);
      continue;
    }
    const before = text[at - 1];
    const attached = at > s && before !== "_" && before !== "-";
    // letters glued to the marker: only `<word>pat_` (`shpat_`, `acmepat_`); `task-`, `latest_`, `product_` are words
    if (attached && mark !== "pat") continue;
    // `live_`, `test_`, `prod_` need a provider word before them (`acme_live_`), or they are ordinary words
    if ((mark === "live" || mark === "test" || mark === "prod") && at === s) continue;
    let e = at + m[0].length;
    const bodyStart = e;
    while (e < text.length && e - bodyStart < 1024 && tokenChar(text.charCodeAt(e))) e++;
    PREFIX_MARK.lastIndex = e;
    while (e > bodyStart && (text[e - 1] === "_" || text[e - 1] === "-")) e--;
    const body = text.slice(bodyStart, e);
    // a second marker word right after (`sk_live_`, `acme_test_pk_`): the body is what follows it
    const core = body.replace(/^(?:(?:live|test|prod|sandbox|pat|sk|pk|rk|api|key|proj)[_-])+/, "");
    if (core.length < 16) continue;
    if ((core.match(MASK)?.length ?? 0) >= core.length * 0.6) continue;
    if (identifierLike(core) || alphabetRun(core) || /example|sample|dummy|your|here|placeholder|redacted/i.test(core))
      continue;
    // glued prefixes and file names (`compat_layer_v2`, `sk-learn`) need a machine-made body
    if (attached && !(/\d/.test(core) && /[A-Za-z]/.test(core))) continue;
    if (text[e] === "." && /^\.[a-z]{1,4}\b/.test(text.slice(e, e + 6))) continue; // a file name
    const value = text.slice(s, e);
    if (KNOWN_PUBLIC.has(value)) continue;
    spans.push({ start: s, end: e, family: "token", rank: 2 });
  }
}

const COOKIE = /(?<![\w-])(?:set-)?cookie["']?[ \t]*:[ \t]*|(?<=[ \t])(?:-b|--cookie)[ \t]{1,5}["']?/gi;
/** Cookie attributes, not cookies. */
const COOKIE_ATTR = /^(?:path|domain|expires|max-age|samesite|secure|httponly|priority|partitioned)$/i;

/** Cookies (`Cookie:`, `Set-Cookie:`, `curl -b`): a session cookie is a credential. */
export function cookieSpans(text: string, spans: Span[]): void {
  if (!/cookie|COOKIE|Cookie| -b /.test(text)) return;
  COOKIE.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = COOKIE.exec(text))) {
    let p = m.index + m[0].length;
    const stop = Math.min(text.length, p + 4096);
    while (p < stop) {
      // one `name=value` pair, up to ';', a quote or the end of the line
      let e = p;
      while (e < stop && !/[;"'\n\r]/.test(text[e]!)) e++;
      const pair = text.slice(p, e);
      const eq = pair.indexOf("=");
      if (eq > 0) {
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        const vs = p + eq + 1 + (pair.slice(eq + 1).length - pair.slice(eq + 1).trimStart().length);
        const sessionish = /sess|sid|auth|token|jwt|remember|login|secret/i.test(name);
        if (
          !COOKIE_ATTR.test(name) &&
          /^[\w.-]{1,64}$/.test(name) &&
          !/\s/.test(value) &&
          (machineMade(value) || (sessionish && value.length >= 12 && /\d/.test(value) && !isPlaceholder(value)))
        )
          spans.push({ start: vs, end: vs + value.length, family: "cookie", rank: 2 });
      }
      if (e >= stop || text[e] !== ";") break;
      p = e + 1;
    }
    COOKIE.lastIndex = Math.max(COOKIE.lastIndex, p);
  }
}

/** Common top-level domains: a host name's last label. */
const TLD = /\.(?:com|net|io|org|dev|app|cloud|ai|co|us|eu|de|uk|sh|tech|xyz|me|so|cc|gg|to)(?![A-Za-z0-9-])/g;
const PAIR =
  /(?<![\w.-])["']?([A-Za-z_][\w.-]{0,40})["']?[ \t]{0,3}[:=][ \t]{0,3}["']?([A-Za-z0-9+/=_~.-]{20,512})(?![\w+/=~.-])/g;
/** Names of values that are random without being secrets: ids, hashes, cursors, content. */
const NOT_SECRET_NAME =
  /(?:^|[_.-])(?:id|ids|uuid|guid|hash|sha\d*|digest|checksum|etag|commit|rev|revision|version|nonce|state|challenge|trace|span|request|integrity|fingerprint|thumbprint|tag|ref|build|image|name|user|username|email|host|hostname|server|url|uri|endpoint|path|region|cluster|account|tenant|project|org|content|data|body|payload|blob|cursor|after|before|page|etc|salt|iv|md5|encoding|type|kind|mode|format|locale|lang|theme|h1)$|Id$|ID$/i;

/**
 * A machine-made value under any name near a provider's host name (`server=prod-1.online.acme.com`
 * and, on the line after, `client=Zq8v...`): the host says whose credential it is. Only values
 * with letters of both cases (not a hex digest, not a UUID), not in a URL's query, not
 * under a name that says id, hash, cursor or content.
 */
export function hostNearSpans(text: string, spans: Span[]): void {
  if (!text.includes(".")) return;
  TLD.lastIndex = 0;
  let scanned = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = TLD.exec(text))) {
    const at = m.index;
    // the host: letters, digits, '-' and '.' before the TLD (bounded)
    let s = at;
    while (s > 0 && at - s < 120 && /[A-Za-z0-9.-]/.test(text[s - 1]!)) s--;
    const host = text.slice(s, at + m[0].length).toLowerCase();
    if (!/^[a-z0-9-]+\.[a-z0-9.-]+$/.test(host) || /(?:^|\.)example\.|^localhost/.test(host)) continue;
    // the window: the line before, the host's line and the line after (at most 400 characters each way)
    let ws = text.lastIndexOf("\n", at);
    ws = ws < 0 ? 0 : text.lastIndexOf("\n", ws - 1) + 1;
    let we = text.indexOf("\n", at);
    if (we >= 0) {
      const next = text.indexOf("\n", we + 1);
      we = next < 0 ? text.length : next;
    } else we = text.length;
    ws = Math.max(ws, at - 400, scanned);
    we = Math.min(we, at + 400);
    if (we <= ws) continue;
    scanned = we;
    const window = text.slice(ws, we);
    PAIR.lastIndex = 0;
    let p: RegExpExecArray | null;
    // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
    while ((p = PAIR.exec(window))) {
      const name = p[1]!;
      const v = p[2]!;
      const before = window[p.index - 1] ?? text[ws - 1] ?? "";
      if (before === "?" || before === "&" || NOT_SECRET_NAME.test(name)) continue;
      if (!(/[a-z]/.test(v) && /[A-Z]/.test(v) && (/\d/.test(v) || v.length >= 24)) || !machineMade(v)) continue;
      const vs = ws + p.index + p[0].length - v.length;
      spans.push({ start: vs, end: vs + v.length, family: "token", rank: 3 });
    }
    TLD.lastIndex = Math.max(TLD.lastIndex, we);
  }
}

const IDENTIFIED_BY =
  /\bIDENTIFIED[ \t]+(?:WITH[ \t]+\w{1,40}[ \t]+)?BY[ \t]+(?:PASSWORD[ \t]+)?(["'])([^"'\n]{1,256})\1/gi;

/** SQL: `CREATE USER ... IDENTIFIED BY 'pw'`, `ALTER USER ... IDENTIFIED WITH mysql_native_password BY 'pw'`. */
export function sqlPasswordSpans(text: string, spans: Span[]): void {
  if (!/identified/i.test(text)) return;
  IDENTIFIED_BY.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = IDENTIFIED_BY.exec(text))) {
    const pw = m[2]!;
    if (isPlaceholder(pw)) continue;
    const end = m.index + m[0].length - 1;
    spans.push({ start: end - pw.length, end, family: "password", rank: 2 });
  }
}

const WORD_PREFIXED = /(?<![A-Za-z0-9_.+/=-])[a-z][a-z0-9]{1,11}[-_]([A-Za-z0-9]{32,512})(?![A-Za-z0-9_+/=-])/g;

/**
 * A short lower-case prefix and a long random body (`acme-Zq8vR2mK...`, `acme_K9x...`): how most
 * providers shape their tokens. The body must be 32+ letters of both cases and digits with high
 * entropy, so ids with a prefix (`chatcmpl-` and 29, `org-` and 24, `toolu_` and 24) stay.
 */
export function wordPrefixedSpans(text: string, spans: Span[]): void {
  WORD_PREFIXED.lastIndex = 0;
  let m: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: exec loop
  while ((m = WORD_PREFIXED.exec(text))) {
    const body = m[1]!;
    if (!(/[a-z]/.test(body) && /[A-Z]/.test(body) && /\d/.test(body)) || entropy(body) < 4 || looksFake(body))
      continue;
    if (typeName(body)) continue;
    spans.push({ start: m.index, end: m.index + m[0].length, family: "token", rank: 3 });
  }
}
