/**
 * Base class of the agent session API's errors. `code` is stable across versions and `status` is the HTTP
 * status the routes answer with; {@link isSessionApiError} works across duplicate copies of this module.
 */
export class SessionApiError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(code: string, status: number, message: string, options?: ErrorOptions) {
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
    typeof code === 'string' &&
    code.startsWith('FUSEBOX_SESSION_') &&
    typeof status === 'number'
  );
}
