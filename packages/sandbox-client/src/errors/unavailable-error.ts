import { SandboxClientError } from './sandbox-client-error';

/**
 * No usable answer after `attempts` tries: every one was refused, reset, timed out at the socket, or answered
 * 429/502/503/504. `cause` is the last attempt's error (a {@link SandboxHttpError} for a status).
 *
 * @example
 * if (isSandboxClientError(error) && error.code === 'FUSEBOX_SANDBOX_UNAVAILABLE') console.error(error.attempts);
 */
export class SandboxUnavailableError extends SandboxClientError {
  declare readonly code: 'FUSEBOX_SANDBOX_UNAVAILABLE';
  readonly attempts: number;

  constructor(url: string, attempts: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    super('FUSEBOX_SANDBOX_UNAVAILABLE', `${url} is unavailable after ${tries}: ${reason}`, { cause });
    this.attempts = attempts;
  }
}
