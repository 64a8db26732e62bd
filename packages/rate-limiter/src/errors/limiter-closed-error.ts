import { LimiterError } from './limiter-error';

/**
 * The limiter was closed: acquires waiting at the time, and any made afterwards, reject with this; permits still
 * held are fenced with it as their signal's reason.
 *
 * @example
 * await limiter.close();
 * await limiter.acquire().catch((error: unknown) => error instanceof LimiterClosedError); // true
 */
export class LimiterClosedError extends LimiterError {
  readonly key: string;

  constructor(key: string) {
    super('FUSEBOX_LIMITER_CLOSED', `limiter "${key}" is closed`);
    this.key = key;
  }
}
