import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExecutionGate } from '../src/execution-gate';
import { createCaller } from '@fusebox/api-router';
import { trpcContext } from '../src/trpc-context';
import { type RouterContext, createRouterContext } from './router-context';

describe('the limiter router', () => {
  let context: RouterContext;
  // The gate `fusebox serve` opens for the mode under test: on Postgres the cluster-wide one, read back from the
  // lock table; embedded, the process's own.
  const gate = (env: RouterContext['services']['env']) =>
    openExecutionGate({ ...env, FUSEBOX_MAX_CONCURRENCY: 2, FUSEBOX_LIMITER_KEY: 'gpu' });

  beforeAll(async () => {
    context = await createRouterContext();
  });
  afterAll(() => context?.close());

  it('has no keys without a gate, and says so without an error', async () => {
    expect(await context.caller.limiter.stats()).toMatchObject({ keys: [], limiterError: null });
  });

  it('streams in flight and waiting as executions take and wait for permits, each sample tracked by its time', async () => {
    const services = { ...context.services, gate: await gate(context.services.env) };
    const controller = new AbortController();
    const stream = await createCaller(trpcContext(services), {
      signal: controller.signal,
    }).limiter.inFlight();
    // Two executions hold both permits and 20 wait, until `finish` lets them go: more than the Postgres limiter's
    // 16 waiting connections, so some wait in the process, and are counted too.
    const waiters = 20;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const hold = () =>
      services.gate.run(
        async () => {
          await finished;
          const at = new Date();
          return { timing: { requestedAt: at, acquiredAt: at, finishedAt: at, queueWaitMs: 0 } };
        },
        { signal: controller.signal },
      );
    const runs = Array.from({ length: 2 + waiters }, hold);
    const seen: { id: string; inFlight: number; waiting: number }[] = [];
    for await (const event of stream) {
      const [id, load] = event as unknown as [
        string,
        { at: number; keys: { key: string; inFlight: number; waiting: number; limit: number }[] },
      ];
      const gpu = load.keys.find((key) => key.key === 'gpu');
      expect(gpu?.limit).toBe(2);
      expect(id).toBe(String(load.at));
      seen.push({ id, inFlight: gpu?.inFlight ?? -1, waiting: gpu?.waiting ?? -1 });
      if (gpu?.inFlight === 2 && gpu.waiting === waiters) finish();
      if (seen.length > 1 && gpu?.inFlight === 0) break;
    }
    await Promise.all(runs);
    controller.abort();
    await services.gate.close();
    expect(seen).toContainEqual(expect.objectContaining({ inFlight: 2, waiting: waiters }));
    expect(seen.at(-1)).toMatchObject({ inFlight: 0, waiting: 0 });
    expect(new Set(seen.map((sample) => sample.id)).size).toBe(seen.length);
  });
});
