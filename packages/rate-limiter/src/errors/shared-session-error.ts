import { LimiterError } from './limiter-error';

/**
 * The connection factory does not give independent Postgres sessions: two of its connections share advisory
 * locks. That is so for single-session embedded databases such as PGlite, where advisory locks are re-entrant
 * within the one session, so every waiter would "get" every slot and the cap would mean nothing. Use the
 * in-process limiter (`createLocalLimiter`) there instead.
 *
 * @example
 * const limiter = await createPgLimiter({ connect, key, limit }).catch((error: unknown) =>
 *   error instanceof LimiterSharedSessionError ? createLocalLimiter({ key, limit }) : Promise.reject(error),
 * );
 */
export class LimiterSharedSessionError extends LimiterError {
  readonly key: string;

  constructor(key: string) {
    super(
      'FUSEBOX_LIMITER_SHARED_SESSION',
      `limiter "${key}" needs independent Postgres sessions, but two connections from its factory share ` +
        'advisory locks (a single-session database such as PGlite?); use createLocalLimiter there',
    );
    this.key = key;
  }
}
