import { type Limiter, createLocalLimiter } from '@fusebox/rate-limiter';
import { createPgLimiter } from '@fusebox/rate-limiter/pg';
import type { Env } from './env';
import { WORKER_ID } from './worker-id';

/**
 * The limit on /retrieve searches, a key of its own (FUSEBOX_RETRIEVE_LIMITER_KEY) so that searches never take
 * the permits of code executions, nor wait behind them. Cluster-wide on Postgres, as the execution gate is; for
 * this process alone embedded.
 */
export async function openRetrieveLimiter(env: Env): Promise<Limiter> {
  const options = {
    key: env.FUSEBOX_RETRIEVE_LIMITER_KEY,
    limit: env.FUSEBOX_RETRIEVE_MAX_CONCURRENCY,
    acquireTimeoutMs: env.FUSEBOX_LIMITER_TIMEOUT_S * 1000,
    holderName: WORKER_ID,
  };
  if (!env.DATABASE_URL) return createLocalLimiter(options);
  return createPgLimiter({ connectionString: env.DATABASE_URL, ...options });
}
