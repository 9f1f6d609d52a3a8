/**
 * Who may talk to `coffer serve`: a bearer token from `state/token` (created 0600 on first start)
 * on every /api and /mcp request, and a loopback `Host` header on every request (DNS-rebinding
 * guard: a page on evil.example resolving to 127.0.0.1 still sends `Host: evil.example`).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";
import { dirname } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { paths } from "../lib/paths";
import { readOwnText } from "../lib/small-file";

const TOKEN_RE = /^[A-Za-z0-9_-]{32,256}$/;

/** Read `state/token`, creating it (0600, 256 random bits) when missing or unusable. */
export function ensureToken(file = paths.token()): { token: string; created: boolean } {
  try {
    const token = readOwnText(file, 4096).trim();
    if (TOKEN_RE.test(token)) {
      // Tighten a token file someone loosened; it grants full access to memory.
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
      return { token, created: false };
    }
  } catch {}
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString("base64url");
  writeFileAtomic(file, `${token}\n`, 0o600);
  chmodSync(file, 0o600);
  return { token, created: true };
}

/** Constant-time check of `Authorization: Bearer <token>`. */
export function hasBearer(req: Request, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "");
  if (!m) return false;
  const given = Buffer.from(m[1]!);
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** The host part of a Host header (`name`, `name:port`, `[v6]`, `[v6]:port`), lowercased. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.lastIndexOf(":");
  return colon >= 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

const bracket = (h: string) => (h.includes(":") && !h.startsWith("[") ? `[${h}]` : h);

/**
 * Loopback names always; plus, when `--host` was given, the names this machine can be reached
 * by: that address, or for a wildcard bind every local interface address and the hostname.
 */
export function allowedHosts(bindHost: string): Set<string> {
  const set = new Set(LOOPBACK_NAMES);
  const h = bindHost.toLowerCase();
  if (!h || LOOPBACK_NAMES.has(h)) return set;
  if (h === "0.0.0.0" || h === "::" || h === "[::]") {
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) set.add(bracket(a.address.toLowerCase()));
    set.add(hostname().toLowerCase());
  } else {
    set.add(bracket(h));
  }
  return set;
}

/** A Host header as RFC 9110 writes it: a name, an IPv4 address or a bracketed IPv6 one, then an optional port. */
const HOST_SYNTAX = /^(?:\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::\d{1,5})?$/i;

export function hostAllowed(req: Request, allowed: Set<string>): boolean {
  const header = req.headers.get("host")?.trim();
  // A malformed header (`::1`, `127.0.0.1:abc`, `localhost:-1`) is refused here, never parsed later.
  return !!header && HOST_SYNTAX.test(header) && allowed.has(hostName(header));
}

/** Browsers send Origin on cross-site requests; only our own (loopback) origins may call us. */
export function originAllowed(req: Request, allowed: Set<string>): boolean {
  const origin = req.headers.get("origin");
  if (!origin) return true;
  try {
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") && allowed.has(hostName(u.host));
  } catch {
    return false;
  }
}
