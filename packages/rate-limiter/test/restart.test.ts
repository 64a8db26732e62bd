import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LimiterUnavailableError } from '../src/errors/limiter-unavailable-error';
import { PermitLostError } from '../src/errors/permit-lost-error';
import type { Limiter } from '../src/limiter';
import { createPgLimiter } from '../src/pg-limiter';
import { type ThrowawayPostgres, startThrowawayPostgres } from '@fusebox/testing/throwaway-postgres';

describe('a Postgres restart', () => {
  let postgres: ThrowawayPostgres;
  let limiter: Limiter;

  beforeAll(async () => {
    postgres = await startThrowawayPostgres();
  });

  afterAll(async () => {
    await limiter?.close();
    await postgres?.destroy();
  });

  it('fences every holder, fails acquires with a typed error while down, and recovers by itself', async () => {
    limiter = await createPgLimiter({ connectionString: postgres.url, key: 'restart', limit: 2 });
    const holders = [await limiter.acquire(), await limiter.acquire()];
    const fenced = holders.map(
      (permit) =>
        new Promise((resolve) =>
          permit.signal.addEventListener('abort', () => resolve(permit.signal.reason)),
        ),
    );

    await postgres.stop();
    for (const reason of await Promise.all(fenced)) expect(reason).toBeInstanceOf(PermitLostError);
    await expect(limiter.acquire({ timeoutMs: 2_000 })).rejects.toBeInstanceOf(LimiterUnavailableError);
    await expect(limiter.stats()).rejects.toMatchObject({ code: 'FUSEBOX_LIMITER_UNAVAILABLE' });

    await postgres.start();
    // The lost permits' slots are free again, and the same limiter object works without being recreated.
    const again = [await limiter.acquire({ timeoutMs: 5_000 }), await limiter.acquire({ timeoutMs: 5_000 })];
    expect(again.map((permit) => permit.slot).sort()).toEqual([1, 2]);
    expect((await limiter.stats()).inFlight).toBe(2);
    await Promise.all([...holders, ...again].map((permit) => permit.release()));
    expect((await limiter.stats()).inFlight).toBe(0);
  });
});
