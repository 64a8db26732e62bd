import { mapConcurrent } from '../map-concurrent';
import type { EpisodeRequest, Trajectory } from './episode';
import { type RunEpisodeOptions, checkEpisodeOptions, runEpisode } from './run-episode';

/**
 * Batch options: the episode options, plus how many episodes run at once and a progress callback.
 *
 * @example
 * const options: RunBatchOptions = { generate, tools, limits: { maxAssistantTurns: 5 }, concurrency: 64 };
 */
export interface RunBatchOptions extends RunEpisodeOptions {
  /** Episodes in flight at once (default 32). Tool executions are bounded separately, by the tools' limiters. */
  concurrency?: number;
  /** Called after each episode ends, in completion order. */
  onProgress?: (progress: { done: number; total: number; trajectory: Trajectory }) => void;
}

/**
 * Runs many episodes with the same policy and tools, at most `concurrency` at a time, and returns their
 * trajectories in request order. A failing episode gives a FAILED trajectory and the batch goes on; an abort
 * stops starting episodes, lets the running ones clean up their tool instances, and rejects with
 * `signal.reason`.
 *
 * @example
 * const trajectories = await runBatch(requests, {
 *   generate, tools, limits: { maxAssistantTurns: 5 }, concurrency: 64,
 *   onProgress: ({ done, total }) => console.log(`${done}/${total}`),
 * });
 * await writeVerlDump('rollouts', 1, trajectories);
 */
export async function runBatch(
  requests: readonly EpisodeRequest[],
  options: RunBatchOptions,
): Promise<Trajectory[]> {
  const given: unknown = requests;
  if (!Array.isArray(given)) throw new TypeError('expected requests to be an array of episode requests');
  const concurrency = options.concurrency ?? 32;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`expected options.concurrency to be a positive integer, got ${String(concurrency)}`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new TypeError('expected options.onProgress to be a function');
  }
  const checked = checkEpisodeOptions(options);
  options.signal?.throwIfAborted();
  let done = 0;
  return mapConcurrent(
    requests,
    concurrency,
    async (request) => {
      const trajectory = await runEpisode(request, checked);
      done += 1;
      options.onProgress?.({ done, total: requests.length, trajectory });
      return trajectory;
    },
    options.signal,
  );
}
