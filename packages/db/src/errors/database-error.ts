/**
 * Base class of every error @fusebox/db throws. `code` is stable across versions, so callers can branch on
 * it; `isDatabaseError` works across duplicate copies of this package.
 */
export class DatabaseError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

export function isDatabaseError(error: unknown): error is DatabaseError {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('FUSEBOX_DB_');
}
