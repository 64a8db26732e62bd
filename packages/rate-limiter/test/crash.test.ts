import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type PostgresTestDatabase, createPostgresTestDatabase } from '@fusebox/db/testing';
import type { Limiter } from '../src/limiter';
import { createPgLimiter } from '../src/pg-limiter';
import { type LimiterProcess, now, startLimiterProcess } from './limiter-process';

describe('a crashed process', () => {
  let database: PostgresTestDatabase;
  const limiters: Limiter[] = [];
  const processes: LimiterProcess[] = [];

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
  });

  afterAll(async () => {
    await Promise.all(limiters.map((limiter) => limiter.close()));
    await Promise.all(processes.map((child) => child.kill()));
    await database?.drop();
  });

  it('gives back every permit it held within 1 s of SIGKILL', async () => {
    const options = { key: 'crash', limit: 3 };
    const parent = await createPgLimiter({ connectionString: database.url, ...options });
    limiters.push(parent);
    const child = await startLimiterProcess({ connectionString: database.url, limiter: options });
    processes.push(child);
    for (const id of ['a', 'b', 'c']) {
      child.send({ type: 'hold', id });
      await child.next('acquired', id);
    }
    expect((await parent.stats()).inFlight).toBe(3);

    // The parent queues for all three slots, then the child dies without releasing anything.
    const waiting = Promise.all([1, 2, 3].map(() => parent.acquire({ timeoutMs: 10_000 }).then(() => now())));
    await vi.waitFor(async () => expect((await parent.stats()).waiting).toBe(3));
    const killedAt = now();
    await child.kill('SIGKILL');
    const recoveredMs = Math.max(...(await waiting)) - killedAt;

    console.log(`permits of a SIGKILLed process came back in ${recoveredMs.toFixed(1)} ms`);
    expect(recoveredMs).toBeLessThan(1_000);
  });

  it('does not leave its queued waiters blocking the queue', async () => {
    const options = { key: 'crash-waiters', limit: 1 };
    const parent = await createPgLimiter({ connectionString: database.url, ...options });
    limiters.push(parent);
    const [doomed, survivor] = await Promise.all(
      [1, 2].map(() => startLimiterProcess({ connectionString: database.url, limiter: options })),
    );
    processes.push(doomed!, survivor!);
    const blocker = await parent.acquire();
    doomed!.send({ type: 'hold', id: 'doomed-1' });
    doomed!.send({ type: 'hold', id: 'doomed-2' });
    await vi.waitFor(async () => expect((await parent.stats()).waiting).toBe(2));
    survivor!.send({ type: 'hold', id: 'survivor' });
    await vi.waitFor(async () => expect((await parent.stats()).waiting).toBe(3));

    // The dead process's waiters leave the queue although the slot is still taken, so nothing is waiting on them.
    await doomed!.kill('SIGKILL');
    await vi.waitFor(async () => expect((await parent.stats()).waiting).toBe(1), { timeout: 5_000 });
    await blocker.release();
    const admitted = await survivor!.next('acquired', 'survivor');
    expect(admitted.slot).toBe(1);
  });
});
