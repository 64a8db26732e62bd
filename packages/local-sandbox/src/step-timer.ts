/** setTimeout's largest delay; longer ones are clamped to it, and waited out again (about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * One timer at a time, re-armed as a run goes from step to step, that never fires before its delay has passed by
 * `performance.now()`, which times the steps. Node's timers run on the event loop's cached clock and can fire a
 * fraction of a millisecond early by it, and a step stopped at its timeout must have had all of it: a run with
 * `run_timeout` 0.5 was reported with an `execution_time` of 0.49985.
 *
 * @example
 * const timer = new StepTimer();
 * timer.arm(500, () => sandbox.kill());
 * timer.clear();
 */
export class StepTimer {
  #timer: NodeJS.Timeout | undefined;

  /** Calls `onFire` once `ms` have passed, unless cleared or armed again first. */
  arm(ms: number, onFire: () => void): void {
    this.clear();
    const due = performance.now() + Math.max(ms, 0);
    const wait = () => {
      const left = due - performance.now();
      if (left > 0) this.#timer = setTimeout(wait, Math.min(Math.ceil(left), MAX_TIMER_MS));
      else onFire();
    };
    this.#timer = setTimeout(wait, Math.min(Math.max(ms, 0), MAX_TIMER_MS));
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** What `promise` resolves to, or undefined if `ms` pass first (`onLate` is then called); rejects as it does. */
export async function within<T>(promise: Promise<T>, ms: number, onLate = () => {}): Promise<T | undefined> {
  const timer = new StepTimer();
  try {
    return await new Promise<T | undefined>((resolve, reject) => {
      timer.arm(ms, () => {
        onLate();
        resolve(undefined);
      });
      promise.then(resolve, reject);
    });
  } finally {
    timer.clear();
  }
}
