import { describe, expect, it } from 'vitest';
import { StepTimer, within } from '../src/step-timer';

describe('StepTimer', () => {
  it('never fires before its delay has passed by performance.now()', async () => {
    // Node's timers count from the event loop's cached clock, which lags while the loop is busy: armed after
    // 3 ms of work, a plain 5 ms setTimeout fired early by performance.now() in 3 of 30 tries here (and a 0.5 s
    // run timeout was reported as 0.49985 s).
    const early: number[] = [];
    for (let trial = 0; trial < 50; trial++) {
      await new Promise((resolve) => setImmediate(resolve));
      const busyUntil = performance.now() + 3;
      while (performance.now() < busyUntil);
      const armed = performance.now();
      await new Promise<void>((resolve) =>
        new StepTimer().arm(5, () => {
          const waited = performance.now() - armed;
          if (waited < 5) early.push(waited);
          resolve();
        }),
      );
    }
    expect(early).toEqual([]);
  });

  it('fires once, only for the last arming, and not at all once cleared', async () => {
    const fired: string[] = [];
    const timer = new StepTimer();
    timer.arm(5, () => fired.push('first'));
    timer.arm(10, () => fired.push('second'));
    await new Promise((resolve) => setTimeout(resolve, 40));
    timer.arm(5, () => fired.push('cleared'));
    timer.clear();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fired).toEqual(['second']);
  });

  it('within: gives the value in time, or undefined (calling onLate) once the time is up', async () => {
    const late: string[] = [];
    expect(await within(Promise.resolve('ready'), 1_000, () => late.push('fast'))).toBe('ready');
    const never = new Promise<string>(() => {});
    expect(await within(never, 20, () => late.push('slow'))).toBeUndefined();
    await expect(within(Promise.reject(new Error('broken')), 1_000)).rejects.toThrow('broken');
    expect(late).toEqual(['slow']);
  });
});
