import { SandboxClientError } from './sandbox-client-error';

/**
 * A call took longer than its `timeoutMs`, counting every attempt and every backoff wait. It is not retried: the
 * call's time is spent.
 *
 * @example
 * if (isSandboxClientError(error) && error.code === 'FUSEBOX_SANDBOX_TIMEOUT') console.error(error.timeoutMs);
 */
export class SandboxTimeoutError extends SandboxClientError {
  declare readonly code: 'FUSEBOX_SANDBOX_TIMEOUT';
  readonly timeoutMs: number;

  constructor(url: string, timeoutMs: number) {
    super('FUSEBOX_SANDBOX_TIMEOUT', `${url} did not complete within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}
