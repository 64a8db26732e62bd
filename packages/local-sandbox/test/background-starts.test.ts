import { afterEach, describe, expect, it, vi } from 'vitest';
import { BackgroundStarts } from '../src/background-starts';

afterEach(() => {
  vi.useRealTimers();
});

describe('BackgroundStarts', () => {
  it('retries a start that keeps failing after 1, 2, 4 … s, at most a minute apart, and from 1 s again after a success', async () => {
    vi.useFakeTimers();
    const started = performance.now();
    const retries: number[] = [];
    const errors: unknown[] = [];
    let failing = true;
    const starts: BackgroundStarts = new BackgroundStarts(
      (error) => errors.push(error),
      () => {
        retries.push(Math.round((performance.now() - started) / 1000));
        if (failing) starts.failed(new Error('bubblewrap is gone'));
        else starts.started();
      },
    );
    starts.failed(new Error('bubblewrap is gone'));
    expect(starts.paused).toBe(true);
    await vi.advanceTimersByTimeAsync(250_000);
    // 1, 2, 4, 8, 16, 32 s apart, then 60 s (the cap).
    expect(retries).toEqual([1, 3, 7, 15, 31, 63, 123, 183, 243]);
    expect(errors).toHaveLength(retries.length + 1);
    failing = false;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(starts.paused).toBe(false);
    starts.failed(new Error('once'));
    const before = retries.length;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(retries).toHaveLength(before + 1);
  });

  it('waits in settled() for tracked work, work tracked meanwhile included, and reports its errors', async () => {
    const errors: unknown[] = [];
    const starts = new BackgroundStarts(
      (error) => errors.push(error),
      () => {},
    );
    const order: string[] = [];
    starts.track(
      new Promise<void>((resolve) =>
        setTimeout(() => {
          order.push('first');
          starts.track(Promise.reject(new Error('disposal failed')).finally(() => order.push('second')));
          resolve();
        }, 10),
      ),
    );
    await starts.settled();
    expect(order).toEqual(['first', 'second']);
    expect(errors).toEqual([new Error('disposal failed')]);
  });
});
