/** An error a user can act on: printed as one or two lines, exit code 1 (or 2 for usage). */
export class CofferError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    readonly hint?: string,
  ) {
    super(message);
    this.name = "CofferError";
  }
}

export function usageError(message: string, hint?: string): CofferError {
  return new CofferError(message, 2, hint);
}
