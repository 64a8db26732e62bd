import { setTimeout as sleep } from 'node:timers/promises';
import { listLimiters } from '@fusebox/rate-limiter/pg';
import { EXECUTOR_KEY, type KeyLoad, type LiveLoad, SAMPLE_INTERVAL_MS } from '@fusebox/api-router';
import type { Services } from '../services';

/**
 * Reads the load now: every limiter key's cluster-wide permits (on Postgres), or this process's own gate (embedded,
 * where it is the whole limit), and this process's executor queue.
 */
export async function sampleLoad(services: Services, signal?: AbortSignal): Promise<LiveLoad> {
  const keys: KeyLoad[] = [];
  let limiterError: string | null = null;
  const options = signal ? { signal } : {};
  const url = services.env.DATABASE_URL;
  try {
    const [cluster, own] = await Promise.all([
      url ? listLimiters({ connectionString: url, ...options }) : [],
      services.gate?.stats(options),
    ]);
    // This process's own key from its gate, which also counts the waiters queued in the process beyond the
    // limiter's connections; the lock table sees only those queued in the database.
    const limiters = cluster.map((limiter) => (limiter.key === own?.key ? own : limiter));
    if (own && !cluster.some(({ key }) => key === own.key)) limiters.push(own);
    for (const limiter of limiters) {
      keys.push({
        key: limiter.key,
        source: 'limiter',
        limit: limiter.limit,
        inFlight: limiter.inFlight,
        waiting: limiter.waiting,
      });
    }
  } catch (error) {
    limiterError = error instanceof Error ? error.message : String(error);
  }
  const executor = services.executor?.stats();
  if (executor) {
    keys.push({
      key: EXECUTOR_KEY,
      source: 'executor',
      limit: executor.concurrency,
      inFlight: executor.running,
      waiting: executor.waiting,
    });
  }
  return { at: Date.now(), keys, limiterError };
}

const samplers = new WeakMap<
  Services,
  { subscribers: number; latest: Promise<LiveLoad>; timer?: NodeJS.Timeout }
>();

/**
 * Yields the load once a second until `signal` aborts. Every subscriber of one server shares a single sampler,
 * which stops when the last one leaves.
 */
export async function* watchLoad(services: Services, signal: AbortSignal): AsyncGenerator<LiveLoad> {
  let sampler = samplers.get(services);
  if (!sampler) {
    const created = { subscribers: 0, latest: sampleLoad(services) } as {
      subscribers: number;
      latest: Promise<LiveLoad>;
      timer?: NodeJS.Timeout;
    };
    created.timer = setInterval(() => {
      created.latest = sampleLoad(services);
    }, SAMPLE_INTERVAL_MS);
    samplers.set(services, created);
    sampler = created;
  }
  sampler.subscribers += 1;
  try {
    let last = 0;
    while (!signal.aborted) {
      const load = await sampler.latest;
      if (load.at !== last) {
        last = load.at;
        yield load;
      }
      await sleep(SAMPLE_INTERVAL_MS / 4, undefined, { signal }).catch(() => {});
    }
  } finally {
    sampler.subscribers -= 1;
    if (sampler.subscribers === 0) {
      clearInterval(sampler.timer);
      samplers.delete(services);
    }
  }
}
