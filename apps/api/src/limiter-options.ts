import type { Env } from './env';
import { WORKER_ID } from './worker-id';

/**
 * What every limiter of this server shares, whatever its key: how long a permit may be waited for, the holder's
 * name in the dashboard, and the bound on each wait on the database (so a frozen one is a 503, not a stall).
 */
export function limiterOptions(env: Env, key: string, limit: number) {
  return {
    key,
    limit,
    acquireTimeoutMs: env.FUSEBOX_LIMITER_TIMEOUT_S * 1000,
    holderName: WORKER_ID,
    databaseTimeoutMs: env.FUSEBOX_DB_STATEMENT_TIMEOUT_MS,
  };
}
