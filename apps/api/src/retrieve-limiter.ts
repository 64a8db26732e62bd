import { type Limiter, createLocalLimiter } from '@fusebox/rate-limiter';
import { createPgLimiter } from '@fusebox/rate-limiter/pg';
import type { Env } from './env';
import { limiterOptions } from './limiter-options';

/**
 * The limit on /retrieve searches, a key of its own (FUSEBOX_RETRIEVE_LIMITER_KEY) so that searches never take
 * the permits of code executions, nor wait behind them. Cluster-wide on Postgres, as the execution gate is,
 * unless FUSEBOX_RETRIEVE_LIMITER is `process`; for this process alone embedded. An in-process permit costs no
 * round trip (bench/retrieval/SEARCH-PATH.md). Rejects with LimiterUnavailableError if the database does not
 * answer.
 */
export async function openRetrieveLimiter(env: Env): Promise<Limiter> {
  if (!env.DATABASE_URL || env.FUSEBOX_RETRIEVE_LIMITER === 'process') return localRetrieveLimiter(env);
  return createPgLimiter({ connectionString: env.DATABASE_URL, ...retrieveLimiterOptions(env) });
}

/** A retrieve limit for this process alone, for servers built without a cluster one (tests that build a server in process). */
export function localRetrieveLimiter(env: Env): Limiter {
  return createLocalLimiter(retrieveLimiterOptions(env));
}

function retrieveLimiterOptions(env: Env) {
  return limiterOptions(env, env.FUSEBOX_RETRIEVE_LIMITER_KEY, env.FUSEBOX_RETRIEVE_MAX_CONCURRENCY);
}
