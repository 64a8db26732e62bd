import { afterAll, describe, expect, it, vi } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Limiter } from '../src/limiter';
import { createPgLimiter } from '../src/pg-limiter';
import { limiterKinds } from './limiter-kinds';

const { kinds, database } = limiterKinds();
const limiters: Limiter[] = [];

afterAll(async () => {
  await Promise.all(limiters.map((limiter) => limiter.close()));
});

const settled = async (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => true), sleep(300).then(() => false)]);

describe.each(kinds)('%s limiter settings', (_, create) => {
  it('raising the limit admits waiters at once', async () => {
    const limiter = await create({ key: 'raise', limit: 1 });
    limiters.push(limiter);
    const first = await limiter.acquire();
    const second = limiter.acquire();
    expect(await settled(second)).toBe(false);
    await limiter.setLimit(2);
    expect((await second).slot).toBe(2);
    expect(await limiter.stats()).toMatchObject({ limit: 2, inFlight: 2 });
    await first.release();
    await (await second).release();
  });

  it('lowering the limit preempts nobody, and admits no one until in flight is below the new limit', async () => {
    const limiter = await create({ key: 'lower', limit: 3 });
    limiters.push(limiter);
    const held = await Promise.all([1, 2, 3].map(() => limiter.acquire()));
    await limiter.setLimit(1);
    expect(held.every((permit) => !permit.signal.aborted)).toBe(true);
    expect(await limiter.stats()).toMatchObject({ limit: 1, inFlight: 3 });

    const waiter = limiter.acquire();
    await held[2]!.release();
    await held[1]!.release();
    expect(await settled(waiter)).toBe(false);
    expect((await limiter.stats()).inFlight).toBe(1);
    await held[0]!.release();
    const admitted = await waiter;
    expect(admitted.slot).toBe(1);
    // Back at the new limit, it holds: one in flight, the next one waits.
    expect(await settled(limiter.acquire({ timeoutMs: 200 }).catch(() => 'timed out'))).toBe(true);
    await admitted.release();
  });

  it('maxStartsPerSecond spaces starts although slots are free', async () => {
    const limiter = await create({ key: 'rate', limit: 10, maxStartsPerSecond: 10 });
    limiters.push(limiter);
    const starts: number[] = [];
    await Promise.all(
      Array.from({ length: 5 }, () =>
        limiter.withPermit(() => {
          starts.push(performance.now());
        }),
      ),
    );
    // Five starts at 10 per second take at least four tenths of a second; unpaced they would take milliseconds.
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThan(350);
  });
});

describe('Postgres limiter settings are cluster-wide', () => {
  it('limiters created for one key at the same moment all start, and share one set of slots', async () => {
    const created = await Promise.all(
      Array.from({ length: 8 }, () =>
        createPgLimiter({ connectionString: database().url, key: 'together', limit: 2 }),
      ),
    );
    limiters.push(...created);
    const held = await Promise.all(created.slice(0, 2).map((limiter) => limiter.acquire()));
    await expect(created[7]!.acquire({ timeoutMs: 100 })).rejects.toMatchObject({
      code: 'FUSEBOX_LIMITER_TIMEOUT',
    });
    await Promise.all(held.map((permit) => permit.release()));
  });

  it('a limit set through one process applies to another', async () => {
    const a = await createPgLimiter({ connectionString: database().url, key: 'shared-setting', limit: 1 });
    const b = await createPgLimiter({ connectionString: database().url, key: 'shared-setting', limit: 1 });
    limiters.push(a, b);
    const held = await a.acquire();
    const waiting = b.acquire();
    await vi.waitFor(async () => expect((await b.stats()).waiting).toBe(1));
    await a.setLimit(2);
    expect((await waiting).slot).toBe(2);
    expect((await b.stats()).limit).toBe(2);
    await held.release();
    await (await waiting).release();
  });
});
