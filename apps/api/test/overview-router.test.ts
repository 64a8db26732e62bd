import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '@fusebox/db/prisma';
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

  it('counts every execution on the executor, gated or not, and splits errors by whose they are', async () => {
    // Beside the three "gpu" runs above (40-50 s ago): "cpu" and ungated executions, 15-20 s ago.
    const start = Date.now() - 50_000;
    const at = (seconds: number) => new Date(start + seconds * 1000);
    type ExecutionRow = Prisma.ExecutionCreateManyInput;
    const row = (
      fields: Partial<ExecutionRow> & Pick<ExecutionRow, 'status' | 'requestedAt' | 'finishedAt'>,
    ): ExecutionRow => ({
      source: 'run_code',
      language: 'python',
      code: 'x',
      runMs: 100,
      ...fields,
    });
    await services.prisma.execution.createMany({
      data: [
        // With its permit at once, then 1 s in the executor's queue.
        row({
          limiterKey: 'cpu',
          status: 'Success',
          requestedAt: at(30),
          acquiredAt: at(30),
          finishedAt: at(31.1),
          queueWaitMs: 1000,
        }),
        // Answered 429 at the gate, and 422 for its body: neither reached the executor.
        row({
          limiterKey: 'cpu',
          status: 'Refused',
          message: '429 the queue for "cpu" is full',
          requestedAt: at(30),
          finishedAt: at(30),
          runMs: null,
        }),
        row({
          limiterKey: 'cpu',
          status: 'Refused',
          message: '422 language: unknown language',
          requestedAt: at(30),
          finishedAt: at(30),
          runMs: null,
        }),
        row({
          limiterKey: 'cpu',
          status: 'Failed',
          runStatus: 'TimeLimitExceeded',
          requestedAt: at(31),
          acquiredAt: at(31),
          finishedAt: at(32),
          runMs: 1000,
        }),
        row({ status: 'SandboxError', requestedAt: at(33), acquiredAt: at(33), finishedAt: at(33.2) }),
        row({ status: 'Abandoned', requestedAt: at(34), finishedAt: at(35), runMs: null }),
      ],
    });
    const history = await caller.overview.history({ minutes: 2, bucketSeconds: 5 });
    const byKey = new Map(history.keys.map((key) => [key.key, key]));
    const cpu = byKey.get('cpu')!;
    expect(cpu.finished).toBe(4);
    expect(cpu.statuses).toEqual({ Success: 1, Refused: 2, Failed: 1 });
    expect(cpu.outcomes).toEqual({ Success: 1, RateLimited: 1, Refused: 1, Timeout: 1 });
    const executor = byKey.get('executor')!;
    // 3 gpu + 2 cpu that got a permit + 2 ungated.
    expect(executor.finished).toBe(7);
    expect(executor.perSecond).toBeCloseTo(7 / 60);
    expect(executor.statuses).toEqual({ Success: 3, Failed: 2, SandboxError: 1, Abandoned: 1 });
    expect(executor.outcomes).toEqual({ Success: 3, Failed: 1, Timeout: 1, SandboxError: 1, Abandoned: 1 });
    expect(executor.points.reduce((sum, point) => sum + point.finished, 0)).toBe(7);
    expect(Math.max(...executor.points.map((point) => point.inFlight))).toBe(3);
    // The executor's wait is the slot's alone: the gated runs' permit waits are their keys'.
    expect(executor.permitWaitMs).toEqual({ p50: 0, p95: 0 });
    // Slot waits 0, 0, 0, 0, 0, 500 (gpu: 2.5 s queued, 2 s of it for the permit) and 1000 (cpu).
    expect(executor.sandboxQueueMs.p95).toBeCloseTo(850, 0);
  });

  it("does not count a slot twice when a queued run takes it before the last one's answer is sent", async () => {
    const start = Date.now() - 50_000;
    const at = (seconds: number) => new Date(start + seconds * 1000);
    // Two 4 s runs for one slot: the second was queued 4 s and started as the first freed the slot, 50 ms
    // before the first's answer (and its finished_at) went out.
    const run = (queueWaitMs: number, finished: number) => ({
      source: 'run_code',
      language: 'python',
      code: 'x',
      limiterKey: 'solo',
      status: 'Success',
      requestedAt: at(36),
      acquiredAt: at(36),
      finishedAt: at(finished),
      queueWaitMs,
      runMs: 4000,
    });
    await services.prisma.execution.createMany({ data: [run(0, 40.05), run(4000, 44.05)] });
    const history = await caller.overview.history({ minutes: 2, bucketSeconds: 5 });
    const executor = history.keys.find((key) => key.key === 'executor')!;
    const during = executor.points.filter(
      (point) => point.t + 5000 > start + 36_500 && point.t <= start + 43_500,
    );
    expect(during.length).toBeGreaterThan(0);
    expect(Math.max(...during.map((point) => point.inFlight))).toBe(1);
  });

  it('counts a run the kernel killed (exit 137, not a time limit) as out of memory, on its own key', async () => {
    const at = (seconds: number) => new Date(Date.now() - 50_000 + seconds * 1000);
    const failed = (returnCode: number, runStatus: string) => ({
      source: 'run_code',
      language: 'python',
      code: 'x',
      limiterKey: 'mem',
      status: 'Failed',
      runStatus,
      returnCode,
      requestedAt: at(37),
      acquiredAt: at(37),
      finishedAt: at(38),
      runMs: 900,
    });
    await services.prisma.execution.createMany({
      data: [failed(137, 'Finished'), failed(1, 'Finished'), failed(137, 'TimeLimitExceeded')],
    });
    const history = await caller.overview.history({ minutes: 2, bucketSeconds: 5 });
    const mem = history.keys.find((key) => key.key === 'mem')!;
    expect(mem.statuses).toEqual({ Failed: 3 });
    expect(mem.outcomes).toEqual({ OutOfMemory: 1, Failed: 1, Timeout: 1 });
    // The executions list filters the same ones.
    const listed = await caller.executions.list({ status: 'OutOfMemory' });
    expect(listed.items.map((item) => [item.limiterKey, item.returnCode, item.runStatus])).toEqual([
      ['mem', 137, 'Finished'],
    ]);
  });
});
