import { afterAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { limiterKinds } from './limiter-kinds';
import { type LimiterProcess, startLimiterProcess } from './limiter-process';
import { maxOverlap } from '@fusebox/testing/max-overlap';

// verl's own limiter tests (tests/workers/rollout/test_sandbox_fusion_tools.py), reproduced with 1 s tasks.
const { kinds, database } = limiterKinds();

describe.each(kinds)('%s limiter', (_, create) => {
  it('limit 3, six 1 s tasks: results in order, done in 2 to 4 s', async () => {
    const limiter = await create({ key: 'verl-single-node', limit: 3 });
    try {
      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          limiter.withPermit(async () => {
            await sleep(1_000);
            return `task ${i}`;
          }),
        ),
      );
      const duration = performance.now() - started;
      expect(results).toEqual(Array.from({ length: 6 }, (_, i) => `task ${i}`));
      expect(duration).toBeGreaterThan(2_000);
      expect(duration).toBeLessThan(4_000);
    } finally {
      await limiter.close();
    }
  });

  it('limit 6, twenty tasks where one throws: the other 19 results intact, nothing left in flight', async () => {
    const limiter = await create({ key: 'verl-rotten', limit: 6 });
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          limiter.withPermit(async () => {
            await sleep(50);
            if (i === 10) throw new Error('rotten execution');
            return i;
          }),
        ),
      );
      expect(outcomes[10]).toMatchObject({ status: 'rejected', reason: { message: 'rotten execution' } });
      expect(outcomes.filter((_, i) => i !== 10)).toEqual(
        Array.from({ length: 20 }, (_, i) => ({ status: 'fulfilled', value: i })).filter((_, i) => i !== 10),
      );
      expect(await limiter.stats()).toMatchObject({ inFlight: 0, waiting: 0 });
    } finally {
      await limiter.close();
    }
  });
});

describe('Postgres limiter across processes', () => {
  let processes: LimiterProcess[] = [];

  afterAll(async () => {
    await Promise.all(processes.map((child) => child.kill()));
  });

  it('2 processes × six 1 s tasks under a global limit of 6 share the limit: two rounds, never 7 at once', async () => {
    processes = await Promise.all(
      [1, 2].map(() =>
        startLimiterProcess({
          connectionString: database().url,
          limiter: { key: 'verl-multi-node', limit: 6 },
        }),
      ),
    );
    const results = processes.map((child) => child.next('intervals'));
    for (const child of processes) child.send({ type: 'tasks', count: 6, durationMs: 1_000 });
    const intervals = (await Promise.all(results)).flatMap((message) => message.intervals);

    const span =
      Math.max(...intervals.map(([, end]) => end)) - Math.min(...intervals.map(([start]) => start));
    // Unshared, all twelve would run at once and finish in about 1 s.
    expect(span).toBeGreaterThan(1_900);
    expect(maxOverlap(intervals)).toBe(6);
  });
});
