/** The stable `code` of every error class of the session API. */
export const SESSION_API_ERROR_CODES = [
  'FUSEBOX_SESSION_ACTION_LIMIT',
  'FUSEBOX_SESSION_CLOSED',
  'FUSEBOX_SESSION_CODE_LIMIT',
  'FUSEBOX_SESSION_CONCURRENT_ACTION',
  'FUSEBOX_SESSION_INVALID_REQUEST',
  'FUSEBOX_SESSION_LIMIT',
  'FUSEBOX_SESSION_NOT_FOUND',
  'FUSEBOX_SESSION_TASK_NOT_FOUND',
] as const;

export type SessionApiErrorCode = (typeof SESSION_API_ERROR_CODES)[number];

/**
 * Base class of the agent session API's errors. `code` is stable across versions and `status` is the HTTP
 * status the routes answer with; {@link isSessionApiError} works across duplicate copies of this module.
 */
export class SessionApiError extends Error {
  readonly code: SessionApiErrorCode;
  readonly status: number;

  constructor(code: SessionApiErrorCode, status: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }
}

/** True for any error of the session API, even from another copy of this module. */
export function isSessionApiError(error: unknown): error is SessionApiError {
  const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown };
  return (
    error instanceof Error &&
    (SESSION_API_ERROR_CODES as readonly unknown[]).includes(code) &&
    typeof status === 'number'
  );
}
