import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type pg from 'pg';
import { connectPostgres } from '@fusebox/db/sql-client';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import { PermitLostError } from '../src/errors/permit-lost-error';
import type { Limiter, Permit } from '../src/limiter';
import { createPgLimiter } from '../src/pg-limiter';

describe('fencing', () => {
  let database: PostgresTestDatabase;
  let admin: pg.Client;
  let limiter: Limiter;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    admin = await connectPostgres(database.url);
    limiter = await createPgLimiter({ connectionString: database.url, key: 'fencing', limit: 1 });
  });

  afterAll(async () => {
    await limiter?.close();
    await admin?.end();
    await database?.drop();
  });

  const terminateHolder = async (permit: Permit) => {
    const { holders } = await limiter.stats();
    const holder = holders.find((candidate) => candidate.slot === permit.slot);
    await admin.query('SELECT pg_terminate_backend($1)', [holder?.pid]);
  };

  it("aborts a permit's signal when its connection is terminated, and frees the slot", async () => {
    const permit = await limiter.acquire();
    const lost = new Promise<unknown>((resolve) =>
      permit.signal.addEventListener('abort', () => resolve(permit.signal.reason)),
    );
    await terminateHolder(permit);

    const reason = await lost;
    expect(reason).toBeInstanceOf(PermitLostError);
    expect(reason).toMatchObject({ code: 'FUSEBOX_LIMITER_PERMIT_LOST', key: 'fencing', slot: 1 });
    const next = await limiter.acquire({ timeoutMs: 5_000 });
    expect(next.slot).toBe(1);
    await permit.release();
    await next.release();
    expect((await limiter.stats()).inFlight).toBe(0);
  });

  it.each([
    ['succeeded', () => 'finished unguarded'],
    ['failed for the abort', () => Promise.reject(new Error('sandbox killed'))],
  ])('makes withPermit reject with the loss even when the work %s', async (_, ending) => {
    const outcome = limiter.withPermit(async (signal) => {
      const lost = new Promise((resolve) => signal.addEventListener('abort', resolve));
      await terminateHolder({ slot: 1, signal } as Permit);
      await lost;
      return ending();
    });
    await expect(outcome).rejects.toBeInstanceOf(PermitLostError);
    // The terminated backend frees its lock as it exits, a moment after the client heard of it.
    await vi.waitFor(async () => expect((await limiter.stats()).inFlight).toBe(0));
  });
});
