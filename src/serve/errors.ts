/**
 * HTTP errors: every failure answers `{error: {code, message, details}}` with a matching status,
 * and `toHttpError` is the one place a failure's kind (CofferError's code) becomes that status.
 */
import { CofferError, type CofferErrorCode } from "../lib/errors";
import { storageError } from "../lib/storage-error";
import type { ErrorBody } from "./api-types";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export const badRequest = (message: string, details: unknown = null) =>
  new HttpError(400, "bad_request", message, details);
export const notFound = (message: string, details: unknown = null) => new HttpError(404, "not_found", message, details);

/** Each kind of failure as HTTP: its status and the envelope's code (input to fix stays "bad_request"). */
const HTTP_OF: Record<CofferErrorCode, { status: number; code: string }> = {
  invalid: { status: 400, code: "bad_request" },
  usage: { status: 400, code: "bad_request" },
  ambiguous: { status: 400, code: "ambiguous" },
  not_found: { status: 404, code: "not_found" },
  conflict: { status: 409, code: "conflict" },
  busy: { status: 503, code: "busy" },
  unavailable: { status: 503, code: "unavailable" },
};

/**
 * What a route handler threw, as the HttpError to answer with: an HttpError as it is, a CofferError
 * (the tools' ToolError is one) or a storage failure (read-only, full, locked) by its code. Anything
 * else is returned unchanged, for the server to log and answer 500.
 */
export function toHttpError(err: unknown): unknown {
  if (err instanceof HttpError) return err;
  const known = err instanceof CofferError ? err : storageError(err);
  if (!known) return err;
  const { status, code } = HTTP_OF[known.code];
  return new HttpError(status, code, known.message, known.hint ? { hint: known.hint } : null);
}

const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
} as const;

/** A JSON answer; `json<T>(body)` checks the body against the shared type T (src/serve/api-types.ts). */
export function json<T = unknown>(body: T, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...SECURITY_HEADERS, ...headers },
  });
}

export function errorResponse(err: HttpError): Response {
  return json(
    { error: { code: err.code, message: err.message, details: err.details ?? null } } satisfies ErrorBody,
    err.status,
    err.headers,
  );
}
