import { LocalSandboxError } from './local-sandbox-error';

/**
 * The executor is saturated: the wait queue is at its bound, or an execution waited its longest for room to run
 * (the message says which, how long, and what is short). HTTP hosts answer 429 with
 * `Retry-After: retryAfterSeconds`.
 *
 * @example
 * if (error instanceof QueueFullError) reply.header('retry-after', error.retryAfterSeconds).code(429);
 */
export class QueueFullError extends LocalSandboxError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super('FUSEBOX_LOCAL_SANDBOX_QUEUE_FULL', message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
