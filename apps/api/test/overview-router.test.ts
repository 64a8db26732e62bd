import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouterContext, createRouterContext } from './router-context';

describe('the overview router', () => {
  let context: RouterContext;
  let services: RouterContext['services'];
  let caller: RouterContext['caller'];

  beforeAll(async () => {
    context = await createRouterContext();
    ({ services, caller } = context);
  });
  afterAll(() => context?.close());

  it('says there is nothing yet on an empty database', async () => {
    const history = await caller.overview.history({});
    expect(history.hasExecutions).toBe(false);
    expect(history.keys).toEqual([]);
    const now = await caller.limiter.stats();
    expect(now).toMatchObject({ keys: [], limiterError: null });
  });

  it('replays in flight and waiting exactly, with percentiles and statuses per key', async () => {
    const now = Date.now();
    const start = now - 60_000;
    const at = (seconds: number) => new Date(start + seconds * 1000);
    // Three overlapping runs on "gpu": 2 in flight from 10 s, 3 from 12 s (one waited 2 s), back to 0 by 20 s.
    await services.prisma.execution.createMany({
      data: [
        {
          requestedAt: at(10),
          acquiredAt: at(10),
          finishedAt: at(16),
          runMs: 6000,
          queueWaitMs: 0,
          status: 'Success',
        },
        {
          requestedAt: at(10),
          acquiredAt: at(10),
          finishedAt: at(18),
          runMs: 8000,
          queueWaitMs: 0,
          status: 'Success',
        },
        {
          requestedAt: at(10),
          acquiredAt: at(12),
          finishedAt: at(20),
          runMs: 8000,
          // 2 s for the permit, then 0.5 s for a sandbox slot.
          queueWaitMs: 2500,
          status: 'Failed',
        },
      ].map((row) => ({ ...row, source: 'run_code', language: 'python', code: 'x', limiterKey: 'gpu' })),
    });
    const history = await caller.overview.history({ minutes: 2, bucketSeconds: 5 });
    expect(history.hasExecutions).toBe(true);
    const gpu = history.keys.find((key) => key.key === 'gpu')!;
    const during = (fromSeconds: number, toSeconds: number) =>
      gpu.points.filter(
        (point) => point.t + 5000 > start + fromSeconds * 1000 && point.t <= start + toSeconds * 1000,
      );
    const peak = (points: typeof gpu.points) => ({
      inFlight: Math.max(...points.map((point) => point.inFlight)),
      waiting: Math.max(...points.map((point) => point.waiting)),
    });
    expect(peak(during(10, 13))).toEqual({ inFlight: 3, waiting: 1 });
    expect(peak(during(16.5, 17.5)).inFlight).toBe(2);
    expect(peak(during(25, 50))).toEqual({ inFlight: 0, waiting: 0 });
    expect(gpu.points.reduce((sum, point) => sum + point.finished, 0)).toBe(3);
    expect(gpu.statuses).toEqual({ Success: 2, Failed: 1 });
    expect(gpu.runMs.p50).toBe(8000);
    expect(gpu.permitWaitMs).toMatchObject({ p50: 0 });
    expect(gpu.permitWaitMs.p95).toBeCloseTo(1800, 0);
    expect(gpu.sandboxQueueMs).toMatchObject({ p50: 0 });
    expect(gpu.sandboxQueueMs.p95).toBeCloseTo(450, 0);
  });
});
