import { LimiterError } from './limiter-error';

/**
 * An acquire waited its whole `timeoutMs` without getting a permit. The waiter has left the queue; nothing is
 * held. HTTP callers answer 429 with Retry-After.
 *
 * @example
 * await limiter.acquire({ timeoutMs: 50 }).catch((error: unknown) => {
 *   if (error instanceof LimiterTimeoutError) console.log(`gave up after ${error.timeoutMs} ms`);
 * });
 */
export class LimiterTimeoutError extends LimiterError {
  readonly key: string;
  readonly timeoutMs: number;

  constructor(key: string, timeoutMs: number) {
    super('FUSEBOX_LIMITER_TIMEOUT', `no permit for limiter "${key}" within ${timeoutMs} ms`);
    this.key = key;
    this.timeoutMs = timeoutMs;
  }
}
