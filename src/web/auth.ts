/**
 * Who may use the web UI: a person who opened the one-time login URL that `coffer serve` printed.
 * Visiting it trades the one-time code for a session cookie (HttpOnly, SameSite=Strict, scoped to
 * this port) and redirects to `/`. The page then calls `/api` with that cookie — never with the
 * bearer token, which no page ever sees — and every state-changing call carries the session's
 * CSRF token in a header. Requests from any other origin (another port on 127.0.0.1 included:
 * same-site for cookies, but not same-origin) are refused even with a valid cookie.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { HttpError } from "../serve/errors";

const SESSION_TTL_MS = 7 * 86_400_000;
const LOGIN_TTL_MS = 24 * 3_600_000;
const MAX_SESSIONS = 64;

export const CSRF_HEADER = "x-coffer-csrf";

type Session = { csrf: string; expires: number };

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

const SAFE_METHODS = new Set(["GET", "HEAD"]);

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

  /** Trade a login code for a new session id; undefined when the code is unknown, used or expired. */
  redeem(loginCode: string): string | undefined {
    let found: string | undefined;
    for (const k of this.logins.keys()) if (sameSecret(k, loginCode)) found = k;
    if (!found) return undefined;
    const exp = this.logins.get(found)!;
    this.logins.delete(found);
    if (exp < Date.now()) return undefined;
    const sid = code();
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = [...this.sessions.entries()].sort((a, b) => a[1].expires - b[1].expires)[0];
      if (oldest) this.sessions.delete(oldest[0]);
    }
    this.sessions.set(sid, { csrf: code(), expires: Date.now() + SESSION_TTL_MS });
    return sid;
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

  logout(req: Request): void {
    const s = this.session(req);
    if (s) this.sessions.delete(s.id);
  }

  /**
   * Does this request act for a logged-in person? False without a session cookie (the caller
   * then asks for the bearer token). With one, the request must come from our own origin and,
   * unless it only reads, carry the CSRF token; otherwise a 403 says which check failed.
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
    if (!SAFE_METHODS.has(req.method)) {
      const given = req.headers.get(CSRF_HEADER) ?? "";
      if (!given || !sameSecret(given, s.csrf))
        throw new HttpError(403, "csrf", `missing or wrong ${CSRF_HEADER} header; reload the page`);
    }
    return true;
  }

  /** The CSRF token of the request's session (the page reads it from /api/v1/ui/session). */
  csrf(req: Request): string | undefined {
    return this.session(req)?.csrf;
  }
}
