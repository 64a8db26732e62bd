import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { type KeyLoad, SAMPLE_INTERVAL_MS } from '@fusebox/api-router';
import type { FuseboxApi } from './fusebox-api';

const keyLoadSchema = z.object({
  key: z.string(),
  source: z.enum(['limiter', 'executor']),
  limit: z.number(),
  inFlight: z.number(),
  waiting: z.number(),
}) satisfies z.ZodType<KeyLoad>;

/** The tRPC query `limiter.stats`, over plain HTTP (tRPC's GET encoding, no transformer). */
const limiterStatsSchema = z.object({
  result: z.object({ data: z.object({ keys: z.array(keyLoadSchema) }) }),
});

/** Every limiter key's load and the API process's executor, from the server's `limiter.stats`. */
export async function readServerLoad(api: FuseboxApi, signal?: AbortSignal): Promise<KeyLoad[]> {
  const answer = await api.get('/trpc/limiter.stats', limiterStatsSchema, signal ? { signal } : {});
  return answer.result.data.keys;
}

/** The cluster-wide limiter key executions run under: the one named `key`, else the only one there is. */
export function gateLoad(keys: readonly KeyLoad[], key: string): KeyLoad | undefined {
  const limiters = keys.filter((load) => load.source === 'limiter');
  return limiters.find((load) => load.key === key) ?? (limiters.length === 1 ? limiters[0] : undefined);
}

/**
 * Samples the server's load as often as the server refreshes it (once a second) until `signal` aborts, for the progress line; `latest()` is the last
 * sample, or undefined while none has come (or the server stopped answering: the demo goes on without it).
 */
export function watchServerLoad(api: FuseboxApi, signal: AbortSignal): { latest(): KeyLoad[] | undefined } {
  let latest: KeyLoad[] | undefined;
  const poll = async () => {
    while (!signal.aborted) {
      latest = await readServerLoad(api, signal).catch(() => undefined);
      await sleep(SAMPLE_INTERVAL_MS, undefined, { signal }).catch(() => undefined);
    }
  };
  void poll();
  return { latest: () => latest };
}
