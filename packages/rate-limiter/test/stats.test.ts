import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import { listLimiters } from '../src/list-limiters';
import { LimiterUnavailableError } from '../src/errors/limiter-unavailable-error';
import type { Limiter } from '../src/limiter';
import { createPgLimiter } from '../src/pg-limiter';
import { type LimiterProcess, startLimiterProcess } from './limiter-process';

describe('stats seen from any process', () => {
  let database: PostgresTestDatabase;
  let observer: Limiter;
  let worker: LimiterProcess;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
  });

  afterAll(async () => {
    await observer?.close();
    await worker?.kill();
    await database?.drop();
  });

  it("show another process's holders and waiters, by name, for one key and in the list of all keys", async () => {
    worker = await startLimiterProcess({
      connectionString: database.url,
      limiter: { key: 'observed', limit: 2, holderName: 'rollout-worker-7' },
    });
    for (const id of ['a', 'b']) {
      worker.send({ type: 'hold', id });
      await worker.next('acquired', id);
    }
    worker.send({ type: 'hold', id: 'c' });
    observer = await createPgLimiter({ connectionString: database.url, key: 'idle-key', limit: 5 });

    await vi.waitFor(async () => {
      const [idle, observed] = await listLimiters({ connectionString: database.url });
      expect(idle).toEqual({ key: 'idle-key', limit: 5, inFlight: 0, waiting: 0, holders: [] });
      expect(observed).toMatchObject({ key: 'observed', limit: 2, inFlight: 2, waiting: 1 });
      expect(observed?.holders.map(({ slot, holder }) => ({ slot, holder }))).toEqual([
        { slot: 1, holder: 'rollout-worker-7' },
        { slot: 2, holder: 'rollout-worker-7' },
      ]);
      expect(observed?.holders.every(({ pid, since }) => pid !== null && since instanceof Date)).toBe(true);
    });
    expect(await observer.stats()).toEqual({
      key: 'idle-key',
      limit: 5,
      inFlight: 0,
      waiting: 0,
      holders: [],
    });

    // The waiter gets a slot as soon as a holder releases: the list follows.
    worker.send({ type: 'release', id: 'a' });
    await worker.next('acquired', 'c');
    const [, observed] = await listLimiters({ connectionString: database.url });
    expect(observed).toMatchObject({ inFlight: 2, waiting: 0 });
  });

  it('listLimiters reports an unreachable database with a typed error', async () => {
    await expect(
      listLimiters({ connectionString: 'postgresql://postgres@127.0.0.1:1/fusebox' }),
    ).rejects.toBeInstanceOf(LimiterUnavailableError);
  });
});
