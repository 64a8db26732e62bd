import type { AcquireOptions, Limiter, Permit } from './limiter';

/**
 * `Limiter.withPermit` for every implementation: acquire, run, always release. A permit lost while `fn` ran
 * turns even a success into a rejection with the loss reason, because `fn`'s work was no longer counted.
 */
export async function withPermit<T>(
  limiter: Pick<Limiter, 'acquire'>,
  fn: (signal: AbortSignal, permit: Permit) => T | Promise<T>,
  options: AcquireOptions = {},
): Promise<T> {
  const permit = await limiter.acquire(options);
  try {
    const result = await fn(permit.signal, permit);
    permit.signal.throwIfAborted();
    return result;
  } finally {
    await permit.release();
  }
}
