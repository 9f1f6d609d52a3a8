/** HTTP errors: every failure answers `{error: {code, message, details}}` with a matching status. */

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

const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
} as const;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...SECURITY_HEADERS, ...headers },
  });
}

export function errorResponse(err: HttpError): Response {
  return json(
    { error: { code: err.code, message: err.message, details: err.details ?? null } },
    err.status,
    err.headers,
  );
}
