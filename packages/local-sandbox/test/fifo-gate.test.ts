import { describe, expect, it } from 'vitest';
import { ExecutorClosedError } from '../src/errors/executor-closed-error';
import { QueueFullError } from '../src/errors/queue-full-error';
import { FifoGate } from '../src/fifo-gate';

describe('FifoGate', () => {
  it('grants at most `concurrency` slots and serves waiters in arrival order', async () => {
    const gate = new FifoGate(2, 10);
    const first = await gate.acquire();
    const second = await gate.acquire();
    const order: number[] = [];
    const waiters = [3, 4, 5].map((n) => gate.acquire().then((release) => (order.push(n), release)));
    expect(gate.running).toBe(2);
    expect(gate.waiting).toBe(3);
    first();
    second();
    const [third, fourth] = await Promise.all(waiters.slice(0, 2));
    expect(order).toEqual([3, 4]);
    expect(gate.running).toBe(2);
    third?.();
    await waiters[2];
    expect(order).toEqual([3, 4, 5]);
    fourth?.();
  });

  it('refuses a caller beyond the queue bound with QueueFullError and a Retry-After hint', async () => {
    const gate = new FifoGate(1, 1);
    const held = await gate.acquire();
    const queued = gate.acquire();
    const refused = await gate.acquire().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(QueueFullError);
    expect((refused as QueueFullError).code).toBe('FUSEBOX_LOCAL_SANDBOX_QUEUE_FULL');
    expect((refused as QueueFullError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    held();
    (await queued)();
  });

  it('drops an aborted waiter from the queue and rejects it with the signal reason', async () => {
    const gate = new FifoGate(1, 5);
    const held = await gate.acquire();
    const controller = new AbortController();
    const waiting = gate.acquire({ signal: controller.signal });
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(gate.waiting).toBe(0);
    held();
    expect(gate.running).toBe(0);
  });

  it('rejects queued callers when closed, and every later caller', async () => {
    const gate = new FifoGate(1, 5);
    await gate.acquire();
    const waiting = gate.acquire();
    gate.close();
    await expect(waiting).rejects.toBeInstanceOf(ExecutorClosedError);
    await expect(gate.acquire()).rejects.toBeInstanceOf(ExecutorClosedError);
  });
});
