import { type Limiter, createLocalLimiter } from '@fusebox/rate-limiter';

/** The config keys every rate-limited tool reads its global limit from. */
export interface GlobalLimitSettings {
  rate_limit: number;
  rate_limit_key: string;
  database_url?: string | undefined;
}

// verl's global limiter is a named Ray actor that every tool in the job shares. Without a database the
// in-process equivalent is one limiter per key, shared by every tool object in this process.
const processLimiters = new Map<string, Limiter>();

/**
 * The limiter a tool's calls share with every other tool on the same key: on Postgres with `database_url`
 * (cluster-wide, `owned`: the tool closes it), else this process's one for the key (shared, never closed).
 *
 * @example
 * const { limiter, owned } = await openGlobalLimiter({ rate_limit: 10, rate_limit_key: 'tools.search' });
 */
export async function openGlobalLimiter(
  settings: GlobalLimitSettings,
): Promise<{ limiter: Limiter; owned: boolean }> {
  const { database_url: connectionString, rate_limit_key: key, rate_limit: limit } = settings;
  if (connectionString) {
    // Loaded only here, so `pg` (an optional peer dependency) is needed only by configs with a database_url.
    const { createPgLimiter } = await import('@fusebox/rate-limiter/pg');
    return { limiter: await createPgLimiter({ connectionString, key, limit }), owned: true };
  }
  const shared = processLimiters.get(key) ?? createLocalLimiter({ limit, key });
  processLimiters.set(key, shared);
  return { limiter: shared, owned: false };
}
