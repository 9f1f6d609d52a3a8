/**
 * Who may use the web UI: a person who opened the one-time login link that `coffer serve` printed.
 * The page served at that link trades the one-time code (POST /login, own Origin only) for two
 * halves of one session: a cookie (HttpOnly, SameSite=Strict) and a key the page keeps in its own
 * origin's storage and sends as the `x-coffer-key` header on every /api call. Browsers send
 * cookies to every port of 127.0.0.1, so another local web app the user visits receives the
 * cookie; it never receives the key (storage is per origin: scheme, host and port), and a request
 * with the cookie but not the key gets nothing (401). The key is also the CSRF defence: no other
 * origin can set the header. Requests from any other origin (another port on 127.0.0.1 included)
 * are refused even with both halves. Threat model: docs/RELIABILITY.md, "Web UI session".
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { HttpError } from "../serve/errors";

const SESSION_TTL_MS = 7 * 86_400_000;
const LOGIN_TTL_MS = 24 * 3_600_000;
const MAX_SESSIONS = 64;

/** The header that carries the page's half of the session on every /api call. */
const KEY_HEADER = "x-coffer-key";

type Session = { key: string; expires: number };

const code = () => randomBytes(32).toString("base64url");

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookies(req: Request): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

export class WebAuth {
  private logins = new Map<string, number>();
  private sessions = new Map<string, Session>();
  readonly cookieName: string;

  constructor(port: number) {
    // Cookies ignore ports: one name per port keeps two servers on one machine apart.
    this.cookieName = `coffer_session_${port}`;
  }

  /** A new one-time login code (valid 24 h, until used). */
  newLoginCode(): string {
    const c = code();
    const now = Date.now();
    for (const [k, exp] of this.logins) if (exp < now) this.logins.delete(k);
    this.logins.set(c, now + LOGIN_TTL_MS);
    return c;
  }

  private findLogin(loginCode: string): string | undefined {
    let found: string | undefined;
    for (const [k, exp] of this.logins) if (sameSecret(k, loginCode) && exp >= Date.now()) found = k;
    return found;
  }

  /** Is this login code still good (unused, unexpired)? Does not use it up. */
  liveLogin(loginCode: string): boolean {
    return this.findLogin(loginCode) !== undefined;
  }

  /**
   * Trade a login code for a new session: its id (the cookie) and its key (the page keeps it).
   * Undefined when the code is unknown, used or expired.
   */
  redeem(loginCode: string): { sid: string; key: string } | undefined {
    const found = this.findLogin(loginCode);
    if (!found) return undefined;
    this.logins.delete(found);
    const sid = code();
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = [...this.sessions.entries()].sort((a, b) => a[1].expires - b[1].expires)[0];
      if (oldest) this.sessions.delete(oldest[0]);
    }
    const key = code();
    this.sessions.set(sid, { key, expires: Date.now() + SESSION_TTL_MS });
    return { sid, key };
  }

  sessionCookie(sid: string): string {
    return `${this.cookieName}=${sid}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}`;
  }

  clearCookie(): string {
    return `${this.cookieName}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
  }

  /** The session behind the request's cookie, if it is a live one. */
  session(req: Request): (Session & { id: string }) | undefined {
    const sid = cookies(req).get(this.cookieName);
    if (!sid) return undefined;
    for (const [k, s] of this.sessions) {
      if (!sameSecret(k, sid)) continue;
      if (s.expires < Date.now()) {
        this.sessions.delete(k);
        return undefined;
      }
      return { ...s, id: k };
    }
    return undefined;
  }

  /**
   * End the request's session, only with its key in `x-coffer-key` like any other call: a replayed
   * cookie cannot log the user out, whatever Origin it claims. False when refused; true when the
   * session ended or there was none to end.
   */
  logout(req: Request): boolean {
    const s = this.session(req);
    if (!s) return true;
    if (!this.authorize(req)) return false;
    this.sessions.delete(s.id);
    return true;
  }

  /**
   * Does this request act for a logged-in person? False without a live session cookie and its
   * key in the `x-coffer-key` header (the caller then asks for the bearer token: a replayed
   * cookie alone gets the same 401 as nothing). A request from another origin is refused with a
   * 403 that says which check failed.
   */
  authorize(req: Request): boolean {
    const s = this.session(req);
    if (!s) return false;
    const own = `http://${req.headers.get("host") ?? ""}`;
    const origin = req.headers.get("origin");
    if (origin !== null && origin !== own)
      throw new HttpError(403, "forbidden", `Origin ${origin} may not use this session (only ${own})`);
    const site = req.headers.get("sec-fetch-site");
    if (site !== null && site !== "same-origin" && site !== "none")
      throw new HttpError(403, "forbidden", `a ${site} request may not use this session`);
    const given = req.headers.get(KEY_HEADER) ?? "";
    return given !== "" && sameSecret(given, s.key);
  }
}
