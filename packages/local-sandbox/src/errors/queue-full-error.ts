import { LocalSandboxError } from './local-sandbox-error';

/**
 * Every execution slot is busy and the wait queue is at its bound. HTTP hosts answer 429 with
 * `Retry-After: retryAfterSeconds`.
 *
 * @example
 * if (error instanceof QueueFullError) reply.header('retry-after', error.retryAfterSeconds).code(429);
 */
export class QueueFullError extends LocalSandboxError {
  readonly retryAfterSeconds: number;

  constructor(queueLimit: number, retryAfterSeconds: number) {
    super(
      'FUSEBOX_LOCAL_SANDBOX_QUEUE_FULL',
      `the executor is saturated: every slot is busy and ${queueLimit} executions are already waiting`,
    );
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
