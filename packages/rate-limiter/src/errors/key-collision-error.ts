import { LimiterError } from './limiter-error';

/**
 * Two limiter keys hash to the same advisory-lock namespace, so they would share slots. Rename one of them.
 *
 * @example
 * await createPgLimiter({ connectionString, key: 'run_code', limit: 10 }).catch((error: unknown) => {
 *   if (error instanceof LimiterKeyCollisionError) console.error(`rename ${error.key}`);
 * });
 */
export class LimiterKeyCollisionError extends LimiterError {
  readonly key: string;
  readonly lockNamespace: number;

  constructor(key: string, lockNamespace: number, options?: ErrorOptions) {
    super(
      'FUSEBOX_LIMITER_KEY_COLLISION',
      `limiter key "${key}" hashes to lock namespace ${lockNamespace}, which another key already uses; rename it`,
      options,
    );
    this.key = key;
    this.lockNamespace = lockNamespace;
  }
}
