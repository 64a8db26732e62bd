import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import { LimiterSharedSessionError } from '../src/errors/shared-session-error';
import { LimiterUnavailableError } from '../src/errors/limiter-unavailable-error';
import { createLocalLimiter } from '../src/local-limiter';
import { createPgLimiter } from '../src/pg-limiter';

describe('bad input is refused with a clear typed error, never a hang', () => {
  let database: PostgresTestDatabase;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
  });

  afterAll(async () => {
    await database?.drop();
  });

  it.each([0, -3, 2.5, Number.NaN, Infinity, '4'])('refuses the limit %s', async (limit) => {
    const message = /expected limit to be a positive integer/;
    await expect(
      createPgLimiter({ connectionString: database.url, key: 'bad', limit: limit as number }),
    ).rejects.toThrow(
      new TypeError(
        `expected limit to be a positive integer, got ${typeof limit === 'number' ? String(limit) : JSON.stringify(limit)}`,
      ),
    );
    expect(() => createLocalLimiter({ limit: limit as number })).toThrow(message);
  });

  it.each(['', '   '])('refuses the key %j', async (key) => {
    const message = /expected key to be a non-empty string/;
    await expect(createPgLimiter({ connectionString: database.url, key, limit: 1 })).rejects.toThrow(message);
    await expect(createPgLimiter({ connectionString: database.url, limit: 1 } as never)).rejects.toThrow(
      message,
    );
    expect(() => createLocalLimiter({ key, limit: 1 })).toThrow(message);
  });

  it('refuses a missing database location, and a negative timeout', async () => {
    await expect(createPgLimiter({ key: 'bad', limit: 1 } as never)).rejects.toThrow(
      /expected connectionString/,
    );
    const limiter = createLocalLimiter({ limit: 1 });
    await expect(limiter.acquire({ timeoutMs: -1 })).rejects.toThrow(TypeError);
    await expect(limiter.setLimit(0)).rejects.toThrow(TypeError);
  });

  it('reports an unreachable database as LimiterUnavailableError, naming the cause', async () => {
    const unreachable = createPgLimiter({
      connectionString: 'postgresql://postgres@127.0.0.1:1/fusebox',
      key: 'bad',
      limit: 1,
    });
    await expect(unreachable).rejects.toBeInstanceOf(LimiterUnavailableError);
    await expect(unreachable).rejects.toMatchObject({
      code: 'FUSEBOX_LIMITER_UNAVAILABLE',
      message: /ECONNREFUSED/,
    });
  });

  it('refuses connections that are one session (as PGlite gives), whose locks would all be shared', async () => {
    const single = new pg.Client({ connectionString: database.url });
    await single.connect();
    try {
      // Every "connection" is the one session, as an embedded single-session database would hand out.
      const sameSession = {
        query: (config: pg.QueryConfig) => single.query(config),
        end: () => Promise.resolve(),
        on: (event: 'error' | 'end', listener: (error: Error) => void) =>
          single.on(event as 'error', listener),
      };
      await expect(
        createPgLimiter({ connect: () => Promise.resolve(sameSession), key: 'bad', limit: 1 }),
      ).rejects.toBeInstanceOf(LimiterSharedSessionError);
    } finally {
      await single.end();
    }
  });
});
