import { createPostgresTestDatabase, type PostgresTestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll } from 'vitest';
import type { Limiter } from '../src/limiter';
import { type LocalLimiterOptions, createLocalLimiter } from '../src/local-limiter';
import { createPgLimiter } from '../src/pg-limiter';

type Create = (
  options: Required<Pick<LocalLimiterOptions, 'key' | 'limit'>> & LocalLimiterOptions,
) => Promise<Limiter>;

/**
 * Both implementations, for tests of the behaviour they share: the Postgres one on a test database of the
 * calling file's own (created before its tests, dropped after), and the in-process one.
 */
export function limiterKinds(): { kinds: [string, Create][]; database: () => PostgresTestDatabase } {
  let database: PostgresTestDatabase | undefined;
  beforeAll(async () => {
    database = await createPostgresTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  const current = () => {
    if (!database) throw new Error('the test database is created in beforeAll');
    return database;
  };
  return {
    database: current,
    kinds: [
      ['Postgres', (options) => createPgLimiter({ connectionString: current().url, ...options })],
      ['in-process', (options) => Promise.resolve(createLocalLimiter(options))],
    ],
  };
}
