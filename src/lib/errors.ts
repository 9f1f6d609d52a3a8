/**
 * What went wrong, for code that branches on it (HTTP status, MCP error kind): never the
 * message text, which is for people.
 * - invalid: a value the caller can fix (the default)
 * - usage: a command line that does not parse (exit code 2)
 * - not_found: no entry (or other named thing) with that id
 * - ambiguous: an id prefix that matches several entries
 * - conflict: the thing changed or exists in a way that forbids the change
 * - busy: another process holds what this one needs; try again
 * - unavailable: the store cannot be written (read-only, no permission, disk full)
 */
export type CofferErrorCode = "invalid" | "usage" | "not_found" | "ambiguous" | "conflict" | "busy" | "unavailable";

/** An error a user can act on: printed as one or two lines, exit code 1 (or 2 for usage). */
export class CofferError extends Error {
  readonly code: CofferErrorCode;

  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    readonly hint?: string,
    code?: CofferErrorCode,
  ) {
    super(message);
    this.name = "CofferError";
    this.code = code ?? (exitCode === 2 ? "usage" : "invalid");
  }
}

export function usageError(message: string, hint?: string): CofferError {
  return new CofferError(message, 2, hint, "usage");
}

/** Nothing by that id (HTTP 404, MCP not_found). */
export function notFoundError(message: string, hint?: string): CofferError {
  return new CofferError(message, 1, hint, "not_found");
}
