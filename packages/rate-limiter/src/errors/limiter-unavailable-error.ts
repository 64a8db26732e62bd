import { LimiterError } from './limiter-error';

/**
 * The limiter's database did not answer, or answered with an error: it is unreachable, down, restarting, or
 * not migrated. Nothing is held. The limiter reconnects by itself on the next acquire, so retrying later works.
 *
 * @example
 * await limiter.acquire().catch((error: unknown) => {
 *   if (error instanceof LimiterUnavailableError) console.error(error.message, error.cause);
 * });
 */
export class LimiterUnavailableError extends LimiterError {
  readonly key: string;

  constructor(key: string, reason: string, options?: ErrorOptions) {
    super('FUSEBOX_LIMITER_UNAVAILABLE', `limiter "${key}" cannot reach its database: ${reason}`, options);
    this.key = key;
  }
}
