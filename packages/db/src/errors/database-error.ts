/** The stable `code` of every error this package throws. */
export const DATABASE_ERROR_CODES = [
  'FUSEBOX_DB_DATA_DIR_LOCKED',
  'FUSEBOX_DB_DATA_DIR_UNUSABLE',
  'FUSEBOX_DB_MIGRATION',
  'FUSEBOX_DB_UNREACHABLE',
] as const;

export type DatabaseErrorCode = (typeof DATABASE_ERROR_CODES)[number];

/**
 * Base class of every error @fusebox/db throws. `code` is stable across versions, so callers can branch on
 * it; `isDatabaseError` works across duplicate copies of this package.
 */
export class DatabaseError extends Error {
  readonly code: DatabaseErrorCode;

  constructor(code: DatabaseErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

export function isDatabaseError(error: unknown): error is DatabaseError {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return (DATABASE_ERROR_CODES as readonly unknown[]).includes(code);
}
