import { abortable } from './abortable';
import { LimiterUnavailableError } from './errors/limiter-unavailable-error';
import type { LimiterStats } from './limiter';
import { defaultHolderName } from './holder-name';
import { CONNECT_TIMEOUT_MS, type ConnectionSource, resolveConnect } from './pg-connection';
import { PgSession, describe } from './pg-session';
import { readStats } from './pg-stats';
import { UNDEFINED_TABLE, sqlState } from './sqlstate';

/** What errors name when no single key is concerned. */
const ALL_KEYS = '*';

/**
 * Every limiter key registered in the database, each with its cluster-wide state, for dashboards and
 * operators. It reads `pg_locks`: poll it at most about once a second. Rejects with LimiterUnavailableError if
 * the database does not answer.
 *
 * @example
 * for (const { key, inFlight, limit, waiting } of await listLimiters({ connectionString })) {
 *   console.log(`${key}: ${inFlight}/${limit} in flight, ${waiting} waiting`);
 * }
 */
export async function listLimiters(
  options: ConnectionSource & { signal?: AbortSignal },
): Promise<LimiterStats[]> {
  const connect = resolveConnect(options);
  options.signal?.throwIfAborted();
  const session = await abortable(
    PgSession.open(ALL_KEYS, connect, defaultHolderName(), CONNECT_TIMEOUT_MS, 'read'),
    options.signal,
  );
  try {
    return await abortable(
      readStats(session, null, CONNECT_TIMEOUT_MS).catch((error: unknown) => {
        // No limiter has run on this database yet: it has no keys.
        if (sqlState(error) === UNDEFINED_TABLE) return [];
        throw new LimiterUnavailableError(ALL_KEYS, describe(error), { cause: error });
      }),
      options.signal,
    );
  } finally {
    await session.end();
  }
}
