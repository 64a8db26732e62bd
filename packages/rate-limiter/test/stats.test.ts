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

  it("count this process's waiters beyond maxWaitingConnections, which the database cannot see", async () => {
    const limiter = await createPgLimiter({
      connectionString: database.url,
      key: 'overflow',
      limit: 1,
      maxWaitingConnections: 2,
    });
    try {
      const holder = await limiter.acquire();
      const waiters = Array.from({ length: 5 }, () => limiter.acquire());
      await vi.waitFor(async () => {
        const cluster = await listLimiters({ connectionString: database.url });
        expect(cluster.find(({ key }) => key === 'overflow')).toMatchObject({
          key: 'overflow',
          inFlight: 1,
          waiting: 2,
        });
      });
      expect(await limiter.stats()).toMatchObject({ inFlight: 1, waiting: 5 });

      await holder.release();
      // The two waiters with a connection race for the lock in Postgres (FIFO between connections is only
      // approximate), so whichever gets it first goes first here; waiting for waiters[0] could deadlock.
      const tagged = waiters.map((waiter, index) => waiter.then((permit) => ({ index, permit })));
      const first = await Promise.race(tagged);
      await vi.waitFor(async () => expect(await limiter.stats()).toMatchObject({ inFlight: 1, waiting: 4 }));
      await first.permit.release();
      await Promise.all(
        tagged
          .filter((_, index) => index !== first.index)
          .map(async (waiter) => (await waiter).permit.release()),
      );
      expect(await limiter.stats()).toMatchObject({ inFlight: 0, waiting: 0 });
    } finally {
      await limiter.close();
    }
  });

  it('listLimiters reports an unreachable database with a typed error', async () => {
    await expect(
      listLimiters({ connectionString: 'postgresql://postgres@127.0.0.1:1/fusebox' }),
    ).rejects.toBeInstanceOf(LimiterUnavailableError);
  });
});
