import type { AcquireOptions, Limiter, Permit } from './limiter';

/**
 * `Limiter.withPermit` for every implementation: acquire, run, always release. A permit lost while `fn` ran
 * makes the call reject with the loss reason, whatever `fn` did: a success was no longer counted against the
 * limit, and a failure was most likely the abort the loss caused.
 */
export async function withPermit<T>(
  limiter: Pick<Limiter, 'acquire'>,
  fn: (signal: AbortSignal, permit: Permit) => T | Promise<T>,
  options: AcquireOptions = {},
): Promise<T> {
  const permit = await limiter.acquire(options);
  try {
    let result: T;
    try {
      result = await fn(permit.signal, permit);
    } catch (error) {
      permit.signal.throwIfAborted();
      throw error;
    }
    permit.signal.throwIfAborted();
    return result;
  } finally {
    await permit.release();
  }
}
