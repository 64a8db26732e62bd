import { describe, expect, it } from 'vitest';
import { LimiterClosedError } from '../src/errors/limiter-closed-error';
import { LimiterTimeoutError } from '../src/errors/limiter-timeout-error';
import { isLimiterError } from '../src/errors/limiter-error';
import { limiterKinds } from './limiter-kinds';

const { kinds } = limiterKinds();

describe.each(kinds)('%s limiter acquire', (_, create) => {
  it('times out with LimiterTimeoutError and leaves the queue, so later waiters are not stuck behind it', async () => {
    const limiter = await create({ key: 'timeout', limit: 1 });
    try {
      const held = await limiter.acquire();
      const error: unknown = await limiter.acquire({ timeoutMs: 100 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LimiterTimeoutError);
      expect(error).toMatchObject({ code: 'FUSEBOX_LIMITER_TIMEOUT', timeoutMs: 100 });
      expect(isLimiterError(error)).toBe(true);
      expect((await limiter.stats()).waiting).toBe(0);
      const next = limiter.acquire({ timeoutMs: 5_000 });
      await held.release();
      await (await next).release();
    } finally {
      await limiter.close();
    }
  });

  it("rejects with the signal's reason when aborted while waiting, and the slot goes to the next waiter", async () => {
    const limiter = await create({ key: 'abort', limit: 1 });
    try {
      const held = await limiter.acquire();
      const controller = new AbortController();
      const aborted = limiter.acquire({ signal: controller.signal });
      const next = limiter.acquire({ timeoutMs: 5_000 });
      const reason = new Error('caller gave up');
      controller.abort(reason);
      await expect(aborted).rejects.toBe(reason);
      await held.release();
      const permit = await next;
      expect(permit.slot).toBe(1);
      await permit.release();
      await expect(limiter.acquire({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    } finally {
      await limiter.close();
    }
  });

  it('releases idempotently: a second release does not free someone else’s slot', async () => {
    const limiter = await create({ key: 'idempotent', limit: 1 });
    try {
      const first = await limiter.acquire();
      await Promise.all([first.release(), first.release()]);
      const second = await limiter.acquire();
      await first.release();
      expect(await limiter.stats()).toMatchObject({ inFlight: 1 });
      await expect(limiter.acquire({ timeoutMs: 100 })).rejects.toBeInstanceOf(LimiterTimeoutError);
      await second.release();
    } finally {
      await limiter.close();
    }
  });

  it('close() rejects waiters and fences holders with LimiterClosedError', async () => {
    const limiter = await create({ key: 'close', limit: 1 });
    const held = await limiter.acquire();
    const waiter = limiter.acquire();
    await limiter.close();
    await expect(waiter).rejects.toBeInstanceOf(LimiterClosedError);
    expect(held.signal.reason).toBeInstanceOf(LimiterClosedError);
    await expect(limiter.acquire()).rejects.toMatchObject({ code: 'FUSEBOX_LIMITER_CLOSED' });
    await held.release();
  });
});
