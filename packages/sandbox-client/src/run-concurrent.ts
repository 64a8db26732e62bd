import { inspect } from 'node:util';
import { isSandboxClientError, type SandboxClientError } from './errors/sandbox-client-error';

/**
 * Reported after each item settles, in completion order.
 *
 * @example
 * const onProgress = (p: ConcurrentProgress<RunCodeResponse>) => console.log(`${p.completed}/${p.total}`);
 */
export interface ConcurrentProgress<T> {
  /** Items settled so far, this one included. */
  completed: number;
  total: number;
  /** Items settled so far with an error. */
  failed: number;
  /** This item's position in the input. */
  index: number;
  result: T | SandboxClientError;
}

/**
 * @example
 * const options: RunConcurrentOptions<RunCodeResponse> = { concurrency: 64, onProgress: (p) => bar.update(p.completed) };
 */
export interface RunConcurrentOptions<T> {
  /** At most this many calls in flight. Default 20, as SandboxFusion's `run_concurrent`. */
  concurrency?: number;
  /** Aborting it rejects the whole batch with `signal.reason` and starts nothing more. */
  signal?: AbortSignal;
  onProgress?: (progress: ConcurrentProgress<T>) => void;
}

const DEFAULT_CONCURRENCY = 20;

/**
 * Runs `run` over `items` with bounded concurrency and returns the results in input order. A call that fails
 * with one of this package's errors takes that error as its result, so one bad call does not lose a batch;
 * anything else (an abort's reason, an exception from `onProgress`) rejects the batch.
 */
export async function mapConcurrent<I, T>(
  items: readonly I[],
  run: (item: I) => Promise<T>,
  options: RunConcurrentOptions<T>,
): Promise<(T | SandboxClientError)[]> {
  const { concurrency = DEFAULT_CONCURRENCY, signal, onProgress } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`concurrency must be an integer ≥ 1, got ${inspect(concurrency)}`);
  }
  signal?.throwIfAborted();
  const results = new Array<T | SandboxClientError>(items.length);
  let next = 0;
  let completed = 0;
  let failed = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < items.length) {
      const index = next++;
      let result: T | SandboxClientError;
      try {
        result = await run(items[index] as I);
      } catch (error) {
        if (!isSandboxClientError(error)) throw error;
        result = error;
        failed++;
      }
      results[index] = result;
      completed++;
      onProgress?.({ completed, total: items.length, failed, index, result });
    }
  };
  const stopOnFailure = (error: unknown) => {
    stopped = true;
    throw error;
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, () => worker().catch(stopOnFailure)),
  );
  return results;
}
